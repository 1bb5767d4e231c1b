package lakehouse

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// fileWithID returns the planned data file holding id.
func fileWithID(t *testing.T, tb *Table, id int64) DataFile {
	t.Helper()
	files, err := tb.PlanFiles(context.Background(), idRange(id, id+1))
	if err != nil || len(files) != 1 {
		t.Fatalf("plan the file of id %d: %v %v", id, files, err)
	}
	return files[0]
}

// positionsOf returns the file positions of ids in f, read from the raw
// file (deletes not applied).
func positionsOf(t *testing.T, tb *Table, f DataFile, ids ...int64) []int64 {
	t.Helper()
	recs, err := tb.ReadFileRaw(context.Background(), f, []string{"id"})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	var pos int64
	for _, r := range recs {
		col := r.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			if slices.Contains(ids, col.Value(i)) {
				out = append(out, pos)
			}
			pos++
		}
		r.Release()
	}
	if len(out) != len(ids) {
		t.Fatalf("found %d of ids %v in %s", len(out), ids, f.Path)
	}
	return out
}

// without returns rows minus those with the given ids.
func without(rows []row, ids ...int64) []row {
	return slices.DeleteFunc(slices.Clone(rows), func(r row) bool { return slices.Contains(ids, r.ID) })
}

func readAll(t *testing.T, tb *Table) []arrow.RecordBatch {
	t.Helper()
	if err := tb.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs, err := tb.ReadAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// deleteIDs commits a row delta on tb deleting ids (all in one file) and
// adding add, with commit c.
func deleteIDs(t *testing.T, tb *Table, c Commit, add []row, ids ...int64) (bool, error) {
	t.Helper()
	ctx := context.Background()
	rd, err := tb.NewRowDelta()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) > 0 {
		f := fileWithID(t, tb, ids[0])
		if err := rd.Delete(f, positionsOf(t, tb, f, ids...)); err != nil {
			t.Fatal(err)
		}
	}
	if len(add) > 0 {
		if err := rd.Add(ctx, buildBatch(t, testSchema, add)); err != nil {
			t.Fatal(err)
		}
	}
	return rd.Commit(ctx, c)
}

// A row delta deletes rows by position and adds rows in one snapshot that
// carries the exactly-once keys; every reader applies the deletes; a
// replay of the same write commits nothing; compaction folds the deletes
// into new data files and removes the delete files, and the rows stay
// deleted (no resurrection, apache/iceberg-go#2042).
func TestRowDeltaDeletesReplaysAndCompacts(t *testing.T) {
	for _, version := range []string{"2", "3"} {
		t.Run("v"+version, func(t *testing.T) {
			ctx := context.Background()
			lh := openTest(t, "")
			tb := createTestTable(t, lh, CreateOptions{Properties: map[string]string{"format-version": version}})
			parts := appendThree(t, tb)
			all := slices.Concat(parts...)
			added := genRows(5000, 5)
			c := Commit{QueryID: "q", BatchID: 7}
			ok, err := deleteIDs(t, tb, c, added, 1010, 1011, 1012)
			if !ok || err != nil {
				t.Fatalf("commit: %v %v", ok, err)
			}
			want := append(without(all, 1010, 1011, 1012), added...)
			assertRows(t, readAll(t, tb), want)
			snap, _ := tb.CurrentSnapshot()
			if snap.QueryID() != "q" || snap.Summary[PropWriters] == "" {
				t.Fatalf("summary %v lacks the exactly-once keys", snap.Summary)
			}
			if b, _ := snap.BatchID(); b != 7 {
				t.Fatalf("batch id %d", b)
			}
			f := fileWithID(t, tb, 1050)
			if del, err := tb.DeletedPositions(ctx, f); err != nil || del.Len() != 3 {
				t.Fatalf("deleted positions %v %v", del.Len(), err)
			}
			// Filtered scans and projections apply the deletes too.
			_, recs, err := tb.Scan(ctx, ScanOptions{Filter: idRange(1005, 1015), Columns: []string{"id"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := readRows(t, recs); len(got) != 7 {
				t.Fatalf("filtered scan read %d rows, want 7 (1005-1014 minus 3 deleted)", len(got))
			}
			if ok, err := deleteIDs(t, tb, c, genRows(6000, 1), 1020); ok || err != nil {
				t.Fatalf("a replayed write committed: %v %v", ok, err)
			}
			assertRows(t, readAll(t, tb), want)

			// A second delete on the same file keeps the first one's rows
			// deleted (v3: the new deletion vector merges the old one).
			if ok, err := deleteIDs(t, tb, Commit{QueryID: "q", BatchID: 8}, nil, 1020, 1021); !ok || err != nil {
				t.Fatalf("commit: %v %v", ok, err)
			}
			want = without(want, 1020, 1021)
			assertRows(t, readAll(t, tb), want)

			res, err := tb.Compact(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.FilesRemoved == 0 {
				t.Fatalf("compaction did nothing: %+v", res)
			}
			if res.RowsWritten != int64(len(want)) {
				t.Fatalf("compaction wrote %d rows, want the %d live rows (%+v)", res.RowsWritten, len(want), res)
			}
			files, err := tb.PlanFiles(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.DeleteFiles() != 0 {
					t.Fatalf("after compaction %s still has %d delete files", f.Path, f.DeleteFiles())
				}
			}
			assertRows(t, readAll(t, tb), want)
			if _, err := tb.ExpireSnapshots(ctx, 0, 1); err != nil {
				t.Fatal(err)
			}
			assertRows(t, readAll(t, tb), want)
		})
	}
}

// A copy-on-write rewrite of a file with merge-on-read deletes reads it
// with the deletes applied: the deleted rows never come back (the bug of
// iceberg-go's own copy-on-write, apache/iceberg-go#2042), and the file's
// delete file goes with it.
func TestRewriteOverDeletesNeverResurrects(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{Properties: map[string]string{PropDeleteGranularity: DeleteGranularityFile}})
	parts := appendThree(t, tb)
	if ok, err := deleteIDs(t, tb, Commit{}, nil, 1000, 1001); !ok || err != nil {
		t.Fatal(ok, err)
	}
	f := fileWithID(t, tb, 1050)
	recs, err := tb.ReadFiles(ctx, []DataFile{f})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := tb.RewriteFiles(ctx, []DataFile{f}, recs, Commit{}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	assertRows(t, readAll(t, tb), without(slices.Concat(parts...), 1000, 1001))
	for _, g := range mustPlan(t, tb) {
		if g.DeleteFiles() != 0 {
			t.Fatalf("%s still has %d delete files after its rewrite", g.Path, g.DeleteFiles())
		}
	}
}

func mustPlan(t *testing.T, tb *Table) []DataFile {
	t.Helper()
	files, err := tb.PlanFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Serializable row deltas: a concurrent row delta that deleted rows of the
// same data file, or a compaction that removed it, makes the later commit
// fail with ErrConflict (nothing committed); a concurrent append elsewhere
// does not. A compaction planned before a concurrent delete fails rather
// than drop that delete with the file (no resurrection).
func TestRowDeltaConflicts(t *testing.T) {
	ctx := context.Background()
	for _, granularity := range []string{DeleteGranularityPartition, DeleteGranularityFile} {
		t.Run(granularity, func(t *testing.T) {
			dir := t.TempDir()
			var parts [][]row
			a, b := twoWriters(t, dir, func(a *Table) {
				if err := a.SetProperties(ctx, map[string]string{PropMergeMode: MergeOnRead, PropDeleteGranularity: granularity}); err != nil {
					t.Fatal(err)
				}
				parts = appendThree(t, a)
			})
			want := slices.Concat(parts...)

			// b deletes 1001 from the base; a deletes 1002 of the same file
			// first: b conflicts.
			rd, err := b.NewRowDelta()
			if err != nil {
				t.Fatal(err)
			}
			f := fileWithID(t, b, 1001)
			if err := rd.Delete(f, positionsOf(t, b, f, 1001)); err != nil {
				t.Fatal(err)
			}
			if ok, err := deleteIDs(t, a, Commit{}, nil, 1002); !ok || err != nil {
				t.Fatal(ok, err)
			}
			want = without(want, 1002)
			if _, err := rd.Commit(ctx, Commit{}); !errors.Is(err, ErrConflict) {
				t.Fatalf("concurrent deletes on one file: %v, want ErrConflict", err)
			}
			assertRows(t, readAll(t, a), want)

			// b deletes 2001 (third file) while a appends new ids: no conflict.
			if err := b.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			rd, err = b.NewRowDelta()
			if err != nil {
				t.Fatal(err)
			}
			f = fileWithID(t, b, 2001)
			if err := rd.Delete(f, positionsOf(t, b, f, 2001)); err != nil {
				t.Fatal(err)
			}
			extra := genRows(9000, 3)
			if ok, err := a.AppendBatch(ctx, batchesOf(t, extra, 10), Commit{}); !ok || err != nil {
				t.Fatal(ok, err)
			}
			if ok, err := rd.Commit(ctx, Commit{}); !ok || err != nil {
				t.Fatalf("a delete beside a concurrent append: %v %v", ok, err)
			}
			want = append(without(want, 2001), extra...)
			assertRows(t, readAll(t, a), want)

			// b deletes 1 (first file); a compacts meanwhile (the file is
			// rewritten): b conflicts.
			if err := b.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			rd, err = b.NewRowDelta()
			if err != nil {
				t.Fatal(err)
			}
			f = fileWithID(t, b, 1)
			if err := rd.Delete(f, positionsOf(t, b, f, 1)); err != nil {
				t.Fatal(err)
			}
			if err := a.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Compact(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := rd.Commit(ctx, Commit{}); !errors.Is(err, ErrConflict) {
				t.Fatalf("delete from a file compacted meanwhile: %v, want ErrConflict", err)
			}
			assertRows(t, readAll(t, a), want)

			// A compaction planned before b's delete of 5 must not commit:
			// its new file would hold 5 again.
			if err := a.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if ok, err := deleteIDs(t, a, Commit{}, nil, 4); !ok || err != nil { // gives a file deletes to fold
				t.Fatal(ok, err)
			}
			want = without(want, 4)
			rw, err := a.NewRewrite()
			if err != nil {
				t.Fatal(err)
			}
			files, err := rw.PlanFiles(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := a.ReadFiles(ctx, files)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if err := rw.Add(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := rw.Remove(files...); err != nil {
				t.Fatal(err)
			}
			if err := b.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if ok, err := deleteIDs(t, b, Commit{}, nil, 5); !ok || err != nil {
				t.Fatal(ok, err)
			}
			want = without(want, 5)
			if _, err := rw.Commit(ctx, Commit{}); !errors.Is(err, ErrConflict) {
				t.Fatalf("compaction over a concurrent delete: %v, want ErrConflict", err)
			}
			assertRows(t, readAll(t, a), want)
		})
	}
}
