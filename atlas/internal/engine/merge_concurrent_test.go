package engine_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// Two sessions (two catalog clients) run the same upsert of new keys and
// of existing keys at the same time, round after round, copy-on-write and
// merge-on-read. Whatever the interleaving, the merges must serialize: one
// inserts the new keys, the other recomputes on its commit and updates
// them, so each key is in the table once (a merge-on-read merge updating a
// row another merge updated meanwhile conflicts instead of keeping both new
// versions) and the table equals a reference built by applying the two
// merges in their commit order.
func TestConcurrentMergesInsertEachKeyOnce(t *testing.T) {
	for _, mode := range []string{lakehouse.CopyOnWrite, lakehouse.MergeOnRead} {
		t.Run(mode, func(t *testing.T) { testConcurrentMerges(t, mode) })
	}
}

func testConcurrentMerges(t *testing.T, mode string) {
	ctx := context.Background()
	home := t.TempDir()
	open := func() *engine.Session {
		s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
		t.Cleanup(s.Stop)
		return s
	}
	sa, sb := open(), open()
	lh, err := sa.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const name = "lakehouse.silver.concurrent"
	tbl, err := lh.CreateTable(ctx, name, kvSchema, lakehouse.CreateOptions{Properties: map[string]string{lakehouse.PropMergeMode: mode}})
	if err != nil {
		t.Fatal(err)
	}
	ref := map[int64]string{}
	var ids []int64
	for i := range int64(50) {
		ids = append(ids, i)
		ref[i] = "seed"
	}
	seed := kvRecord(ids, func(int64) string { return "seed" })
	_, err = tbl.AppendBatch(ctx, []arrow.RecordBatch{seed}, lakehouse.Commit{})
	seed.Release()
	if err != nil {
		t.Fatal(err)
	}

	const rounds = 6
	retried := 0
	for r := range int64(rounds) {
		// Both merges carry the same 40 new keys and 5 existing ones; b
		// also 5 new keys of its own.
		var shared, onlyB []int64
		for i := range int64(40) {
			shared = append(shared, 1000*(r+1)+i)
		}
		for i := range int64(5) {
			shared = append(shared, r*5+i)
		}
		for i := range int64(5) {
			onlyB = append(onlyB, 1000*(r+1)+500+i)
		}
		srcs := map[string][]int64{"a": shared, "b": append(append([]int64{}, shared...), onlyB...)}
		res := map[string]engine.MergeResult{}
		errs := map[string]error{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for who, s := range map[string]*engine.Session{"a": sa, "b": sb} {
			val := fmt.Sprintf("%s%d", who, r)
			rec := kvRecord(srcs[who], func(int64) string { return val })
			src := s.CreateDataFrame(kvSchema, []arrow.RecordBatch{rec})
			rec.Release()
			wg.Go(func() {
				out, err := s.MergeInto(name).As("t").Using(src, "s").On("t.id = s.id").
					WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(ctx)
				mu.Lock()
				defer mu.Unlock()
				res[who], errs[who] = out, err
			})
		}
		wg.Wait()
		if errs["a"] != nil || errs["b"] != nil {
			t.Fatalf("round %d: merges failed: %v / %v", r, errs["a"], errs["b"])
		}
		// The merge that inserted the shared keys committed first.
		first, second := "a", "b"
		if res["a"].NumInsertedRows == 0 {
			first, second = "b", "a"
		}
		for _, who := range []string{first, second} {
			for _, id := range srcs[who] {
				ref[id] = fmt.Sprintf("%s%d", who, r)
			}
		}
		wantIns := map[string]int64{"a": 40, "b": 45}
		if f, s := res[first], res[second]; f.NumInsertedRows != wantIns[first] || f.NumUpdatedRows != 5 ||
			s.NumUpdatedRows != 45 || s.NumInsertedRows != wantIns[second]-40 {
			t.Fatalf("round %d: first %s %+v, second %s %+v: the merges did not serialize", r, first, f, second, s)
		}
		if res[second].Attempts > 1 {
			retried++
		}
		if err := tbl.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		recs, err := tbl.ReadAll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := kvRows(t, recs) // fails on a key held twice
		for _, rec := range recs {
			rec.Release()
		}
		if !maps.Equal(got, ref) {
			t.Fatalf("round %d: the table (%d rows) differs from the reference (%d rows)", r, len(got), len(ref))
		}
	}
	t.Logf("%d of %d rounds raced (the second merge recomputed)", retried, rounds)
}
