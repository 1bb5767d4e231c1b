package kafka

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"
)

// chunk is a run of one partition's fetched records, already in Arrow:
// the reader converts records as they arrive and recycles them at once,
// rather than holding franz-go's records until a batch needs them. Held
// records kept their decode memory alive and were most of what the
// garbage collector scanned on a stream read ahead of its batches (bench
// windows heap profile: 58 of 150 MB live, all pointers); a chunk is plain
// bytes.
type chunk struct {
	// rec holds the data records (control records are not rows), in
	// ascending offsets; offs is its offset column.
	rec  arrow.RecordBatch
	offs []int64
	// head is the first row not handed out or trimmed yet.
	head int
	// end is the offset after the last record the chunk covers, control
	// records included: once the chunk is handed out, everything before
	// end was.
	end int64
	// bytes is the size of rec's buffers.
	bytes int
}

// rows is the number of rows not handed out yet.
func (c *chunk) rows() int { return len(c.offs) - c.head }

// before is the row (>= head) of the first record at or after off.
func (c *chunk) before(off int64) int { return c.head + countBefore(c.offs[c.head:], off) }

func (c *chunk) release() {
	if c.rec != nil {
		c.rec.Release()
		c.rec = nil
	}
}

// newChunks converts records of one partition (ascending offsets, after
// any stale ones were dropped) into chunks of at most b's row and byte
// limits, and recycles them: each as soon as it is copied, so that its
// decode memory can serve the next fetch, and while it is in the CPU's
// cache (a pass over a fetch's records after converting them all missed
// the cache on every record: bench windows, 10M events, Record.Recycle
// was 7% of the query's CPU).
func newChunks(b *batchBuilder, recs []*kgo.Record) ([]*chunk, error) {
	var out []*chunk
	flush := func() error {
		out = append(out, b.flushChunk())
		return nil
	}
	b.expect = len(recs)
	// The last record's offset, read before it is recycled.
	last := recs[len(recs)-1].Offset + 1
	b.recycle = true
	_, err := b.add(recs, flush)
	b.recycle = false
	if err != nil {
		return nil, err
	}
	if b.len() > 0 {
		out = append(out, b.flushChunk())
	}
	// Control records after the last data record still count as read.
	if len(out) == 0 {
		out = append(out, &chunk{end: last})
	} else {
		out[len(out)-1].end = last
	}
	return out, nil
}

// flushChunk makes a chunk of the rows appended to b so far (at least
// one), ending after its last row, and starts b over.
func (b *batchBuilder) flushChunk() *chunk {
	rec := b.newRecord()
	offs := rec.Column(colOffset).(*array.Int64).Int64Values()
	size := 0
	for i, col := range rec.Columns() {
		if b.skip[i] {
			continue // a slice of the builder's shared nulls
		}
		for _, buf := range col.Data().Buffers() {
			if buf != nil {
				size += buf.Len()
			}
		}
	}
	return &chunk{rec: rec, offs: offs, end: offs[len(offs)-1] + 1, bytes: size}
}

// countBefore returns how many of offs (ascending) are before end.
func countBefore(offs []int64, end int64) int {
	if len(offs) == 0 || offs[len(offs)-1] < end {
		return len(offs)
	}
	lo, hi := 0, len(offs)
	for lo < hi {
		m := (lo + hi) / 2
		if offs[m] < end {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
