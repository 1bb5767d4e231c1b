package state

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// TestGroupCacheCountsMatchAMap counts rows per (ts, name) over 3,000
// distinct keys, six times the cache's slots so that keys share slots,
// through 20 batches, evicting by a rising watermark after each (which
// renumbers the groups) and restoring the state from a snapshot half-way;
// every emitted and remaining count must equal a plain map's.
func TestGroupCacheCountsMatchAMap(t *testing.T) {
	mem := memory.NewGoAllocator()
	tsType := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: tsType, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	bind := func(e expr.Expr) expr.Bound {
		b, err := e.Bind(schema)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	count, err := (&expr.AggFunc{Fn: "count"}).Bind(schema)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Keys: []expr.Bound{bind(expr.Col("ts")), bind(expr.Col("name"))}, KeyNames: []string{"ts", "name"}, Aggs: []*expr.BoundAgg{count}, EvictKey: 0}
	a, err := NewAggregator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		ts   int64
		name string
	}
	want := map[key]int64{}
	// collect reads a record of (ts, name, count) rows into a map.
	collect := func(rec arrow.RecordBatch) map[key]int64 {
		out := map[key]int64{}
		if rec == nil {
			return out
		}
		defer rec.Release()
		ts, names, counts := rec.Column(0).(*array.Timestamp), rec.Column(1).(*array.String), rec.Column(2).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			k := key{int64(ts.Value(i)), names.Value(i)}
			if _, dup := out[k]; dup {
				t.Fatalf("group %v emitted twice", k)
			}
			out[k] = counts.Value(i)
		}
		return out
	}
	same := func(what string, got, want map[key]int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d groups, reference %d", what, len(got), len(want))
		}
		for k, n := range want {
			if got[k] != n {
				t.Fatalf("%s: group %v counts %d, reference %d", what, k, got[k], n)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for batch := int64(0); batch < 20; batch++ {
		tb := array.NewTimestampBuilder(mem, tsType)
		nb := array.NewStringBuilder(mem)
		for range 2000 {
			// Event times from the batch's window on, names from 10.
			k := key{batch*15 + int64(r.IntN(300)), fmt.Sprintf("name-%d", r.IntN(10))}
			tb.Append(arrow.Timestamp(k.ts))
			nb.Append(k.name)
			want[k]++
		}
		tsCol, nameCol := tb.NewArray(), nb.NewArray()
		tb.Release()
		nb.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{tsCol, nameCol}, int64(tsCol.Len()))
		tsCol.Release()
		nameCol.Release()
		if _, err := a.Update(expr.NewCtx(context.Background()), rec, batch, -1, false); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		watermark := batch * 15
		out, _, err := a.EvictExpired(mem, watermark, true)
		if err != nil {
			t.Fatal(err)
		}
		gone := map[key]int64{}
		for k, n := range want {
			if k.ts <= watermark {
				gone[k] = n
				delete(want, k)
			}
		}
		same(fmt.Sprintf("batch %d evicted", batch), collect(out), gone)
		if batch == 10 {
			data, err := a.Save()
			if err != nil {
				t.Fatal(err)
			}
			if a, err = NewAggregator(cfg); err != nil {
				t.Fatal(err)
			}
			if err := a.Load(data); err != nil {
				t.Fatal(err)
			}
		}
	}
	rest, err := a.Emit(mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("open groups", collect(rest), want)
}
