package lakehouse

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// parquetFiles counts the Parquet files under dir's warehouse.
func parquetFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, "wh"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Two writers, each with its own catalog client and table handle, append
// different batches at the same time: every row lands exactly once.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := twoWriters(t, dir, nil)
	const batches, rowsPer = 12, 20
	var want []row
	writer := func(tb *Table, query string, base int64) (commits int, err error) {
		for i := range int64(batches) {
			rows := genRows(base+i*rowsPer, rowsPer)
			ok, err := tb.AppendBatch(ctx, batchesOf(t, rows, 100), Commit{QueryID: query, BatchID: i})
			if err != nil {
				return commits, err
			}
			if ok {
				commits++
			}
		}
		return commits, nil
	}
	for i := range int64(batches) {
		want = append(want, genRows(0+i*rowsPer, rowsPer)...)
		want = append(want, genRows(100_000+i*rowsPer, rowsPer)...)
	}
	var wg sync.WaitGroup
	var na, nb int
	var ea, eb error
	wg.Go(func() { na, ea = writer(a, "qa", 0) })
	wg.Go(func() { nb, eb = writer(b, "qb", 100_000) })
	wg.Wait()
	if ea != nil || eb != nil {
		t.Fatalf("writers: %v / %v", ea, eb)
	}
	if na != batches || nb != batches {
		t.Fatalf("commits %d and %d, want %d each", na, nb, batches)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	for _, q := range []string{"qa", "qb"} {
		if last, ok, err := b.LastCommittedBatch(ctx, q); last != batches-1 || !ok || err != nil {
			t.Errorf("LastCommittedBatch(%s) = %d %v %v", q, last, ok, err)
		}
	}
	if got := len(a.Snapshots()); got != 2*batches {
		t.Errorf("%d snapshots, want %d", got, 2*batches)
	}
	if got := parquetFiles(t, dir); got != 2*batches {
		t.Errorf("%d parquet files in the warehouse, want %d (no orphans)", got, 2*batches)
	}
}

// Two writers replay the SAME query's batches at the same time (a restarted
// query racing its old incarnation): each batch is committed exactly once.
func TestConcurrentReplaySameBatches(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := twoWriters(t, dir, nil)
	const batches, rowsPer = 10, 15
	var want []row
	for i := range int64(batches) {
		want = append(want, genRows(i*rowsPer, rowsPer)...)
	}
	commits := make([]int, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w, tb := range []*Table{a, b} {
		wg.Go(func() {
			for i := range int64(batches) {
				ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(i*rowsPer, rowsPer), 100), Commit{QueryID: "q", BatchID: i})
				if err != nil {
					errs[w] = err
					return
				}
				if ok {
					commits[w]++
				}
			}
		})
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("writers: %v", errs)
	}
	if commits[0]+commits[1] != batches {
		t.Errorf("%d + %d commits, want %d in total", commits[0], commits[1], batches)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	if got := parquetFiles(t, dir); got != batches {
		t.Errorf("%d parquet files, want %d (losers' files removed)", got, batches)
	}
}
