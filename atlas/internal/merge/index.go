package merge

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// keyIndex maps the merge keys of one data file to their row positions:
// the keys encoded by appendKey, concatenated, and an open-addressing hash
// table of positions. Rows with a null key are not indexed (they never
// match). Data files are immutable, so an index stays valid for the file's
// life; about 20 bytes per row plus the key bytes.
type keyIndex struct {
	keys []byte
	offs []int32 // row i's key is keys[offs[i]:offs[i+1]]
	// slots hold the upper 32 bits of a key's hash and its position+1 (0
	// when free): a probe compares key bytes only on a matching hash.
	slots    []uint64
	mask     uint64
	seed     maphash.Seed
	min, max []byte // the smallest and largest key, nil when none
}

// buildKeyIndex indexes the key columns cols (one record, file order).
func buildKeyIndex(cols []arrow.Array, n int) *keyIndex {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	ix := &keyIndex{offs: make([]int32, n+1), slots: make([]uint64, size), mask: uint64(size - 1), seed: maphash.MakeSeed()}
	var buf []byte
	lo, hi := -1, -1
	for i := 0; i < n; i++ {
		var ok bool
		buf, ok = appendKey(buf[:0], cols, i)
		if ok {
			ix.keys = append(ix.keys, buf...)
			h := maphash.Bytes(ix.seed, buf)
			at := h & ix.mask
			for ix.slots[at] != 0 {
				at = (at + 1) & ix.mask
			}
			ix.slots[at] = h&^0xffffffff | uint64(i+1)
			if lo < 0 || bytes.Compare(buf, ix.key(int32(lo))) < 0 {
				lo = i
			}
			if hi < 0 || bytes.Compare(buf, ix.key(int32(hi))) > 0 {
				hi = i
			}
		}
		ix.offs[i+1] = int32(len(ix.keys))
	}
	if lo >= 0 {
		ix.min, ix.max = ix.key(int32(lo)), ix.key(int32(hi))
	}
	return ix
}

// key returns the encoded key of row p (indexed rows only: the key bytes
// of later rows are not appended yet while building).
func (ix *keyIndex) key(p int32) []byte { return ix.keys[ix.offs[p]:ix.offs[p+1]] }

// lookup calls fn with every position whose key is key.
func (ix *keyIndex) lookup(key []byte, fn func(pos int32)) {
	if ix.min == nil || bytes.Compare(key, ix.min) < 0 || bytes.Compare(key, ix.max) > 0 {
		return
	}
	h := maphash.Bytes(ix.seed, key)
	tag := h &^ 0xffffffff
	for at := h & ix.mask; ; at = (at + 1) & ix.mask {
		slot := ix.slots[at]
		if slot == 0 {
			return
		}
		if slot&^0xffffffff != tag {
			continue
		}
		p := int32(slot&0xffffffff) - 1
		if bytes.Equal(ix.key(p), key) {
			fn(p)
		}
	}
}

func (ix *keyIndex) rows() int64 { return int64(len(ix.offs) - 1) }

// DefaultKeyIndexRows is how many rows of data files the key indexes
// of a session's merge-on-read MERGEs cover at most (about 40 MB per
// million rows with short string keys); beyond it the least recently used
// indexes are dropped and rebuilt when needed.
const DefaultKeyIndexRows = 4 << 20

// KeyIndexCache keeps the key indexes of the data files a session's
// merge-on-read MERGEs probed, so that a stream of merges reads each data
// file's key columns once, not once per merge.
type KeyIndexCache struct {
	mu      sync.Mutex
	entries map[string]*keyIndexEntry
	rows    int64
	clock   uint64
	limit   int64
}

type keyIndexEntry struct {
	ix   *keyIndex
	used uint64
	// ready is closed once ix is built (or err set): concurrent merges
	// wait for one build.
	ready chan struct{}
	err   error
}

// NewKeyIndexCache returns an empty cache of key indexes covering at most
// limit rows of data files. It is safe for concurrent use.
func NewKeyIndexCache(limit int64) *KeyIndexCache {
	return &KeyIndexCache{entries: map[string]*keyIndexEntry{}, limit: limit}
}

// get returns the key index of data file f for the merge keys of mp,
// building it (reading only the key columns) when it is not cached.
func (kc *KeyIndexCache) get(ctx context.Context, c *expr.Ctx, tbl *lakehouse.Table, mp *sql.MergePlan, f lakehouse.DataFile) (*keyIndex, error) {
	names := make([]string, len(mp.Keys))
	for k, key := range mp.Keys {
		names[k] = mp.Target.Field(key.Target).Name
	}
	id := tbl.Name() + "\x00" + f.Path + "\x00" + strings.Join(names, "\x00")
	kc.mu.Lock()
	kc.clock++
	e, ok := kc.entries[id]
	if ok {
		e.used = kc.clock
		kc.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil {
			return e.ix, nil
		}
		kc.mu.Lock()
		if kc.entries[id] == e {
			delete(kc.entries, id)
		}
		kc.mu.Unlock()
		return buildFileKeyIndex(ctx, c, tbl, mp, f, names)
	}
	e = &keyIndexEntry{used: kc.clock, ready: make(chan struct{})}
	kc.entries[id] = e
	kc.mu.Unlock()
	e.ix, e.err = buildFileKeyIndex(ctx, c, tbl, mp, f, names)
	close(e.ready)
	kc.mu.Lock()
	defer kc.mu.Unlock()
	if e.err != nil {
		if kc.entries[id] == e {
			delete(kc.entries, id)
		}
		return nil, e.err
	}
	kc.rows += e.ix.rows()
	kc.evictLocked(id)
	return e.ix, nil
}

// evictLocked drops the least recently used built indexes (never keep)
// until the cached rows fit the limit.
func (kc *KeyIndexCache) evictLocked(keep string) {
	for kc.rows > kc.limit {
		victim, oldest := "", uint64(0)
		for id, e := range kc.entries {
			if id == keep || e.ix == nil {
				continue
			}
			if victim == "" || e.used < oldest {
				victim, oldest = id, e.used
			}
		}
		if victim == "" {
			return
		}
		kc.rows -= kc.entries[victim].ix.rows()
		delete(kc.entries, victim)
	}
}

// seed indexes the data file path from rec, the rows it was written from
// in file order (see lakehouse.Table.KeepsRowOrder).
func (kc *KeyIndexCache) seed(tbl *lakehouse.Table, mp *sql.MergePlan, path string, rec arrow.RecordBatch) {
	names := make([]string, len(mp.Keys))
	cols := make([]arrow.Array, len(mp.Keys))
	for k, key := range mp.Keys {
		names[k] = mp.Target.Field(key.Target).Name
		cols[k] = rec.Column(key.Target)
	}
	ix := buildKeyIndex(cols, int(rec.NumRows()))
	id := tbl.Name() + "\x00" + path + "\x00" + strings.Join(names, "\x00")
	kc.mu.Lock()
	defer kc.mu.Unlock()
	if _, ok := kc.entries[id]; ok {
		return
	}
	kc.clock++
	e := &keyIndexEntry{ix: ix, used: kc.clock, ready: make(chan struct{})}
	close(e.ready)
	kc.entries[id] = e
	kc.rows += ix.rows()
	kc.evictLocked(id)
}

// buildFileKeyIndex reads the key columns of f (all rows, deletes not
// applied: positions are file positions) and indexes them.
func buildFileKeyIndex(ctx context.Context, c *expr.Ctx, tbl *lakehouse.Table, mp *sql.MergePlan, f lakehouse.DataFile, names []string) (*keyIndex, error) {
	recs, err := tbl.ReadFileRaw(ctx, f, uniqueNames(names))
	if err != nil {
		return nil, err
	}
	defer releaseAll(recs)
	cols := make([]arrow.Array, len(names))
	for k, name := range names {
		parts := make([]arrow.Array, 0, len(recs))
		for _, r := range recs {
			i := expr.FieldIndex(r.Schema(), name)
			if i < 0 {
				return nil, fmt.Errorf("merge into %s: data file %s has no key column %s", mp.Spec.Target, f.Path, name)
			}
			parts = append(parts, r.Column(i))
		}
		if len(parts) == 0 {
			return buildKeyIndex(nil, 0), nil
		}
		col, err := array.Concatenate(parts, c.Mem)
		if err != nil {
			return nil, fmt.Errorf("merge into %s: key column %s of %s: %w", mp.Spec.Target, name, f.Path, err)
		}
		defer col.Release()
		cols[k] = col
	}
	return buildKeyIndex(cols, int(f.RecordCount)), nil
}

func uniqueNames(names []string) []string {
	var out []string
	for _, n := range names {
		dup := false
		for _, o := range out {
			dup = dup || strings.EqualFold(o, n)
		}
		if !dup {
			out = append(out, n)
		}
	}
	return out
}
