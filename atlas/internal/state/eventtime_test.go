package state

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// TestUpdateSortsRowsByEventTime groups by a plain event-time column (the
// watermark evicts on it, no window) and checks, by hand, which rows Update
// aggregates, drops as late, or keeps out for a null or too-far event
// time, with their indices for the late-rows table.
func TestUpdateSortsRowsByEventTime(t *testing.T) {
	mem := memory.NewGoAllocator()
	tsType := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: tsType, Nullable: true}}, nil)
	key, err := expr.Col("ts").Bind(schema)
	if err != nil {
		t.Fatal(err)
	}
	count, err := (&expr.AggFunc{Fn: "count"}).Bind(schema)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAggregator(Config{Keys: []expr.Bound{key}, KeyNames: []string{"ts"}, Aggs: []*expr.BoundAgg{count}, EvictKey: 0})
	if err != nil {
		t.Fatal(err)
	}
	a.CollectLateRows()
	a.SetEventTimeLimit(1000)
	b := array.NewTimestampBuilder(mem, tsType)
	defer b.Release()
	// rows: 0 null, 1 late (100 <= 100), 2 kept, 3 ahead (1001 > 1000),
	// 4 kept at the limit, 5 null, 6 kept (same group as 2).
	b.AppendNull()
	for _, v := range []int64{100, 500, 1001, 1000} {
		b.Append(arrow.Timestamp(v))
	}
	b.AppendNull()
	b.Append(500)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	st, err := a.Update(expr.NewCtx(context.Background()), rec, 0, 100, true)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want []int32) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s rows %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s rows %v, want %v", what, got, want)
			}
		}
	}
	if st.NullTime != 2 || st.Dropped != 1 || st.Ahead != 1 || st.Updated != 3 || a.NumGroups() != 2 {
		t.Fatalf("stats %+v, groups %d; want null 2, dropped 1, ahead 1, updated 3, groups 2", st, a.NumGroups())
	}
	same("late", st.LateRows, []int32{1})
	same("null-time", st.NullTimeRows, []int32{0, 5})
	same("ahead", st.AheadRows, []int32{3})
}
