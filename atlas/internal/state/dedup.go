package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// DedupMode says when a deduplication key leaves the state.
type DedupMode int

const (
	// DedupForever keeps every key for good: Spark's dropDuplicates on a
	// stream without a watermarked column among its keys.
	DedupForever DedupMode = iota
	// DedupKeyTime evicts a key once the watermark reaches its event
	// time: dropDuplicates with the watermarked column among the keys
	// (StreamingDeduplicateExec's watermarkPredicateForKeys).
	DedupKeyTime
	// DedupWithinWatermark evicts a key once the watermark reaches the
	// first occurrence's event time plus the watermark delay:
	// dropDuplicatesWithinWatermark
	// (StreamingDeduplicateWithinWatermarkExec's expiresAtMicros).
	DedupWithinWatermark
)

// DedupConfig describes a deduplication.
type DedupConfig struct {
	// Keys are the indices of the key columns in the input.
	Keys []int
	// EventTime is the index of the watermarked column, or -1.
	EventTime int
	// Mode says when keys are evicted.
	Mode DedupMode
	// DelayMicros is the watermark delay (DedupWithinWatermark).
	DelayMicros int64
	// Shape names the keys, to refuse a checkpoint of another query.
	Shape string
	// SnapshotEvery is how often (in versions) Save writes every key;
	// the versions between hold only the keys added and removed since the
	// previous version. 0 or 1 writes every key each time.
	SnapshotEvery int64
}

// Deduper is the state of a streaming deduplication: the keys seen, each
// with the watermark (µs) at which it is evicted.
type Deduper struct {
	cfg     DedupConfig
	seen    map[string]int64
	keyMem  int64
	buf     []byte
	encs    []keyEncoder
	updated int64
	// added and removed are the changes since the last Save or Load.
	added   map[string]int64
	removed map[string]struct{}
}

// NewDeduper prepares an empty state.
func NewDeduper(cfg DedupConfig) *Deduper {
	return &Deduper{cfg: cfg, seen: map[string]int64{}, added: map[string]int64{}, removed: map[string]struct{}{}}
}

// DedupStats reports one Filter call.
type DedupStats struct {
	// Duplicates are rows dropped because their key was seen
	// (numDroppedDuplicateRows).
	Duplicates int64
	// Late are rows dropped because their event time is at or before the
	// watermark for late events (numRowsDroppedByWatermark).
	Late int64
}

// Filter returns the indices of rec's rows to keep: rows whose key is new,
// which it records. With lateWatermark set (streaming with a watermark),
// rows whose event time is at or before *lateWatermark (µs) are dropped
// first, as Spark's watermarkPredicateForDataForLateEvents does.
func (d *Deduper) Filter(rec arrow.RecordBatch, lateWatermark *int64) ([]int32, DedupStats, error) {
	var st DedupStats
	d.encs = d.encs[:0]
	for _, k := range d.cfg.Keys {
		enc, err := newKeyEncoder(rec.Column(k))
		if err != nil {
			return nil, st, fmt.Errorf("dropDuplicates: column %s: %w", rec.Schema().Field(k).Name, err)
		}
		d.encs = append(d.encs, enc)
	}
	var times *array.Timestamp
	if d.cfg.EventTime >= 0 {
		t, ok := rec.Column(d.cfg.EventTime).(*array.Timestamp)
		if !ok {
			return nil, st, fmt.Errorf("dropDuplicates: the event-time column %s is not a timestamp", rec.Schema().Field(d.cfg.EventTime).Name)
		}
		times = t
	}
	n := int(rec.NumRows())
	keep := make([]int32, 0, n)
	for i := range n {
		var ts int64 // Spark reads a null event time as 0
		if times != nil && times.IsValid(i) {
			ts = int64(times.Value(i))
		}
		if lateWatermark != nil && times != nil && times.IsValid(i) && ts <= *lateWatermark {
			st.Late++
			continue
		}
		d.buf = d.buf[:0]
		for _, enc := range d.encs {
			d.buf = enc(d.buf, i)
		}
		if _, dup := d.seen[string(d.buf)]; dup {
			st.Duplicates++
			continue
		}
		evict := int64(NoEviction)
		switch d.cfg.Mode {
		case DedupKeyTime:
			if times != nil && times.IsValid(i) {
				evict = ts
			}
		case DedupWithinWatermark:
			evict = ts + d.cfg.DelayMicros
		}
		k := string(d.buf)
		d.seen[k] = evict
		d.added[k] = evict
		d.keyMem += int64(len(k))
		d.updated++
		keep = append(keep, int32(i))
	}
	return keep, st, nil
}

// Evict removes the keys whose eviction time is at or before watermark
// (µs) and returns how many it removed.
func (d *Deduper) Evict(watermark int64) int64 {
	if d.cfg.Mode == DedupForever {
		return 0
	}
	var n int64
	for k, at := range d.seen {
		if at != NoEviction && at <= watermark {
			delete(d.seen, k)
			if _, fresh := d.added[k]; fresh {
				delete(d.added, k)
			} else {
				d.removed[k] = struct{}{}
			}
			d.keyMem -= int64(len(k))
			n++
		}
	}
	return n
}

// Evicts reports whether the watermark ever removes keys.
func (d *Deduper) Evicts() bool { return d.cfg.Mode != DedupForever }

// NumKeys is the number of keys held.
func (d *Deduper) NumKeys() int64 { return int64(len(d.seen)) }

// TakeUpdated returns the number of keys added since the last call.
func (d *Deduper) TakeUpdated() int64 {
	n := d.updated
	d.updated = 0
	return n
}

// MemoryBytes estimates the memory the state holds.
func (d *Deduper) MemoryBytes() int64 { return d.keyMem + 48*int64(len(d.seen)) }

// dedupSnapshot is one saved version: every key (Delta false), or the
// keys added (Keys, EvictAt) and removed since the previous version.
type dedupSnapshot struct {
	Shape   string
	Delta   bool
	Keys    []string
	EvictAt []int64
	Removed []string
}

// Save serialises version: every key when version is a multiple of
// SnapshotEvery, otherwise the changes since the previous version, which
// the caller must have saved (or loaded) last.
func (d *Deduper) Save(version int64) ([]byte, error) {
	s := dedupSnapshot{Shape: d.cfg.Shape}
	from := d.seen
	if every := d.cfg.SnapshotEvery; every > 1 && version%every != 0 {
		s.Delta, from = true, d.added
		for k := range d.removed {
			s.Removed = append(s.Removed, k)
		}
	}
	s.Keys, s.EvictAt = make([]string, 0, len(from)), make([]int64, 0, len(from))
	for k, at := range from {
		s.Keys = append(s.Keys, k)
		s.EvictAt = append(s.EvictAt, at)
	}
	data, err := encodeGob(&s)
	if err != nil {
		return nil, fmt.Errorf("state: encode deduplication keys: %w", err)
	}
	clear(d.added)
	clear(d.removed)
	return data, nil
}

// Load restores version: read returns a saved version's bytes; the
// versions back to the last full one are read and applied in order. A nil
// read, or a negative version, restores the empty state.
func (d *Deduper) Load(version int64, read func(v int64) ([]byte, error)) error {
	var chain []dedupSnapshot
	for v := version; v >= 0 && read != nil; v-- {
		data, err := read(v)
		if err != nil {
			return err
		}
		var s dedupSnapshot
		if err := decodeGob(data, &s); err != nil {
			return fmt.Errorf("state: decode deduplication keys of version %d: %w", v, err)
		}
		if s.Shape != d.cfg.Shape {
			return fmt.Errorf("state: the checkpoint holds the keys of another deduplication (%s, this query: %s); the query changed since it was checkpointed: use a new checkpointLocation", s.Shape, d.cfg.Shape)
		}
		if len(s.EvictAt) != len(s.Keys) {
			return fmt.Errorf("state: corrupt deduplication keys in version %d", v)
		}
		chain = append(chain, s)
		if !s.Delta {
			break
		}
		if v == 0 {
			return fmt.Errorf("state: deduplication version 0 holds changes only")
		}
	}
	d.seen = map[string]int64{}
	d.keyMem = 0
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i]
		for _, k := range s.Removed {
			if _, ok := d.seen[k]; ok {
				delete(d.seen, k)
				d.keyMem -= int64(len(k))
			}
		}
		for j, k := range s.Keys {
			if _, ok := d.seen[k]; !ok {
				d.keyMem += int64(len(k))
			}
			d.seen[k] = s.EvictAt[j]
		}
	}
	d.updated = 0
	clear(d.added)
	clear(d.removed)
	return nil
}

// SetSnapshotEvery sets how often Save writes every key (see
// DedupConfig.SnapshotEvery).
func (d *Deduper) SetSnapshotEvery(n int64) { d.cfg.SnapshotEvery = n }
