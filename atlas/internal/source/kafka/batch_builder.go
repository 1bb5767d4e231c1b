package kafka

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Limits of one Arrow record batch handed to GetBatch's callback.
const (
	batchMaxRows = 64 << 10
	// batchMaxBytes bounds the key+value bytes of one batch, far below the
	// 2 GiB that Arrow's int32 binary offsets can address.
	batchMaxBytes = 256 << 20
)

// batchBuilder turns fetched Kafka records into Arrow record batches with
// Schema. It writes the columns' buffers itself rather than through Arrow's
// builders: a record's buffers are allocated once, at the size the batch is
// expected to need, and filled in one pass, where the builders zero every
// buffer a second time after Go did and grow the byte buffers by doubling
// (bench windows profile: a quarter of the builder's time was that
// zeroing). Each flush hands the buffers to the new record, which owns
// them from then on: they are never reused, so no reader of the record
// can see them change. A record holds one partition's records: its topic
// and partition columns are filled at once when it is made.
type batchBuilder struct {
	maxRows  int
	maxBytes int

	// skip marks the columns of Schema the query never reads (see
	// Source.PruneColumns): they are not built, and each record gets a
	// slice of one all-null column per type instead, from nulls. The
	// offset column is always built: the reader tracks positions by it.
	skip  [numColumns]bool
	nulls [numColumns]arrow.Array

	key, value binaryColumn
	// topic and partition are those of every row so far.
	topic     string
	partition int32
	offset    []int64
	timestamp []int64
	tsType    []int32

	rows  int
	bytes int

	// expect is how many more rows the current GetBatch is known to bring
	// at most, and keyAvg/valueAvg the bytes per row of the last flushed
	// record: together they size a new record's buffers once, up front,
	// instead of growing them step by step.
	expect           int
	keyAvg, valueAvg int

	// recycle makes add recycle each record once it is copied (see
	// newChunks).
	recycle bool
}

// binaryColumn is a binary or string column being filled: a validity
// bitmap made only once a null is appended, the offsets (len = rows+1 once
// the first row is in) and the bytes. The bytes are allocated by
// noZeroBytes, without Go zeroing them first: every byte of data[:len] is
// written by an append before the record is made. They are a plain
// slice so that fetchDecoder.appendFields copies into them in a loop that
// keeps the slice in registers. (They were a strings.Builder's, whose
// Write stores its buffer's pointer back on every call: while the garbage
// collector marks, a write barrier per key and per value, 7% of
// BenchmarkDecodePartition/atlas's profile.)
type binaryColumn struct {
	valid   []byte
	nulls   int
	offsets []int32
	data    []byte
}

// noZeroBytes returns an empty slice of capacity n whose memory Go did
// not zero, or nil for n = 0. strings.Builder.Grow is the one public way
// to such memory: the builder's buffer is taken over once it holds a
// byte, and the builder dropped.
func noZeroBytes(n int) []byte {
	if n <= 0 {
		return nil
	}
	n = roundAlloc(n)
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), n)[:0]
}

// roundAlloc rounds a large allocation's size up to a multiple of 256 KiB
// (64 KiB from 64 KiB): the buffers of Arrow chunks are of every size, and
// the garbage collector's page heap reuses freed spans of a few sizes
// better than spans of every size.
func roundAlloc(n int) int {
	switch {
	case n >= 256<<10:
		return (n + 256<<10 - 1) &^ (256<<10 - 1)
	case n >= 64<<10:
		return (n + 64<<10 - 1) &^ (64<<10 - 1)
	}
	return n
}

func newBatchBuilder(maxRows, maxBytes int) *batchBuilder {
	return &batchBuilder{maxRows: maxRows, maxBytes: maxBytes}
}

// reserve makes room for rows more rows holding n more bytes.
func (c *binaryColumn) reserve(rows, n int) {
	if c.offsets == nil {
		c.offsets = make([]int32, 1, roundAlloc(4*(rows+1))/4)
	} else {
		c.offsets = grow(c.offsets, rows)
	}
	c.growData(n)
	if c.valid != nil {
		c.valid = grow(c.valid, int(bitutil.BytesForBits(int64(len(c.offsets)-1+rows)))-len(c.valid))
	}
}

// growData makes room for n more bytes, growing the bytes as
// strings.Builder.Grow does.
func (c *binaryColumn) growData(n int) {
	if cap(c.data)-len(c.data) < n {
		data := noZeroBytes(2*cap(c.data) + n)
		c.data = append(data, c.data...)
	}
}

// append adds one row, null when v is nil.
func (c *binaryColumn) append(v []byte) {
	row := len(c.offsets) - 1
	if v == nil {
		if c.valid == nil {
			// Every row so far is valid.
			c.valid = make([]byte, bitutil.BytesForBits(int64(cap(c.offsets)-1)))
			bitutil.SetBitsTo(c.valid, 0, int64(row), true)
		}
		c.nulls++
	}
	if c.valid != nil {
		if need := int(bitutil.BytesForBits(int64(row + 1))); need > len(c.valid) {
			c.valid = append(c.valid, make([]byte, need-len(c.valid))...)
		}
		bitutil.SetBitTo(c.valid, row, v != nil)
	}
	// Not append(c.data, v...), which stores the slice's pointer back
	// even when it did not grow (a write barrier while the garbage
	// collector marks); a reslice stores only the length.
	n := len(c.data)
	if cap(c.data)-n < len(v) {
		c.growData(len(v))
	}
	c.data = c.data[:n+len(v)]
	copy(c.data[n:], v)
	c.offsets = append(c.offsets, int32(len(c.data)))
}

// array hands the column's buffers to a new array of rows rows and starts
// the column over.
func (c *binaryColumn) array(dt arrow.DataType, rows int) arrow.Array {
	var valid *memory.Buffer
	if c.nulls > 0 {
		valid = memory.NewBufferBytes(c.valid[:bitutil.BytesForBits(int64(rows))])
	}
	offsets := c.offsets
	if offsets == nil {
		offsets = []int32{0}
	}
	a := newBinaryArray(dt, rows, valid, offsets, c.data, c.nulls)
	c.valid, c.nulls, c.offsets, c.data = nil, 0, nil, nil
	return a
}

func newBinaryArray(dt arrow.DataType, rows int, valid *memory.Buffer, offsets []int32, bytes []byte, nulls int) arrow.Array {
	data := array.NewData(dt, rows, []*memory.Buffer{
		valid,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)),
		memory.NewBufferBytes(bytes),
	}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// repeatedString makes a string array of rows copies of s.
func repeatedString(s string, rows int) arrow.Array {
	offsets := make([]int32, rows+1)
	for i := range offsets {
		offsets[i] = int32(i * len(s))
	}
	return newBinaryArray(arrow.BinaryTypes.String, rows, nil, offsets, bytes.Repeat([]byte(s), rows), 0)
}

// repeatedInt32 makes an int32 array of rows copies of v.
func repeatedInt32(v int32, rows int) arrow.Array {
	vals := make([]int32, rows)
	for i := range vals {
		vals[i] = v
	}
	return fixedArray(arrow.PrimitiveTypes.Int32, vals)
}

// fixedArray makes an array without nulls over the values of vals.
func fixedArray[T int32 | int64](dt arrow.DataType, vals []T) arrow.Array {
	var zero T
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*int(unsafe.Sizeof(zero)))
	data := array.NewData(dt, len(vals), []*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// grow returns s with room for n more elements, growing it at least by
// half so that many small additions do not copy it each time.
func grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	c := max(len(s)+n, cap(s)+cap(s)/2)
	var zero T
	if size := int(unsafe.Sizeof(zero)); size > 0 {
		c = roundAlloc(c*size) / size
	}
	out := make([]T, len(s), c)
	copy(out, s)
	return out
}

// addBlock is how many records add reads at a time: it sizes, copies and
// (with recycle) recycles a block while its records are in the CPU's
// cache, rather than walking every record of a fetch three times.
const addBlock = 256

// add appends records, skipping control records (transaction markers),
// and calls flush each time the batch is full or the next record is of
// another partition than the rows so far. It returns the number of data
// records appended. With b.recycle each record is recycled as soon as it
// is copied, and all of them are by the time add returns.
func (b *batchBuilder) add(recs []*kgo.Record, flush func() error) (int64, error) {
	var n int64
	for len(recs) > 0 {
		room := b.maxRows - b.rows
		chunk := recs[:min(len(recs), room, addBlock)]
		if b.rows == 0 {
			b.topic, b.partition = recs[0].Topic, recs[0].Partition
		}
		var keyBytes, valueBytes, rows int
		cut := false
		for i, r := range chunk {
			if r.Partition != b.partition || r.Topic != b.topic {
				chunk = chunk[:i]
				cut = true
				break
			}
			if r.Attrs.IsControl() {
				continue // not a row: its bytes are not copied
			}
			size := len(r.Key) + len(r.Value)
			if b.bytes+keyBytes+valueBytes+size > b.maxBytes && (b.rows > 0 || rows > 0) {
				chunk = chunk[:i]
				cut = true
				break
			}
			keyBytes += len(r.Key)
			valueBytes += len(r.Value)
			rows++
		}
		if b.rows == 0 {
			if b.valueAvg == 0 && rows > 0 {
				// No record flushed yet: size by the first records.
				b.keyAvg = (keyBytes + rows - 1) / rows
				b.valueAvg = (valueBytes + rows - 1) / rows
			}
			b.presize()
		}
		b.reserve(rows, keyBytes, valueBytes)
		skipKey, skipValue, skipTime := b.skip[colKey], b.skip[colValue], b.skip[colTimestamp]
		skipTsType := b.skip[colTimestampType]
		for _, r := range chunk {
			if !r.Attrs.IsControl() {
				if !skipKey {
					b.key.append(r.Key)
				}
				if !skipValue {
					b.value.append(r.Value)
				}
				b.offset = append(b.offset, r.Offset)
				if !skipTime {
					b.timestamp = append(b.timestamp, r.Timestamp.UnixMicro())
				}
				if !skipTsType {
					b.tsType = append(b.tsType, int32(r.Attrs.TimestampType()))
				}
				b.rows++
				b.bytes += len(r.Key) + len(r.Value)
				n++
			}
			if b.recycle {
				r.Recycle() // control records too
			}
		}
		recs = recs[len(chunk):]
		if b.rows >= b.maxRows || (cut && b.rows > 0) {
			if err := flush(); err != nil {
				if b.recycle {
					recycle(recs)
				}
				return n, err
			}
		}
	}
	return n, nil
}

// presize sizes the buffers of a new record for the rows the batch is
// expected to bring, at the average row size seen so far.
func (b *batchBuilder) presize() {
	rows := min(b.maxRows, b.expect)
	if rows <= 0 {
		return
	}
	b.reserve(rows, min(rows*b.keyAvg, b.maxBytes), min(rows*b.valueAvg, b.maxBytes))
}

// reserve makes room for rows more rows with the given bytes.
func (b *batchBuilder) reserve(rows, keyBytes, valueBytes int) {
	if !b.skip[colKey] {
		b.key.reserve(rows, keyBytes)
	}
	if !b.skip[colValue] {
		b.value.reserve(rows, valueBytes)
	}
	b.offset = grow(b.offset, rows)
	if !b.skip[colTimestamp] {
		b.timestamp = grow(b.timestamp, rows)
	}
	if !b.skip[colTimestampType] {
		b.tsType = grow(b.tsType, rows)
	}
}

// len is the number of rows waiting to be flushed.
func (b *batchBuilder) len() int { return b.rows }

// newRecord builds a record batch from the rows appended so far and starts
// over with no buffers: the record owns them. The caller releases the
// record.
func (b *batchBuilder) newRecord() arrow.RecordBatch {
	rows := b.rows
	if rows > 0 {
		// Round up so that the next record rarely needs to grow.
		b.keyAvg = (len(b.key.data) + rows - 1) / rows
		b.valueAvg = (len(b.value.data) + rows - 1) / rows
	}
	b.expect -= rows
	var cols [numColumns]arrow.Array
	for i := range cols {
		if b.skip[i] { // never the offset column (prune)
			cols[i] = b.nullColumn(i, rows)
			continue
		}
		switch i {
		case colKey:
			cols[i] = b.key.array(arrow.BinaryTypes.Binary, rows)
		case colValue:
			cols[i] = b.value.array(arrow.BinaryTypes.Binary, rows)
		case colTopic:
			cols[i] = repeatedString(b.topic, rows)
		case colPartition:
			cols[i] = repeatedInt32(b.partition, rows)
		case colOffset:
			cols[i] = fixedArray(arrow.PrimitiveTypes.Int64, b.offset)
		case colTimestamp:
			cols[i] = fixedArray(Schema.Field(colTimestamp).Type, b.timestamp)
		case colTimestampType:
			cols[i] = fixedArray(arrow.PrimitiveTypes.Int32, b.tsType)
		}
	}
	rec := array.NewRecordBatch(Schema, cols[:], int64(rows))
	for _, c := range cols {
		c.Release()
	}
	b.offset, b.timestamp, b.tsType = nil, nil, nil
	b.rows, b.bytes = 0, 0
	return rec
}

// prune stops building the columns of Schema that read marks false. A
// record already being filled is not affected: prune is called before
// the first record.
func (b *batchBuilder) prune(read []bool) {
	for i := range b.skip {
		b.skip[i] = i < len(read) && !read[i] && i != colOffset
	}
}

// nullColumn returns rows nulls of column i's type: a slice of one
// all-null array of maxRows rows kept for the builder's life, so that a
// column the query does not read costs no memory per record. Arrow arrays
// are immutable, so every record may share it.
func (b *batchBuilder) nullColumn(i, rows int) arrow.Array {
	if b.nulls[i] == nil {
		b.nulls[i] = array.MakeArrayOfNull(memory.DefaultAllocator, Schema.Field(i).Type, max(b.maxRows, rows))
	}
	if rows > b.nulls[i].Len() {
		b.nulls[i].Release()
		b.nulls[i] = array.MakeArrayOfNull(memory.DefaultAllocator, Schema.Field(i).Type, rows)
	}
	return array.NewSlice(b.nulls[i], 0, int64(rows))
}

// release drops the builder's buffers.
func (b *batchBuilder) release() {
	if b.rows > 0 {
		b.newRecord().Release()
	}
	for i, a := range b.nulls {
		if a != nil {
			a.Release()
			b.nulls[i] = nil
		}
	}
}
