package lakehouse

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
)

// idRange is lo <= id < hi.
func idRange(lo, hi int64) iceberg.BooleanExpression {
	return iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), hi))
}

// A rewrite validating no conflicting data fails with ErrConflict when a
// concurrent writer added rows its filter matches, and commits on the new
// state when the concurrent rows lie outside the filter.
func TestRewriteValidateNoConflictingData(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var parts [][]row
	a, b := twoWriters(t, dir, func(a *Table) { parts = appendThree(t, a) })

	// b inserts ids 7000-7004 after checking they are absent; a inserts
	// the same ids first: b must not commit them a second time.
	rw, err := b.NewRewrite()
	if err != nil {
		t.Fatal(err)
	}
	rw.ValidateNoConflictingData(idRange(7000, 7005))
	if files, err := rw.PlanFiles(ctx, idRange(7000, 7005)); len(files) != 0 || err != nil {
		t.Fatalf("planned %v %v before the insert", files, err)
	}
	if err := rw.Add(ctx, buildBatch(t, testSchema, genRows(7000, 5))); err != nil {
		t.Fatal(err)
	}
	dup := genRows(7000, 5)
	if ok, err := a.AppendBatch(ctx, batchesOf(t, dup, 100), Commit{QueryID: "a", BatchID: 0}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	ok, err := rw.Commit(ctx, Commit{QueryID: "b", BatchID: 0})
	if ok || !errors.Is(err, ErrConflict) {
		t.Fatalf("conflicting insert: %v %v, want ErrConflict", ok, err)
	}
	all, _ := b.ReadAll(ctx)
	assertRows(t, all, concat(parts[0], parts[1], parts[2], dup))
	if n := parquetFiles(t, dir); n != 4 {
		t.Errorf("%d parquet files, want 4 (the conflicting rewrite's file deleted)", n)
	}

	// The same race on ids the rewrite does not cover: it is retried on
	// the new state and both inserts stay.
	rw, _ = b.NewRewrite()
	rw.ValidateNoConflictingData(idRange(8000, 8005))
	mine := genRows(8000, 5)
	if err := rw.Add(ctx, buildBatch(t, testSchema, mine)); err != nil {
		t.Fatal(err)
	}
	other := genRows(9000, 5)
	if ok, err := a.AppendBatch(ctx, batchesOf(t, other, 100), Commit{QueryID: "a", BatchID: 1}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := rw.Commit(ctx, Commit{QueryID: "b", BatchID: 1}); !ok || err != nil {
		t.Fatalf("insert beside a concurrent append: %v %v", ok, err)
	}
	all, _ = b.ReadAll(ctx)
	assertRows(t, all, concat(parts[0], parts[1], parts[2], dup, other, mine))

	// Without validation (snapshot isolation) the duplicate goes through:
	// this is what the validation prevents.
	rw, _ = b.NewRewrite()
	if err := rw.Add(ctx, buildBatch(t, testSchema, genRows(9000, 1))); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.AppendBatch(ctx, batchesOf(t, genRows(9500, 1), 100), Commit{QueryID: "a", BatchID: 2}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := rw.Commit(ctx, Commit{QueryID: "b", BatchID: 2}); !ok || err != nil {
		t.Fatalf("unvalidated rewrite: %v %v", ok, err)
	}
	all, _ = b.ReadAll(ctx)
	assertRows(t, all, concat(parts[0], parts[1], parts[2], dup, other, mine, genRows(9000, 1), genRows(9500, 1)))
}

// A rewrite based on an empty table conflicts with any matching file
// committed since.
func TestRewriteValidateFromEmptyTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := createTestTable(t, openTest(t, dir), CreateOptions{})
	b, err := openTest(t, dir).LoadTable(ctx, "gold.events")
	if err != nil {
		t.Fatal(err)
	}
	rw, _ := b.NewRewrite()
	if rw.BaseSnapshotID() != -1 {
		t.Fatalf("base snapshot %d of an empty table", rw.BaseSnapshotID())
	}
	rw.ValidateNoConflictingData(nil)
	if err := rw.Add(ctx, buildBatch(t, testSchema, genRows(0, 3))); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.AppendBatch(ctx, batchesOf(t, genRows(100, 3), 100), Commit{}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := rw.Commit(ctx, Commit{}); ok || !errors.Is(err, ErrConflict) {
		t.Fatalf("commit over a concurrent first append: %v %v, want ErrConflict", ok, err)
	}
	if err := rw.Add(ctx, buildBatch(t, testSchema, genRows(0, 1))); err == nil {
		t.Fatal("Add after Commit succeeded")
	}
	all, _ := b.ReadAll(ctx)
	assertRows(t, all, genRows(100, 3))
}

// A rewrite and a row delta based on an empty table report base snapshot
// -1 (iceberg-go's and Iceberg's "no snapshot") and, validated for a key
// range, commit beside a concurrent first append outside that range: only
// matching files conflict.
func TestValidateFromEmptyTableIgnoresOtherKeys(t *testing.T) {
	ctx := context.Background()
	inRange := iceberg.LessThan(iceberg.Reference("id"), int64(50))
	for _, kind := range []string{"rewrite", "row delta"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			a := createTestTable(t, openTest(t, dir), CreateOptions{})
			b, err := openTest(t, dir).LoadTable(ctx, "gold.events")
			if err != nil {
				t.Fatal(err)
			}
			type pending interface {
				BaseSnapshotID() int64
				ValidateNoConflictingData(iceberg.BooleanExpression)
				Add(context.Context, arrow.RecordBatch) error
				Commit(context.Context, Commit) (bool, error)
			}
			var w pending
			if kind == "rewrite" {
				w, err = b.NewRewrite()
			} else {
				w, err = b.NewRowDelta()
			}
			if err != nil {
				t.Fatal(err)
			}
			if id := w.BaseSnapshotID(); id != -1 {
				t.Fatalf("base snapshot %d of an empty table, want -1", id)
			}
			w.ValidateNoConflictingData(inRange)
			if err := w.Add(ctx, buildBatch(t, testSchema, genRows(0, 3))); err != nil {
				t.Fatal(err)
			}
			if ok, err := a.AppendBatch(ctx, batchesOf(t, genRows(100, 3), 100), Commit{}); !ok || err != nil {
				t.Fatal(ok, err)
			}
			if ok, err := w.Commit(ctx, Commit{}); !ok || err != nil {
				t.Fatalf("commit beside a concurrent append of other keys: %v %v", ok, err)
			}
			if err := b.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			all, _ := b.ReadAll(ctx)
			assertRows(t, all, concat(genRows(100, 3), genRows(0, 3)))
		})
	}
}
