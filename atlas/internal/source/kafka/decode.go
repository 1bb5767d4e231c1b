package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Layout of a record batch (magic 2): the fixed header, then the records.
const (
	batchLengthAt     = 8  // int32, the bytes after it
	batchMagicAt      = 16 // int8
	batchCRCFrom      = 21 // the CRC-32C covers the bytes from here to the end
	batchAttributesAt = 21 // int16
	batchLastDeltaAt  = 23 // int32, lastOffsetDelta
	batchNumRecordsAt = 57 // int32
	batchHeaderSize   = 61

	attrCodec       = 0b0000_0111
	attrLogAppend   = 0b0000_1000
	attrControl     = 0b0010_0000
	attrNotRecordTs = 0b1000_0000 // franz-go: timestamp type -1
)

// crc32c is the table of the CRC-32C (Castagnoli) record batches carry.
var crc32c = crc32.MakeTable(crc32.Castagnoli)

// fetchDecoder converts the raw record batches of fetch responses into
// Arrow chunks, without building kgo.Records. Not safe for concurrent use:
// each fetching goroutine owns one (with its own batchBuilder).
//
// It decodes the way franz-go's kgo.ProcessFetchPartition does (the tests
// compare the two on the same bytes), but copies each record's key and
// value straight from the fetched (or decompressed) bytes into the
// builder's buffers: a batch's records are parsed once into refs, a
// compact slice reused from batch to batch, then the builder is reserved
// for them and filled. Decompression writes into one buffer reused from
// batch to batch: a batch's bytes are copied into Arrow before the next
// batch is decompressed.
type fetchDecoder struct {
	b     *batchBuilder
	noCRC bool

	decompressor kgo.Decompressor
	buf          decompressBuf
	batch        kmsg.RecordBatch
	refs         []rawRecord
	// lastEpoch is the leader epoch of the batch that set the last
	// decodePartition's next (see epoch).
	lastEpoch int32
}

// rawRecord is one record of a batch being decoded: where its key and
// value are in the batch's (decompressed) record bytes, a length of -1
// meaning null.
type rawRecord struct {
	offset           int64
	micros           int64
	key, value       int32
	keyLen, valueLen int32
}

// decompressBuf is the decompressor's pool: it hands out the one buffer of
// the last batch decompressed, grown to the largest batch so far.
type decompressBuf struct{ b []byte }

var _ kgo.PoolDecompressBytes = (*decompressBuf)(nil)

// GetDecompressBytes returns the buffer; the decompressor writes from its
// start, growing it when it is too small.
func (p *decompressBuf) GetDecompressBytes([]byte, kgo.CompressionCodecType) []byte { return p.b }

// PutDecompressBytes takes back the buffer of a failed decompression.
func (p *decompressBuf) PutDecompressBytes(b []byte) { p.b = b[:0] }

// keep keeps out, a decompressed batch, as the buffer to decompress the
// next batch into when it is larger than the one kept.
func (p *decompressBuf) keep(out []byte) {
	if cap(out) > cap(p.b) {
		p.b = out[:0]
	}
}

// newFetchDecoder returns a decoder that builds chunks with b (its row and
// byte limits and pruned columns apply) and validates CRCs unless noCRC.
func newFetchDecoder(b *batchBuilder, noCRC bool) *fetchDecoder {
	d := &fetchDecoder{b: b, noCRC: noCRC}
	d.decompressor = kgo.DefaultDecompressor(&d.buf)
	return d
}

// decodePartition converts rp, one partition of a fetch response for
// topic, skipping records at offsets below from.
//
//   - chunks: as newChunks makes them: the data records (control records
//     are not rows) at offsets >= from, ascending, each chunk within the
//     builder's row and byte limits; the last chunk's end is next. When the
//     batches cover offsets >= from but hold no data record there (control
//     batches only, or batches emptied by compaction), one chunk{end: next}
//     without a record.
//   - first: the offset of the first record (data or control) at or after
//     from; -1 when there is none.
//   - next: the offset to fetch next: after the last complete batch,
//     baseOffset+lastOffsetDelta+1 (so that a batch whose records were all
//     compacted away is still passed); -1 when rp holds no complete batch
//     at or after from (a partial trailing batch is normal: brokers cut
//     responses at the byte limit; it is ignored).
//   - ok: false when rp holds something this decoder does not handle: a
//     message set of magic 0 or 1. Nothing is returned then; the caller
//     decodes rp with kgo.ProcessFetchPartition instead.
//   - err: a corrupt batch (CRC mismatch, bad length, varint overrun,
//     decompression failure), naming topic, partition and batch offset.
//     Nothing else is returned then, and the builder is left empty.
//
// rp's ErrorCode is not looked at: that is the caller's. The builder
// must hold no rows when it is called, and holds none when it returns.
func (d *fetchDecoder) decodePartition(topic string, rp *kmsg.FetchResponseTopicPartition, from int64) (chunks []*chunk, first, next int64, ok bool, err error) {
	first, next = -1, -1
	d.lastEpoch = -1
	expect, ok, err := d.scan(topic, rp, from)
	if !ok || err != nil {
		return nil, first, next, ok, err
	}
	b := d.b
	b.expect = expect
	defer func() {
		// An idle decoder holds no bytes of the fetch response.
		d.batch.Records = nil
		if err != nil {
			for _, c := range chunks {
				c.release()
			}
			chunks = nil
			first, next = -1, -1
			d.lastEpoch = -1
			if b.rows > 0 {
				b.newRecord().Release()
			}
		}
	}()
	for in := rp.RecordBatches; len(in) > 17; {
		base := int64(binary.BigEndian.Uint64(in))
		length := int32(binary.BigEndian.Uint32(in[batchLengthAt:])) + 12
		if length < 0 || len(in) < int(length) {
			break // a partial batch: the broker cut the response there
		}
		batch, rest := in[:length], in[length:]
		in = rest
		if err := d.batch.ReadFrom(batch); err != nil {
			return chunks, first, next, true, corrupt(topic, rp.Partition, base, fmt.Errorf("%d bytes do not hold a record batch: %w", length, err))
		}
		rb := &d.batch
		if !d.noCRC {
			if crc := crc32.Checksum(batch[batchCRCFrom:], crc32c); crc != uint32(rb.CRC) {
				return chunks, first, next, true, corrupt(topic, rp.Partition, base, fmt.Errorf("CRC mismatch: the batch says %08x, its bytes sum to %08x", uint32(rb.CRC), crc))
			}
		}
		last := rb.FirstOffset + int64(rb.LastOffsetDelta)
		if last < from {
			continue // franz-go skips such a batch too
		}
		raw := rb.Records
		if codec := rb.Attributes & attrCodec; codec != 0 {
			out, err := d.decompressor.Decompress(raw, kgo.CompressionCodecType(codec))
			if err != nil {
				return chunks, first, next, true, corrupt(topic, rp.Partition, base, fmt.Errorf("decompressing (codec %d): %w", codec, err))
			}
			d.buf.keep(out)
			raw = out
		}
		n := int(rb.NumRecords)
		if n < 0 {
			return chunks, first, next, true, corrupt(topic, rp.Partition, base, fmt.Errorf("negative record count %d", n))
		}
		if n > len(raw) {
			// Every record takes at least one byte.
			return chunks, first, next, true, corrupt(topic, rp.Partition, base, fmt.Errorf("%d records claimed in %d bytes", n, len(raw)))
		}
		refs, err := d.parse(raw, n, rb)
		if err != nil {
			return chunks, first, next, true, corrupt(topic, rp.Partition, base, err)
		}
		start := 0
		for start < len(refs) && refs[start].offset < from {
			start++
		}
		refs = refs[start:]
		if first < 0 && len(refs) > 0 {
			first = refs[0].offset
		}
		if last+1 > next {
			next, d.lastEpoch = last+1, rb.PartitionLeaderEpoch
		}
		if uint8(rb.Attributes)&attrControl != 0 || len(refs) == 0 {
			continue // control records are not rows
		}
		chunks = d.add(topic, rp.Partition, raw, refs, uint8(rb.Attributes), chunks)
	}
	if next < 0 {
		return nil, first, next, true, nil
	}
	if b.rows > 0 {
		chunks = append(chunks, b.flushChunk())
	}
	if len(chunks) == 0 {
		chunks = append(chunks, &chunk{end: next})
	} else {
		chunks[len(chunks)-1].end = next
	}
	return chunks, first, next, true, nil
}

// epoch returns the leader epoch of the batch that ends where the last
// decodePartition's next is, -1 when next was -1. It is what franz-go
// keeps as the partition's last consumed epoch, which a fetch sends as
// LastFetchedEpoch (and OffsetForLeaderEpoch asks about) to detect a log
// truncated under what was read.
func (d *fetchDecoder) epoch() int32 { return d.lastEpoch }

// scan walks the complete batches of rp without decoding them: it reports
// ok false when one is a message set of magic 0 or 1, an error for an
// unknown magic, and the number of records the data batches at or after
// from hold, to size the builder's buffers.
func (d *fetchDecoder) scan(topic string, rp *kmsg.FetchResponseTopicPartition, from int64) (expect int, ok bool, err error) {
	for in := rp.RecordBatches; len(in) > 17; {
		length := int32(binary.BigEndian.Uint32(in[batchLengthAt:])) + 12
		if length < 0 || len(in) < int(length) {
			break
		}
		switch magic := in[batchMagicAt]; magic {
		case 0, 1:
			return 0, false, nil
		case 2:
			if length >= batchHeaderSize && in[batchAttributesAt+1]&attrControl == 0 &&
				int64(binary.BigEndian.Uint64(in))+int64(int32(binary.BigEndian.Uint32(in[batchLastDeltaAt:]))) >= from {
				expect += int(max(0, int32(binary.BigEndian.Uint32(in[batchNumRecordsAt:]))))
			}
		default:
			return 0, true, corrupt(topic, rp.Partition, int64(binary.BigEndian.Uint64(in)), fmt.Errorf("unknown magic %d", magic))
		}
		in = in[length:]
	}
	return expect, true, nil
}

// corrupt names the batch at offset base of a topic's partition in err.
func corrupt(topic string, partition int32, base int64, err error) error {
	return fmt.Errorf("corrupt record batch at offset %d of %s-%d: %w", base, topic, partition, err)
}

// errRecordOverrun is a record field running past its record's end.
var errRecordOverrun = errors.New("a field runs past the end of its record")

// parse reads the n records of raw, the record bytes of rb, into d.refs,
// the way franz-go's readRawRecordsDirect does, but checks them rather
// than stopping short: a record that does not decode, or whose offset
// does not follow the previous record's within the batch, is an error.
// Headers are read past: the source's schema has none.
func (d *fetchDecoder) parse(raw []byte, n int, rb *kmsg.RecordBatch) ([]rawRecord, error) {
	if cap(d.refs) < n {
		d.refs = make([]rawRecord, n, max(n, 2*cap(d.refs)))
	}
	refs := d.refs[:n]
	attrs := uint8(rb.Attributes)
	// franz-go: Timestamp is FirstTimestamp plus the record's delta for
	// CreateTime, MaxTimestamp for every record of a LogAppendTime batch.
	logAppend := attrs&(attrLogAppend|attrNotRecordTs) != 0
	appendMicros := millisToMicros(rb.MaxTimestamp)
	prevDelta := int64(-1)
	pos := 0
	// The fields of a record, read as franz-go's readRawRecordsDirect
	// does. Every field is a varint, mostly of one byte: varint1 reads
	// those inline. This loop is the decoder's hottest: the record's
	// fields are read here rather than in a function Go would not inline.
	for i := range refs {
		length, p, ok := varint(raw, pos)
		if !ok || length < 0 || length > int64(len(raw)-p) {
			return nil, fmt.Errorf("record %d of %d: bad length at byte %d of %d", i, n, pos, len(raw))
		}
		end := p + int(length)
		rec := raw[:end]
		p++ // the record's attributes, unused
		var tsDelta, offDelta, v int64
		if tsDelta, ok = varint1(rec, p); ok {
			p++
		} else if tsDelta, p, ok = varint(rec, p); !ok {
			return nil, overrun(i, n, pos)
		}
		if offDelta, ok = varint1(rec, p); ok {
			p++
		} else if offDelta, p, ok = varint(rec, p); !ok {
			return nil, overrun(i, n, pos)
		}
		if v, ok = varint1(rec, p); ok {
			p++
		} else if v, p, ok = varint(rec, p); !ok {
			return nil, overrun(i, n, pos)
		}
		key, keyLen := p, int32(-1) // null for any negative length, as in franz-go
		if v >= 0 {
			if v > int64(end-p) {
				return nil, overrun(i, n, pos)
			}
			keyLen = int32(v)
			p += int(v)
		}
		if v, ok = varint1(rec, p); ok {
			p++
		} else if v, p, ok = varint(rec, p); !ok {
			return nil, overrun(i, n, pos)
		}
		value, valueLen := p, int32(-1)
		if v >= 0 {
			if v > int64(end-p) {
				return nil, overrun(i, n, pos)
			}
			valueLen = int32(v)
			p += int(v)
		}
		// Headers are read past: the source's schema has none.
		if v, ok = varint1(rec, p); ok {
			p++
		} else if v, p, ok = varint(rec, p); !ok {
			return nil, overrun(i, n, pos)
		}
		if v > 0 {
			if v > int64(end-p) {
				return nil, overrun(i, n, pos)
			}
			if p, ok = skipHeaders(rec, p, v); !ok {
				return nil, overrun(i, n, pos)
			}
		}
		if offDelta <= prevDelta || offDelta > int64(rb.LastOffsetDelta) {
			return nil, fmt.Errorf("record %d of %d: offset delta %d after %d, last offset delta %d", i, n, offDelta, prevDelta, rb.LastOffsetDelta)
		}
		prevDelta = offDelta
		r := &refs[i]
		r.offset = rb.FirstOffset + offDelta
		if logAppend {
			r.micros = appendMicros
		} else {
			r.micros = millisToMicros(rb.FirstTimestamp + tsDelta)
		}
		r.key, r.keyLen = int32(key), keyLen
		r.value, r.valueLen = int32(value), valueLen
		pos = end
	}
	return refs, nil
}

// overrun is the error of record i of n, at byte pos, having a field
// past its end.
func overrun(i, n, pos int) error {
	return fmt.Errorf("record %d of %d at byte %d: %w", i, n, pos, errRecordOverrun)
}

// skipHeaders reads past the n headers of a record at rec[p:], returning
// the index after them; ok is false when one runs past the record's end.
func skipHeaders(rec []byte, p int, n int64) (next int, ok bool) {
	for range 2 * n { // each a key and a value
		var l int64
		if l, p, ok = varint(rec, p); !ok {
			return p, false
		}
		if l > 0 {
			if l > int64(len(rec)-p) {
				return p, false
			}
			p += int(l)
		}
	}
	return p, true
}

// varint1 reads a zigzag varint of one byte at in[i]; ok is false when
// in[i] is not one.
func varint1(in []byte, i int) (v int64, ok bool) {
	if uint(i) < uint(len(in)) && in[i] < 0x80 {
		x := in[i]
		return int64(x>>1) ^ -int64(x&1), true
	}
	return 0, false
}

// varint reads a zigzag varint at in[i:], returning it and the index after
// it; ok is false when in ends first or the varint is longer than ten
// bytes.
func varint(in []byte, i int) (v int64, next int, ok bool) {
	var x uint64
	for s := uint(0); s < 70 && i < len(in); s += 7 {
		b := in[i]
		i++
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			return int64(x>>1) ^ -int64(x&1), i, true
		}
	}
	return 0, i, false
}

// millisToMicros converts Kafka's milliseconds as franz-go's
// time.Unix(0, ms*1e6).UnixMicro() does, overflow included.
func millisToMicros(ms int64) int64 {
	const safe = math.MaxInt64 / 1_000_000
	if -safe <= ms && ms <= safe {
		return ms * 1000
	}
	ns := ms * 1e6 // wraps, as in franz-go
	us := ns / 1000
	if ns%1000 < 0 {
		us--
	}
	return us
}

// add copies the data records refs of a batch (attributes attrs) into the
// builder, flushing a chunk onto chunks each time it is full, as
// batchBuilder.add does: up to maxRows rows, and up to maxBytes of keys
// and values unless a single record is larger.
func (d *fetchDecoder) add(topic string, partition int32, raw []byte, refs []rawRecord, attrs uint8, chunks []*chunk) []*chunk {
	b := d.b
	tsType := int32((attrs & attrLogAppend) >> 3)
	if attrs&attrNotRecordTs != 0 {
		tsType = -1
	}
	skipKey, skipValue, skipTime := b.skip[colKey], b.skip[colValue], b.skip[colTimestamp]
	skipTsType := b.skip[colTimestampType]
	for len(refs) > 0 {
		// The records that fit.
		var rows, keyBytes, valueBytes int
		cut := false
		for _, r := range refs[:min(len(refs), b.maxRows-b.rows)] {
			kl, vl := max(int(r.keyLen), 0), max(int(r.valueLen), 0)
			if b.bytes+keyBytes+valueBytes+kl+vl > b.maxBytes && (b.rows > 0 || rows > 0) {
				cut = true
				break
			}
			keyBytes += kl
			valueBytes += vl
			rows++
		}
		if b.rows == 0 {
			b.topic, b.partition = topic, partition
			if b.valueAvg == 0 && rows > 0 {
				b.keyAvg = (keyBytes + rows - 1) / rows
				b.valueAvg = (valueBytes + rows - 1) / rows
			}
			b.presize()
		}
		b.reserve(rows, keyBytes, valueBytes)
		// Column by column, each in a tight loop that keeps the slices
		// it appends to in registers.
		seg := refs[:rows]
		if !skipKey {
			b.key.appendFields(raw, seg, false)
		}
		if !skipValue {
			b.value.appendFields(raw, seg, true)
		}
		offs := b.offset
		for i := range seg {
			offs = append(offs, seg[i].offset)
		}
		b.offset = offs
		if !skipTime {
			ts := b.timestamp
			for i := range seg {
				ts = append(ts, seg[i].micros)
			}
			b.timestamp = ts
		}
		if !skipTsType {
			types := b.tsType
			for range seg {
				types = append(types, tsType)
			}
			b.tsType = types
		}
		b.rows += rows
		b.bytes += keyBytes + valueBytes
		refs = refs[rows:]
		if b.rows >= b.maxRows || (cut && b.rows > 0) {
			chunks = append(chunks, b.flushChunk())
		}
	}
	return chunks
}

// appendFields appends the keys (or with value the values) of refs, in
// raw. Room for them was reserved.
func (c *binaryColumn) appendFields(raw []byte, refs []rawRecord, value bool) {
	data, offsets := c.data, c.offsets
	for i := range refs {
		at, n := refs[i].key, refs[i].keyLen
		if value {
			at, n = refs[i].value, refs[i].valueLen
		}
		l := len(data)
		if n < 0 || c.valid != nil || cap(data)-l < int(n) || cap(offsets) == len(offsets) {
			// A null, or a column with nulls: the general path.
			c.data, c.offsets = data, offsets
			c.append(field(raw, at, n))
			data, offsets = c.data, c.offsets
			continue
		}
		data = data[:l+int(n)]
		copy(data[l:], raw[at:at+n])
		offsets = append(offsets, int32(len(data)))
	}
	c.data, c.offsets = data, offsets
}

// field is a record's key or value in raw: nil when null (length -1), a
// non-nil slice otherwise, empty ones too, as franz-go gives them.
func field(raw []byte, at, length int32) []byte {
	if length < 0 {
		return nil
	}
	return raw[at : at+length : at+length]
}
