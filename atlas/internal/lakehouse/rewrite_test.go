package lakehouse

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
)

// appendThree appends three batches of 100 rows with ids 0-99, 1000-1099 and
// 2000-2099: three files with disjoint id ranges.
func appendThree(t *testing.T, tb *Table) [][]row {
	t.Helper()
	var out [][]row
	for b := range int64(3) {
		rows := genRows(b*1000, 100)
		if ok, err := tb.AppendBatch(context.Background(), batchesOf(t, rows, 100), Commit{QueryID: "load", BatchID: b}); !ok || err != nil {
			t.Fatalf("append %d: %v %v", b, ok, err)
		}
		out = append(out, rows)
	}
	return out
}

func TestRewriteFiles(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})
	if files, err := tb.PlanFiles(ctx, nil); len(files) != 0 || err != nil {
		t.Fatalf("PlanFiles on an empty table: %v %v", files, err)
	}
	parts := appendThree(t, tb)

	// The filter's id range lies inside the second file only: statistics
	// prune the other two.
	filter := iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(1040)),
		iceberg.LessThan(iceberg.Reference("id"), int64(1050)))
	files, err := tb.PlanFiles(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].RecordCount != 100 {
		t.Fatalf("planned %+v, want the one file of batch 1", files)
	}
	old, err := tb.ReadFiles(ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, old, parts[1]) // the whole file, not only the filtered rows

	// MERGE-like: update rows 1040-1049, keep the others, insert two new.
	var newRows []row
	for _, r := range readRows(t, old) {
		if r.ID >= 1040 && r.ID < 1050 {
			r.Amount = -1
		}
		newRows = append(newRows, r)
	}
	newRows = append(newRows, genRows(5000, 2)...)
	c := Commit{QueryID: "merge", BatchID: 7}
	ok, err := tb.RewriteFiles(ctx, files, []arrow.RecordBatch{buildBatch(t, testSchema, newRows)}, c)
	if !ok || err != nil {
		t.Fatalf("RewriteFiles: %v %v", ok, err)
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(append([]row{}, parts[0]...), newRows...), parts[2]...)
	assertRows(t, all, want)

	s, _ := tb.CurrentSnapshot()
	if s.Operation != "overwrite" || s.Summary["deleted-data-files"] != "1" || s.Summary["added-data-files"] != "1" ||
		s.Summary["deleted-records"] != "100" || s.Summary["added-records"] != "102" || s.QueryID() != "merge" {
		t.Errorf("rewrite snapshot %s %v", s.Operation, s.Summary)
	}
	if s.Summary["added-delete-files"] != "" && s.Summary["added-delete-files"] != "0" {
		t.Errorf("rewrite wrote delete files: %v", s.Summary)
	}
	live, _ := tb.PlanFiles(ctx, nil)
	if len(live) != 3 {
		t.Errorf("%d live files, want 3", len(live))
	}
	// The replay of the merge batch writes nothing.
	if ok, err := tb.RewriteFiles(ctx, nil, []arrow.RecordBatch{buildBatch(t, testSchema, genRows(9000, 5))}, c); ok || err != nil {
		t.Errorf("replayed rewrite: %v %v", ok, err)
	}
	// Removing rows only (a DELETE): no rows to add.
	del, _ := tb.PlanFiles(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(5)))
	if len(del) != 1 {
		t.Fatalf("planned %d files for id 5", len(del))
	}
	if ok, err := tb.RewriteFiles(ctx, del, nil, Commit{QueryID: "merge", BatchID: 8}); !ok || err != nil {
		t.Fatalf("delete rewrite: %v %v", ok, err)
	}
	all, _ = tb.ReadAll(ctx)
	assertRows(t, all, append(append([]row{}, newRows...), parts[2]...))
}

func TestRewriteConflict(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var parts [][]row
	a, b := twoWriters(t, dir, func(a *Table) { parts = appendThree(t, a) })
	idIn := func(lo, hi int64) iceberg.BooleanExpression {
		return iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), hi))
	}

	// a plans the first file; b appends elsewhere meanwhile: a's rewrite
	// retries on the new state and keeps b's rows.
	fa, _ := a.PlanFiles(ctx, idIn(0, 100))
	extra := genRows(7000, 5)
	if ok, err := b.AppendBatch(ctx, batchesOf(t, extra, 100), Commit{QueryID: "b", BatchID: 0}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := a.RewriteFiles(ctx, fa, []arrow.RecordBatch{buildBatch(t, testSchema, parts[0][:50])}, Commit{QueryID: "a", BatchID: 0}); !ok || err != nil {
		t.Fatalf("rewrite after a concurrent append: %v %v", ok, err)
	}
	all, _ := a.ReadAll(ctx)
	assertRows(t, all, concat(parts[0][:50], parts[1], parts[2], extra))

	// a plans the second file; b rewrites it first: a gets ErrConflict and
	// commits nothing.
	fa, _ = a.PlanFiles(ctx, idIn(1000, 1100))
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	fb, _ := b.PlanFiles(ctx, idIn(1000, 1100))
	if len(fa) != 1 || len(fb) != 1 || fa[0].Path != fb[0].Path {
		t.Fatalf("plans %v / %v", fa, fb)
	}
	if ok, err := b.RewriteFiles(ctx, fb, nil, Commit{QueryID: "b", BatchID: 1}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	ok, err := a.RewriteFiles(ctx, fa, []arrow.RecordBatch{buildBatch(t, testSchema, parts[1])}, Commit{QueryID: "a", BatchID: 1})
	if ok || !errors.Is(err, ErrConflict) {
		t.Fatalf("conflicting rewrite: %v %v, want ErrConflict", ok, err)
	}
	all, _ = a.ReadAll(ctx)
	assertRows(t, all, concat(parts[0][:50], parts[2], extra))
	if _, ok, _ := a.LastCommittedBatch(ctx, "a"); !ok {
		t.Errorf("batch 0 of a lost")
	}
	if last, _, _ := a.LastCommittedBatch(ctx, "a"); last != 0 {
		t.Errorf("conflicting batch recorded as committed: %d", last)
	}
	if n := parquetFiles(t, dir); n != 5 {
		// 3 appended + b's append + a's first rewrite output; the removed
		// files stay until snapshot expiry, a's conflicting output is gone.
		t.Errorf("%d parquet files, want 5", n)
	}
}

func concat(parts ...[]row) []row {
	var out []row
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
