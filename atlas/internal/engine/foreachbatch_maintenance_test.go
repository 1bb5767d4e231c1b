package engine_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// TestForeachBatchProgressShowsMaintenance: a foreachBatch query that
// INSERTs every micro-batch into an Iceberg table (snapshots bounded to 3
// by atlas.history.expire.max-snapshots) gets the automatic maintenance's
// totals for that table in its progress's sink metrics, under the Iceberg
// sink's names, next to its write metrics, and they agree with the
// lakehouse's own record.
func TestForeachBatchProgressShowsMaintenance(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	const table = "lakehouse.silver.fb_maint"
	mustSQL(t, s, "CREATE TABLE "+table+" (v bigint) USING iceberg TBLPROPERTIES ('"+lakehouse.PropMaxSnapshots+"' = '3')")
	ms, err := s.MemoryStream("fbm", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	q, err := ms.ToDF().WriteStream().Option("checkpointLocation", filepath.Join(home, "ck")).Progress(false).
		ForeachBatch(func(batch *engine.DataFrame, _ int64) error {
			if err := batch.CreateOrReplaceTempView("fbm_batch"); err != nil {
				return err
			}
			_, err := s.SQL("INSERT INTO " + table + " SELECT * FROM fbm_batch")
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Stop() })
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	batch := func(v int64) {
		t.Helper()
		if err := ms.AddRows([]any{v}); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
	}
	v := int64(0)
	for deadline := time.Now().Add(60 * time.Second); ; v++ {
		batch(v)
		if st, ok := lh.MaintenanceStats(table); ok && st.SnapshotsExpired > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot expired after %d batches", v+1)
		}
	}
	time.Sleep(200 * time.Millisecond) // let a run in progress end
	batch(v + 1)
	st, _ := lh.MaintenanceStats(table)
	m := q.LastProgress().Sink.Metrics
	if m["numWrites"] != "1" {
		t.Fatalf("sink metrics %v: want the batch's write (numWrites 1)", m)
	}
	if runs, _ := strconv.ParseInt(m["maintenanceRuns"], 10, 64); runs < 1 || runs > st.Runs {
		t.Fatalf("sink metrics %v: maintenanceRuns want 1..%d (the lakehouse's record %+v)", m, st.Runs, st)
	}
	if exp, _ := strconv.ParseInt(m["snapshotsExpired"], 10, 64); exp < 1 || exp > st.SnapshotsExpired {
		t.Fatalf("sink metrics %v: snapshotsExpired want 1..%d", m, st.SnapshotsExpired)
	}
}
