package kafka

import (
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordPool lets franz-go decode fetched batches into reused memory: the
// []kgo.Record slices records are decoded into and the buffers compressed
// batches are decompressed into. A batch's slices come back once every one
// of its records was recycled (kgo.Record.Recycle), which the reader does
// as soon as a record is copied into Arrow. Without it each fetch allocates
// both afresh, and on a stream of millions of small records the garbage
// collector spends its time scanning and freeing them.
type recordPool struct {
	recs  sync.Pool // *[]kgo.Record
	bytes sync.Pool // *[]byte
	// taken counts the record slices handed to franz-go, returned those
	// that came back for reuse.
	taken, returned atomic.Int64
}

var (
	_ kgo.PoolRecords         = (*recordPool)(nil)
	_ kgo.PoolDecompressBytes = (*recordPool)(nil)
)

// GetRecords returns a slice of capacity at least n.
func (p *recordPool) GetRecords(n int) []kgo.Record {
	p.taken.Add(1)
	if s, ok := p.recs.Get().(*[]kgo.Record); ok && cap(*s) >= n {
		return (*s)[:0]
	}
	return make([]kgo.Record, 0, n)
}

// PutRecords keeps s (its records already zeroed by Recycle) for reuse.
func (p *recordPool) PutRecords(s []kgo.Record) {
	p.returned.Add(1)
	p.recs.Put(&s)
}

// GetDecompressBytes returns a buffer to decompress into, sized at four
// times the compressed bytes when the pool has none large enough (franz-go
// grows it when that is not enough, and puts the grown one back).
func (p *recordPool) GetDecompressBytes(compressed []byte, _ kgo.CompressionCodecType) []byte {
	if b, ok := p.bytes.Get().(*[]byte); ok && cap(*b) >= len(compressed) {
		return (*b)[:0]
	}
	return make([]byte, 0, 4*len(compressed))
}

// PutDecompressBytes keeps b (zeroed by franz-go) for reuse.
func (p *recordPool) PutDecompressBytes(b []byte) { p.bytes.Put(&b) }

// recycle hands records already copied out back to their pools. A record
// must not be used afterwards.
func recycle(recs []*kgo.Record) {
	for _, r := range recs {
		r.Recycle()
	}
}
