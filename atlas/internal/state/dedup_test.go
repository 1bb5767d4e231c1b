package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDeduperVersionsRestore: 35 versions of keys added (with event
// times) and evicted by a rising watermark, saved as a full version every
// 10 and changes in between; loading any version from the saved bytes
// gives exactly the keys the live state held then, and the next version
// saved from a loaded state chains on correctly.
func TestDeduperVersionsRestore(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}}}, nil)
	cfg := DedupConfig{Keys: []int{0, 1}, EventTime: 1, Mode: DedupKeyTime, Shape: "t", SnapshotEvery: 10}
	live := NewDeduper(cfg)
	r := rand.New(rand.NewPCG(3, 3))
	saved := map[int64][]byte{}
	states := map[int64]map[string]int64{}
	read := func(v int64) ([]byte, error) {
		b, ok := saved[v]
		if !ok {
			return nil, fmt.Errorf("version %d missing", v)
		}
		return b, nil
	}
	for v := int64(0); v < 35; v++ {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for range 200 {
			b.Field(0).(*array.Int64Builder).Append(r.Int64N(50))
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(v*100 + r.Int64N(300)))
		}
		rec := b.NewRecordBatch()
		b.Release()
		if _, _, err := live.Filter(rec, nil); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		live.Evict(v*100 - 50)
		data, err := live.Save(v)
		if err != nil {
			t.Fatal(err)
		}
		saved[v], states[v] = data, maps.Clone(live.seen)
		if v == 17 {
			// Restart: a loaded state continues the chain.
			restarted := NewDeduper(cfg)
			if err := restarted.Load(v, read); err != nil {
				t.Fatal(err)
			}
			live = restarted
		}
	}
	for v := int64(-1); v < 35; v++ {
		d := NewDeduper(cfg)
		if err := d.Load(v, read); err != nil {
			t.Fatalf("load %d: %v", v, err)
		}
		want := states[v]
		if v < 0 {
			want = map[string]int64{}
		}
		if !maps.Equal(d.seen, want) {
			t.Fatalf("version %d: loaded %d keys, live held %d", v, len(d.seen), len(want))
		}
	}
}
