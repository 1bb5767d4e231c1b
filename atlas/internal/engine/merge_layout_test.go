package engine_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/enginetest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// The (id, v) rows of the layout tests.
var (
	kvSchema = enginetest.KVSchema
	kvRecord = enginetest.KVRecord
	kvRows   = enginetest.KVRows
)

// liveFiles returns the table's data files by path, each with its rows.
func liveFiles(t *testing.T, tbl *lakehouse.Table) map[string][]int64 {
	t.Helper()
	ctx := context.Background()
	if err := tbl.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	files, err := tbl.PlanFiles(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]int64{}
	for _, f := range files {
		recs, err := tbl.ReadFiles(ctx, []lakehouse.DataFile{f})
		if err != nil {
			t.Fatal(err)
		}
		_, order := kvRows(t, recs)
		for _, r := range recs {
			r.Release()
		}
		out[f.Path] = order
	}
	return out
}

// TestMergeRewritesProportionally loads five files with disjoint key
// ranges and merges changes into one file at a time: each merge must
// replace exactly the file holding its keys with one file of the same keys,
// in the same row order, write its inserts as one more file sorted by key,
// and leave the table
// equal to a reference map with the changes applied.
func TestMergeRewritesProportionally(t *testing.T) {
	ctx := context.Background()
	s := sqlSession(t)
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const name = "lakehouse.silver.layout"
	// Small-file packing off: every rewritten file comes back on its own.
	tbl, err := lh.CreateTable(ctx, name, kvSchema, lakehouse.CreateOptions{
		Properties: map[string]string{engine.PropMergeSmallFileRows: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ref := map[int64]string{}
	for f := range int64(5) {
		var ids []int64
		for i := range int64(100) {
			ids = append(ids, f*1000+i)
			ref[f*1000+i] = "v0"
		}
		rec := kvRecord(ids, func(int64) string { return "v0" })
		_, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{rec}, lakehouse.Commit{})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}

	// merge applies the changes ids -> "v<n>" to the table and the
	// reference, and checks which files it replaced and added.
	merge := func(n int, ids []int64, wantRewritten []int64, wantInserts []int64) {
		t.Helper()
		before := liveFiles(t, tbl)
		val := fmt.Sprintf("v%d", n)
		rec := kvRecord(ids, func(int64) string { return val })
		src := s.CreateDataFrame(kvSchema, []arrow.RecordBatch{rec})
		rec.Release()
		res, err := s.MergeInto(name).As("t").Using(src, "s").On("t.id = s.id").
			WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(ctx)
		if err != nil {
			t.Fatalf("merge %d: %v", n, err)
		}
		for _, id := range ids {
			ref[id] = val
		}
		after := liveFiles(t, tbl)
		var removed, added []string
		for p := range before {
			if _, ok := after[p]; !ok {
				removed = append(removed, p)
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				added = append(added, p)
			}
		}
		// The removed files are exactly those holding a changed key.
		var wantRemoved []string
		for p, rows := range before {
			if slices.ContainsFunc(rows, func(id int64) bool { return slices.Contains(wantRewritten, id) }) {
				wantRemoved = append(wantRemoved, p)
			}
		}
		slices.Sort(removed)
		slices.Sort(wantRemoved)
		if !slices.Equal(removed, wantRemoved) || res.FilesRewritten != len(wantRemoved) || res.FilesScanned != len(wantRemoved) {
			t.Fatalf("merge %d removed %v (result: %d scanned, %d rewritten), want %v", n, removed, res.FilesScanned, res.FilesRewritten, wantRemoved)
		}
		// Each removed file comes back as one file with the same keys;
		// the inserts are one more file, in key order.
		wantAdded := len(wantRemoved)
		if len(wantInserts) > 0 {
			wantAdded++
		}
		if len(added) != wantAdded {
			t.Fatalf("merge %d added %d files, want %d", n, len(added), wantAdded)
		}
		var keySets [][]int64
		for _, p := range wantRemoved {
			keySets = append(keySets, slices.Sorted(slices.Values(before[p])))
		}
		if len(wantInserts) > 0 {
			keySets = append(keySets, slices.Sorted(slices.Values(wantInserts)))
		}
		for _, p := range added {
			rows := after[p]
			i := slices.IndexFunc(keySets, func(ks []int64) bool { return slices.Equal(ks, slices.Sorted(slices.Values(rows))) })
			if i < 0 {
				t.Fatalf("merge %d added a file with keys %v, want one of %v", n, rows, keySets)
			}
			// Loaded files are in key order; a rewrite keeps each row in
			// its place and writes the inserts sorted.
			if !slices.IsSorted(rows) {
				t.Fatalf("merge %d wrote a file out of key order: %v", n, rows)
			}
			keySets = slices.Delete(keySets, i, i+1)
		}
		if int(res.NumInsertedRows) != len(wantInserts) || int(res.NumUpdatedRows) != len(ids)-len(wantInserts) {
			t.Fatalf("merge %d result %+v, want %d inserted", n, res, len(wantInserts))
		}
		recs, err := tbl.ReadAll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := kvRows(t, recs)
		for _, r := range recs {
			r.Release()
		}
		if !maps.Equal(got, ref) {
			t.Fatalf("merge %d: the table (%d rows) differs from the reference (%d rows)", n, len(got), len(ref))
		}
	}
	// Keys of file 2 plus new keys given out of order.
	merge(1, []int64{2005, 9003, 2001, 9001, 9002}, []int64{2005, 2001}, []int64{9001, 9002, 9003})
	// Keys of file 4 and a new key outside the first insert file's range.
	merge(2, []int64{4050, 4099, 9500}, []int64{4050, 4099}, []int64{9500})
	// A key of merge 1's insert file only: just that file is rewritten.
	merge(3, []int64{9002}, []int64{9002}, nil)
	if n := len(liveFiles(t, tbl)); n != 7 {
		t.Fatalf("%d live files, want 7 (5 loaded + 2 insert files)", n)
	}
}
