package kafka

import (
	"bytes"
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Bounds of what a recordPool keeps for reuse: about one fetch's worth
// (three partitions of 1 MiB compressed batches), which is what comes back
// between two fetches when records are recycled as soon as they are used.
// (Measured when the source still read through franz-go: a pool of two
// fetches' worth kept the query's peak RSS growing over a long stream,
// through the garbage collector's pacing: bench windows, 20M events,
// --compare-at 5000000, 128k records +5.5% and +5.6% over the 5M peak;
// 256k +14.7% to +21.1%.)
const (
	poolMaxRecords = 128 << 10
	poolMaxBytes   = 32 << 20
)

// recordPool lets franz-go's consumer decode fetched batches into reused
// memory: the []kgo.Record slices records are decoded into and the buffers
// compressed batches are decompressed into. A batch's slices come back once
// every one of its records was recycled (kgo.Record.Recycle). Only
// ConsumeRate, the raw consume rate bench windows compares with, consumes
// through franz-go now (the source has its own fetcher and decoder, and
// decodes into its own reused buffers); the pool keeps that baseline as
// fast as franz-go can be. Without it each fetch allocates both afresh,
// and on a stream of millions of small records the garbage collector
// spends its time scanning and freeing them.
//
// The pool hands out the smallest kept slice that is large enough. A
// sync.Pool did not do: it returns whichever slice it has, which for
// batches of varying sizes was often too small and was then dropped, and
// it empties at every garbage collection (bench windows: 87 MB of record
// slices and 63 MB of decompression buffers allocated per million records).
type recordPool struct {
	recs  freeList[kgo.Record]
	bytes freeList[byte]
	// taken counts the record slices handed to franz-go, returned those
	// that came back for reuse.
	taken, returned atomic.Int64
	// decoded counts the records franz-go decoded (the capacity asked of
	// GetRecords): more than were read when fetched records were dropped
	// and fetched again.
	decoded atomic.Int64
}

var (
	_ kgo.PoolRecords         = (*recordPool)(nil)
	_ kgo.PoolDecompressBytes = (*recordPool)(nil)
)

// GetRecords returns a slice of capacity at least n.
func (p *recordPool) GetRecords(n int) []kgo.Record {
	p.taken.Add(1)
	p.decoded.Add(int64(n))
	if s, ok := p.recs.get(n); ok {
		return s
	}
	return make([]kgo.Record, 0, n)
}

// PutRecords keeps s (its records already zeroed by Recycle) for reuse.
func (p *recordPool) PutRecords(s []kgo.Record) {
	p.returned.Add(1)
	p.recs.put(s, poolMaxRecords)
}

// GetDecompressBytes returns a buffer to decompress into: for a snappy
// block, as large as its header says the decompressed batch is;
// otherwise at least four times the compressed bytes (franz-go grows it
// when that is not enough, and puts the grown one back).
func (p *recordPool) GetDecompressBytes(compressed []byte, codec kgo.CompressionCodecType) []byte {
	n := 4 * len(compressed)
	if codec == kgo.CodecSnappy && !bytes.HasPrefix(compressed, xerialPrefix) {
		// A snappy block starts with its decompressed length as a
		// uvarint; franz-go checks it against its limit before decoding.
		if l, k := binary.Uvarint(compressed); k > 0 && l <= poolMaxBytes {
			n = int(l)
		}
	}
	if b, ok := p.bytes.get(n); ok {
		return b
	}
	return make([]byte, 0, n)
}

// PutDecompressBytes keeps b (zeroed by franz-go) for reuse.
func (p *recordPool) PutDecompressBytes(b []byte) { p.bytes.put(b, poolMaxBytes) }

// xerialPrefix starts snappy data in the xerial framing (a stream of
// blocks), which franz-go decodes by appending.
var xerialPrefix = []byte{130, 83, 78, 65, 80, 80, 89, 0}

// freeList keeps slices for reuse, at most a bound of elements in all.
type freeList[T any] struct {
	mu    sync.Mutex
	items [][]T
	held  int // elements (capacity) held
}

// get removes and returns the smallest kept slice of capacity at least n,
// emptied.
func (f *freeList[T]) get(n int) ([]T, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	best := -1
	for i, s := range f.items {
		if cap(s) >= n && (best < 0 || cap(s) < cap(f.items[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	s := f.items[best]
	f.remove(best)
	return s[:0], true
}

// put keeps s, dropping the smallest slices while more than limit
// elements are kept.
func (f *freeList[T]) put(s []T, limit int) {
	if cap(s) == 0 || cap(s) > limit {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = append(f.items, s)
	f.held += cap(s)
	for f.held > limit {
		small := 0
		for i, s := range f.items {
			if cap(s) < cap(f.items[small]) {
				small = i
			}
		}
		f.remove(small)
	}
}

func (f *freeList[T]) remove(i int) {
	f.held -= cap(f.items[i])
	last := len(f.items) - 1
	f.items[i] = f.items[last]
	f.items[last] = nil
	f.items = f.items[:last]
}

// recycle hands records already copied out back to their pools. A record
// must not be used afterwards.
func recycle(recs []*kgo.Record) {
	for _, r := range recs {
		r.Recycle()
	}
}
