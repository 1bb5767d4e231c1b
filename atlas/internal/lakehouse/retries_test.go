package lakehouse

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestCommitRetriesLeftToEngines: Atlas no longer pins
// commit.retry.num-retries=0 on the tables it creates (Spark and Trino read
// it, and failed at their first conflict), and its own commits stay
// exactly once when the table asks engines to retry (the 4 retries of
// Java's default, set explicitly): the same query's batches, replayed by
// two writers at once, each land once, the losers' files removed.
func TestCommitRetriesLeftToEngines(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lh := openTest(t, dir)
	plain, err := lh.CreateTable(ctx, "lakehouse.gold.plain", testSchema, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := plain.Properties()[table.CommitNumRetriesKey]; ok {
		t.Errorf("a new table sets %s=%s: other engines would read it", table.CommitNumRetriesKey, v)
	}

	a := createTestTable(t, lh, CreateOptions{Properties: map[string]string{table.CommitNumRetriesKey: "4", table.CommitMinRetryWaitMsKey: "1", table.CommitMaxRetryWaitMsKey: "5"}})
	b, err := openTest(t, dir).LoadTable(ctx, "gold.events")
	if err != nil {
		t.Fatal(err)
	}
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
