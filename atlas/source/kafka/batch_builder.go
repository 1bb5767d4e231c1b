package kafka

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
// Schema. Its builders are reused from batch to batch: each flush hands the
// filled buffers to a new record and the builders start over.
type batchBuilder struct {
	maxRows  int
	maxBytes int

	key       *array.BinaryBuilder
	value     *array.BinaryBuilder
	topic     *array.StringBuilder
	partition *array.Int32Builder
	offset    *array.Int64Builder
	timestamp *array.TimestampBuilder
	tsType    *array.Int32Builder

	rows  int
	bytes int

	// expect is how many more rows the current GetBatch is known to bring
	// at most, and keyAvg/valueAvg the bytes per row of the last flushed
	// record: together they size a new record's buffers once, up front,
	// instead of growing them step by step.
	expect           int
	keyAvg, valueAvg int
}

func newBatchBuilder(mem memory.Allocator, maxRows, maxBytes int) *batchBuilder {
	return &batchBuilder{
		maxRows:   maxRows,
		maxBytes:  maxBytes,
		key:       array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary),
		value:     array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary),
		topic:     array.NewStringBuilder(mem),
		partition: array.NewInt32Builder(mem),
		offset:    array.NewInt64Builder(mem),
		timestamp: array.NewTimestampBuilder(mem, Schema.Field(colTimestamp).Type.(*arrow.TimestampType)),
		tsType:    array.NewInt32Builder(mem),
	}
}

// add appends the records of one partition, skipping control records
// (transaction markers), and calls flush each time the batch is full. It
// returns the number of data records appended.
func (b *batchBuilder) add(recs []*kgo.Record, flush func() error) (int64, error) {
	var n int64
	for len(recs) > 0 {
		room := b.maxRows - b.rows
		chunk := recs
		if len(chunk) > room {
			chunk = chunk[:room]
		}
		if b.rows == 0 {
			b.presize()
		}
		var keyBytes, valueBytes, topicBytes, rows int
		for i, r := range chunk {
			size := len(r.Key) + len(r.Value)
			if b.bytes+keyBytes+valueBytes+size > b.maxBytes && (b.rows > 0 || i > 0) {
				chunk = chunk[:i]
				break
			}
			keyBytes += len(r.Key)
			valueBytes += len(r.Value)
			topicBytes += len(r.Topic)
			rows++
		}
		b.reserve(rows, keyBytes, valueBytes, topicBytes)
		for _, r := range chunk {
			if r.Attrs.IsControl() {
				continue
			}
			if r.Key == nil {
				b.key.AppendNull()
			} else {
				b.key.UnsafeAppend(r.Key)
			}
			if r.Value == nil {
				b.value.AppendNull()
			} else {
				b.value.UnsafeAppend(r.Value)
			}
			b.topic.BinaryBuilder.UnsafeAppend(unsafe.Slice(unsafe.StringData(r.Topic), len(r.Topic)))
			b.partition.UnsafeAppend(r.Partition)
			b.offset.UnsafeAppend(r.Offset)
			b.timestamp.UnsafeAppend(arrow.Timestamp(r.Timestamp.UnixMicro()))
			b.tsType.UnsafeAppend(int32(r.Attrs.TimestampType()))
			b.rows++
			b.bytes += len(r.Key) + len(r.Value)
			n++
		}
		recs = recs[len(chunk):]
		if b.rows >= b.maxRows || (len(recs) > 0 && b.rows > 0) {
			if err := flush(); err != nil {
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
	b.key.Reserve(rows)
	b.value.Reserve(rows)
	b.topic.Reserve(rows)
	b.partition.Reserve(rows)
	b.offset.Reserve(rows)
	b.timestamp.Reserve(rows)
	b.tsType.Reserve(rows)
	if b.keyAvg > 0 {
		b.key.ReserveData(min(rows*b.keyAvg, b.maxBytes))
	}
	if b.valueAvg > 0 {
		b.value.ReserveData(min(rows*b.valueAvg, b.maxBytes))
	}
}

// reserve makes room for rows more rows, growing the data buffers
// geometrically so that many small appends do not copy the data each time.
func (b *batchBuilder) reserve(rows, keyBytes, valueBytes, topicBytes int) {
	b.key.Reserve(rows)
	b.value.Reserve(rows)
	b.topic.Reserve(rows)
	b.partition.Reserve(rows)
	b.offset.Reserve(rows)
	b.timestamp.Reserve(rows)
	b.tsType.Reserve(rows)
	reserveData(b.key, keyBytes)
	reserveData(b.value, valueBytes)
	reserveData(b.topic.BinaryBuilder, topicBytes)
}

func reserveData(bb *array.BinaryBuilder, n int) {
	if need := bb.DataLen() + n; need > bb.DataCap() {
		bb.ReserveData(nextPow2(need) - bb.DataLen())
	}
}

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// len is the number of rows waiting to be flushed.
func (b *batchBuilder) len() int { return b.rows }

// newRecord builds a record batch from the rows appended so far and resets
// the builders. The caller releases the record.
func (b *batchBuilder) newRecord() arrow.RecordBatch {
	if b.rows > 0 {
		// Round up so that the next record rarely needs to grow.
		b.keyAvg = (b.key.DataLen() + b.rows - 1) / b.rows
		b.valueAvg = (b.value.DataLen() + b.rows - 1) / b.rows
	}
	b.expect -= b.rows
	cols := []arrow.Array{
		b.key.NewArray(),
		b.value.NewArray(),
		b.topic.NewArray(),
		b.partition.NewArray(),
		b.offset.NewArray(),
		b.timestamp.NewArray(),
		b.tsType.NewArray(),
	}
	rec := array.NewRecordBatch(Schema, cols, int64(b.rows))
	for _, c := range cols {
		c.Release()
	}
	b.rows, b.bytes = 0, 0
	return rec
}

// release frees the builders' buffers.
func (b *batchBuilder) release() {
	b.key.Release()
	b.value.Release()
	b.topic.Release()
	b.partition.Release()
	b.offset.Release()
	b.timestamp.Release()
	b.tsType.Release()
}
