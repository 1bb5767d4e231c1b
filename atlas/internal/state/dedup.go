package state

import (
	"bytes"
	"encoding/gob"
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
}

// NewDeduper prepares an empty state.
func NewDeduper(cfg DedupConfig) *Deduper {
	return &Deduper{cfg: cfg, seen: map[string]int64{}}
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

type dedupSnapshot struct {
	Shape   string
	Keys    []string
	EvictAt []int64
}

// Save serialises the keys.
func (d *Deduper) Save() ([]byte, error) {
	s := dedupSnapshot{Shape: d.cfg.Shape, Keys: make([]string, 0, len(d.seen)), EvictAt: make([]int64, 0, len(d.seen))}
	for k, at := range d.seen {
		s.Keys = append(s.Keys, k)
		s.EvictAt = append(s.EvictAt, at)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&s); err != nil {
		return nil, fmt.Errorf("state: encode deduplication keys: %w", err)
	}
	return buf.Bytes(), nil
}

// Load replaces the keys with a saved version.
func (d *Deduper) Load(data []byte) error {
	var s dedupSnapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("state: decode deduplication keys: %w", err)
	}
	if s.Shape != d.cfg.Shape {
		return fmt.Errorf("state: the checkpoint holds the keys of another deduplication (%s, this query: %s); the query changed since it was checkpointed: use a new checkpointLocation", s.Shape, d.cfg.Shape)
	}
	if len(s.EvictAt) != len(s.Keys) {
		return fmt.Errorf("state: corrupt deduplication keys")
	}
	d.seen = make(map[string]int64, len(s.Keys))
	d.keyMem = 0
	for i, k := range s.Keys {
		d.seen[k] = s.EvictAt[i]
		d.keyMem += int64(len(k))
	}
	d.updated = 0
	return nil
}
