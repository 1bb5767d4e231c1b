package engine

import (
	"context"
	"maps"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// A foreachBatch callback that runs two non-idempotent merges into one
// table, replayed after a crash between them and after both, applies each
// merge exactly once: the writes are keyed by (query, batch, write seq).
// A history written with the legacy "<query>#write<n>" keys replays too.
func TestForeachBatchTwoMergesReplayExactlyOnce(t *testing.T) {
	for _, mode := range []string{lakehouse.CopyOnWrite, lakehouse.MergeOnRead} {
		t.Run(mode, func(t *testing.T) { testTwoMergesReplay(t, mode) })
	}
}

func testTwoMergesReplay(t *testing.T, mode string) {
	ctx := context.Background()
	s := Builder().AppName(t.Name()).Config(ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	const name = "lakehouse.silver.replay"
	tbl, err := lh.CreateTable(ctx, name, schema, lakehouse.CreateOptions{Properties: map[string]string{lakehouse.PropMergeMode: mode}})
	if err != nil {
		t.Fatal(err)
	}
	record := func(rows map[int64]int64) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for id, n := range rows {
			b.Field(0).(*array.Int64Builder).Append(id)
			b.Field(1).(*array.Int64Builder).Append(n)
		}
		return b.NewRecordBatch()
	}
	ref := map[int64]int64{1: 10, 2: 20, 3: 30}
	seed := record(ref)
	if _, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{seed}, lakehouse.Commit{}); err != nil {
		t.Fatal(err)
	}
	seed.Release()

	// add merges deltas: n += d for existing ids, insert (id, d) for new
	// ones. Applied twice, it gives a different table.
	add := func(deltas map[int64]int64) MergeResult {
		t.Helper()
		rec := record(deltas)
		src := s.CreateDataFrame(schema, []arrow.RecordBatch{rec})
		rec.Release()
		res, err := s.MergeInto(name).As("t").Using(src.WithColumnRenamed("n", "d"), "s").On("t.id = s.id").
			WhenMatchedUpdate(map[string]string{"n": "t.n + s.d"}).
			WhenNotMatchedInsert(map[string]string{"id": "s.id", "n": "s.d"}).
			Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	apply := func(deltas map[int64]int64) {
		for id, d := range deltas {
			ref[id] += d
		}
	}
	check := func(what string) {
		t.Helper()
		if err := tbl.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		recs, err := tbl.ReadAll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]int64{}
		for _, r := range recs {
			ids, ns := r.Column(0).(*array.Int64), r.Column(1).(*array.Int64)
			for i := 0; i < int(r.NumRows()); i++ {
				if _, dup := got[ids.Value(i)]; dup {
					t.Fatalf("%s: id %d twice", what, ids.Value(i))
				}
				got[ids.Value(i)] = ns.Value(i)
			}
			r.Release()
		}
		if !maps.Equal(got, ref) {
			t.Fatalf("%s: table %v, want %v", what, got, ref)
		}
	}
	first := map[int64]int64{1: 1, 4: 4}
	second := map[int64]int64{1: 100, 2: 200, 5: 500}
	// callback runs the two merges of batch b, stopping after the first
	// when crash is set; it returns whether each merge was skipped.
	callback := func(b int64, crash bool) []bool {
		restore := s.enterBatch(&batchContext{queryID: "q", batchID: b})
		defer restore()
		skipped := []bool{add(first).Skipped}
		if !crash {
			skipped = append(skipped, add(second).Skipped)
		}
		return skipped
	}

	// Batch 7 crashes after its first merge, then is replayed twice.
	if sk := callback(7, true); sk[0] {
		t.Fatal("batch 7's first merge skipped on its first run")
	}
	apply(first)
	check("batch 7 after the crash")
	if sk := callback(7, false); !sk[0] || sk[1] {
		t.Fatalf("replay of batch 7 skipped %v, want [true false]", sk)
	}
	apply(second)
	check("batch 7 replayed")
	if sk := callback(7, false); !sk[0] || !sk[1] {
		t.Fatalf("second replay of batch 7 skipped %v, want [true true]", sk)
	}
	check("batch 7 replayed twice")
	snap, _ := tbl.CurrentSnapshot()
	if snap.QueryID() != "q" || snap.Summary[PropWriteSeq] != "1" {
		t.Fatalf("second merge's snapshot %v, want query q, write seq 1", snap.Summary)
	}
	if sk := callback(8, false); sk[0] || sk[1] {
		t.Fatalf("batch 8 skipped %v", sk)
	}
	apply(first)
	apply(second)
	check("batch 8")

	// A history from before write sequences: batch 9's second write was
	// committed under the query id "q#write1". On replay both merges of
	// batch 9 are skipped.
	if ok, err := tbl.AppendBatch(ctx, nil, lakehouse.Commit{QueryID: "q#write1", BatchID: 9}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if sk := callback(9, false); !sk[0] || !sk[1] {
		t.Fatalf("batch 9 over a legacy history skipped %v, want [true true]", sk)
	}
	check("batch 9")
}
