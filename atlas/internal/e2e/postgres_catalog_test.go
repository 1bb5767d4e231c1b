package e2e_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	// The "pgx" driver, as atlas/drivers links it for the CLI and the
	// drivers-tagged kernel (the AWS SDK it also links is not needed here).
	_ "github.com/jackc/pgx/v5/stdlib"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/pgtest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// The scenarios and concurrent writers through the SQL catalog on a real
// PostgreSQL (ATLAS_TEST_POSTGRES_URI; CI starts one, see .ci/postgres.sh).
// Each test gets a schema of its own; the warehouse stays local.

// newPostgresEnv is newEnv with the catalog on PostgreSQL, configured as a
// user does: the catalog URI alone.
func newPostgresEnv(t *testing.T) (*env, string) {
	t.Helper()
	uri := pgtest.URI(t)
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).Config(engine.ConfKafkaBrokers, b.Addr()).
		Config(engine.ConfCatalogURI, uri).GetOrCreate()
	t.Cleanup(s.Stop)
	return &env{t: t, brokers: b.Addr(), home: home, session: s}, uri
}

// assertInPostgres checks, by reading PostgreSQL directly, that the catalog
// recorded the tables there, and that no embedded sqlite catalog was made.
func assertInPostgres(t *testing.T, e *env, uri string, tables ...string) {
	t.Helper()
	got := pgtest.Tables(t, uri)
	for _, name := range tables {
		if !got[name] {
			t.Errorf("PostgreSQL's iceberg_tables lacks %s (it holds %v)", name, got)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, "catalog")); err == nil {
		t.Errorf("an embedded catalog directory appeared under %s: the session did not use PostgreSQL", e.home)
	}
}

// TestPostgresCatalogEventWindows runs scenario 1 (windowed counts with a
// watermark, late rows kept) through the PostgreSQL catalog: the table
// equals the reference recomputed from the Kafka records.
func TestPostgresCatalogEventWindows(t *testing.T) {
	e, uri := newPostgresEnv(t)
	cfg := produce.EventsConfig{Topic: "events", Count: 6000, Seed: 17, Span: time.Hour, OutOfOrder: 0.1, Late: 0.03, Malformed: 0.005}
	e.produceEvents(cfg)
	q := runEvents(t, e, 1000, "run")
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	progress := q.RecentProgress()
	if len(progress) < 6 {
		t.Fatalf("%d batches for %d rows at 1000 a batch, want >= 6", len(progress), cfg.Count)
	}
	want, wantDropped, wantLate := referenceWindows(t, e.readTopic("events"), progress)
	if len(want) == 0 || wantDropped == 0 {
		t.Fatalf("reference has %d windows and %d late rows: the test needs both", len(want), wantDropped)
	}
	diffWindows(t, readWindows(t, e.session), want)
	diffLate(t, readLateRows(t, e.session), wantLate)
	assertInPostgres(t, e, uri, "gold.event_windows", "gold.event_windows_late")
}

// TestPostgresCatalogCDCScenario runs scenario 2 (the MERGE of a change
// stream) as `atlas run cdc` does, twice from one checkpoint, through the
// PostgreSQL catalog: the table equals the Kafka-order reference and the
// second run merges nothing.
func TestPostgresCatalogCDCScenario(t *testing.T) {
	e, uri := newPostgresEnv(t)
	cfg := cdcConfig(23)
	e.produceCDC(cfg)
	opts := scenarios.CDCOptions{MaxOffsetsPerTrigger: 300, Checkpoint: filepath.Join(e.home, "ck", "cdc"), Trigger: engine.AvailableNow()}
	var first scenarios.MergeTotals
	q, err := scenarios.StartOnlineRetailCDC(e.session, opts, &first)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	want := referenceCDC(t, e.readCDCTopic(cfg.Count))
	if len(want) == 0 {
		t.Fatal("empty reference")
	}
	diffCDC(t, readCDCTable(t, e.session), want)
	if s := first.Snapshot(); s.Batches < 4 || s.Inserted-s.Deleted != int64(len(want)) {
		t.Fatalf("first run: %s; want >= 4 merges and inserted-deleted = %d live keys", first.String(), len(want))
	}
	var second scenarios.MergeTotals
	q, err = scenarios.StartOnlineRetailCDC(e.session, opts, &second)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if s := second.Snapshot(); s.Affected != 0 {
		t.Fatalf("second run from the same checkpoint: %s; want nothing", second.String())
	}
	diffCDC(t, readCDCTable(t, e.session), want)
	assertInPostgres(t, e, uri, "silver.online_retail_cdc")
}

// TestPostgresCatalogConcurrentWriters: two sessions (two catalog clients
// on one PostgreSQL catalog) append different batches to one table at the
// same time, exactly-once keyed by their query ids. Every row lands once,
// each batch is one snapshot, and each writer's last batch is recorded.
func TestPostgresCatalogConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	uri := pgtest.URI(t)
	home := t.TempDir()
	open := func() *lakehouse.Table {
		s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).Config(engine.ConfCatalogURI, uri).GetOrCreate()
		t.Cleanup(s.Stop)
		lh, err := s.Lakehouse(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := lh.EnsureNamespaces(ctx, "silver"); err != nil {
			t.Fatal(err)
		}
		tbl, err := lh.LoadTable(ctx, "lakehouse.silver.two_writers")
		if err != nil {
			tbl, err = lh.CreateTable(ctx, "lakehouse.silver.two_writers", kvSchema, lakehouse.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	a := open()
	b := open()
	const batches, per = 10, 25
	want := map[int64]string{}
	ids := func(base, batch int64) []int64 {
		var out []int64
		for i := range int64(per) {
			out = append(out, base+batch*per+i)
		}
		return out
	}
	writer := func(tbl *lakehouse.Table, query string, base int64) error {
		for i := range int64(batches) {
			rec := kvRecord(ids(base, i), func(int64) string { return query })
			_, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{rec}, lakehouse.Commit{QueryID: query, BatchID: i})
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	for i := range int64(batches) {
		for _, id := range ids(0, i) {
			want[id] = "qa"
		}
		for _, id := range ids(100_000, i) {
			want[id] = "qb"
		}
	}
	var wg sync.WaitGroup
	var ea, eb error
	wg.Go(func() { ea = writer(a, "qa", 0) })
	wg.Go(func() { eb = writer(b, "qb", 100_000) })
	wg.Wait()
	if ea != nil || eb != nil {
		t.Fatalf("writers: %v / %v", ea, eb)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := kvRows(t, recs) // fails on a key held twice
	for _, r := range recs {
		r.Release()
	}
	if !maps.Equal(got, want) {
		t.Fatalf("the table holds %d rows, the two writers wrote %d distinct ones", len(got), len(want))
	}
	if n := len(a.Snapshots()); n != 2*batches {
		t.Errorf("%d snapshots, want one per batch: %d", n, 2*batches)
	}
	for _, q := range []string{"qa", "qb"} {
		if last, ok, err := b.LastCommittedBatch(ctx, q); last != batches-1 || !ok || err != nil {
			t.Errorf("LastCommittedBatch(%s) = %d %v %v, want %d", q, last, ok, err, batches-1)
		}
	}
	if !pgtest.Tables(t, uri)["silver.two_writers"] {
		t.Error("PostgreSQL's iceberg_tables lacks silver.two_writers")
	}
}
