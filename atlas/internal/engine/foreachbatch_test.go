package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestForeachBatchQueriesShareASessionSafely runs two foreachBatch queries
// of one session at once, each inserting its micro-batches into its own
// table from a callback that takes long enough to overlap the other's:
// every snapshot of a table must carry its own query's id and batch ids
// (the exactly-once keys), and each table must hold exactly its stream.
func TestForeachBatchQueriesShareASessionSafely(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	const perStream, batches = 5, 4
	var queries [2]*engine.StreamingQuery
	var wg sync.WaitGroup
	for i := range queries {
		name := fmt.Sprintf("stream%d", i)
		table := fmt.Sprintf("lakehouse.silver.sink%d", i)
		mustSQL(t, s, "CREATE TABLE "+table+" (v bigint) USING iceberg")
		ms, err := s.MemoryStream(name, "v bigint")
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < batches; b++ {
			for k := 0; k < perStream; k++ {
				if err := ms.AddRows([]any{int64(1000*i + 10*b + k)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		view := "batch" + name
		q, err := ms.ToDF().WriteStream().
			Option("checkpointLocation", filepath.Join(home, "ck", name)).
			Trigger(engine.AvailableNow()).
			Progress(false).
			ForeachBatch(func(batch *engine.DataFrame, batchID int64) error {
				if err := batch.CreateOrReplaceTempView(view); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond) // let the other query's callback start
				_, err := s.SQL("INSERT INTO " + table + " SELECT * FROM " + view)
				return err
			}).
			Start()
		if err != nil {
			t.Fatal(err)
		}
		queries[i] = q
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.AwaitTermination(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	lh, err := s.Lakehouse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		table := fmt.Sprintf("lakehouse.silver.sink%d", i)
		tbl, err := lh.LoadTable(context.Background(), table)
		if err != nil {
			t.Fatal(err)
		}
		for _, sn := range tbl.Snapshots() {
			if sn.QueryID() != q.ID() {
				t.Errorf("%s: snapshot keyed by query %q, want %q (query %d's own)", table, sn.QueryID(), q.ID(), i)
			}
		}
		rows := rowsOf(t, s.Table(table))
		seen := map[int64]bool{}
		for _, r := range rows {
			seen[r["v"].(int64)] = true
		}
		if len(rows) != perStream*batches || len(seen) != len(rows) {
			t.Fatalf("%s holds %d rows (%d distinct), want %d", table, len(rows), len(seen), perStream*batches)
		}
		for v := range seen {
			if v/1000 != int64(i) {
				t.Errorf("%s holds %d from the other stream", table, v)
			}
		}
	}
}
