package drivers_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/s3test"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// The lakehouse on a real S3 server (MinIO in CI: ATLAS_TEST_S3_ENDPOINT),
// configured as a user does: ATLAS_WAREHOUSE=s3://..., ATLAS_CATALOG_PROPS
// for the endpoint and credentials, an s3:// checkpointLocation.

const s3Table = "lakehouse.bronze.s3_events"

// produceValues writes values to topic, returning them as the reference.
func produceValues(t *testing.T, broker, topic string, from, n int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var want []string
	for i := from; i < from+n; i++ {
		v := fmt.Sprintf(`{"id":%d,"user":"u%d"}`, i, i%7)
		want = append(want, v)
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// runToS3 streams the topic into s3Table from the S3 checkpoint until no
// record is left, 100 records a batch.
func runToS3(t *testing.T, s *engine.Session, checkpoint string) []engine.StreamingQueryProgress {
	t.Helper()
	q, err := s.ReadStream().Format("kafka").
		Option("subscribe", "events").
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 100).
		Load().
		SelectExpr("CAST(value AS STRING) AS v").
		WriteStream().
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", checkpoint).
		Progress(false).
		ToTable(s3Table)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	return q.RecentProgress()
}

// tableValues reads s3Table's v column, sorted.
func tableValues(t *testing.T, s *engine.Session) []string {
	t.Helper()
	rows, err := s.Table(s3Table).Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r["v"].(string))
	}
	slices.Sort(out)
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// count counts the keys with the suffix.
func count(keys []string, suffix string) int {
	n := 0
	for _, k := range keys {
		if strings.HasSuffix(k, suffix) {
			n++
		}
	}
	return n
}

// TestS3WarehouseStreamCompactExpire streams Kafka records into a table
// whose warehouse and checkpoint are on S3, restarts the query from the S3
// checkpoint after more records arrive, then compacts the table and
// expires its old snapshots. At each step the table holds exactly the
// records produced, and the bucket, listed with the AWS SDK, holds the
// checkpoint logs and the data files the table's state implies.
func TestS3WarehouseStreamCompactExpire(t *testing.T) {
	ctx := context.Background()
	b := s3test.New(t)
	b.SetAWSEnv(t)
	broker, err := stack.NewBroker(stack.BrokerOptions{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	if err := stack.EnsureTopic(ctx, []string{broker.Addr()}, "events", 2); err != nil {
		t.Fatal(err)
	}
	t.Setenv(lakehouse.EnvCatalogType, "")
	t.Setenv(lakehouse.EnvCatalogURI, "")
	t.Setenv(lakehouse.EnvWarehouse, "s3://"+b.Name+"/warehouse")
	t.Setenv(lakehouse.EnvCatalogProps, b.CatalogProps())
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).Config(engine.ConfKafkaBrokers, broker.Addr()).GetOrCreate()
	defer s.Stop()
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := lh.EnsureNamespaces(ctx, "bronze"); err != nil {
		t.Fatal(err)
	}
	checkpoint := b.BlobURL("checkpoints/s3_events")

	// A first run, then a restart from the S3 checkpoint: each record once.
	want := produceValues(t, broker.Addr(), "events", 0, 450)
	first := runToS3(t, s, checkpoint)
	if len(first) < 4 {
		t.Fatalf("%d batches for 450 records at 100 a batch", len(first))
	}
	want = append(want, produceValues(t, broker.Addr(), "events", 450, 250)...)
	second := runToS3(t, s, checkpoint)
	if len(second) < 2 || second[0].BatchID != first[len(first)-1].BatchID+1 {
		t.Fatalf("the restart ran batches %d.., want it to continue after batch %d", second[0].BatchID, first[len(first)-1].BatchID)
	}
	if got := tableValues(t, s); !slices.Equal(got, sortedCopy(want)) {
		t.Fatalf("after two runs the table holds %d rows, %d were produced (or they differ)", len(got), len(want))
	}
	ck := b.Keys(t, "checkpoints/s3_events/")
	batches := len(first) + len(second)
	for _, log := range []string{"offsets/", "commits/"} {
		if n := count(prefixed(ck, "checkpoints/s3_events/"+log), ""); n != batches {
			t.Errorf("the S3 checkpoint holds %d %s entries, the query ran %d batches: %v", n, log, batches, ck)
		}
	}

	// Compaction: one data file holds every row.
	tbl, err := lh.LoadTable(ctx, s3Table)
	if err != nil {
		t.Fatal(err)
	}
	dataPrefix := "warehouse/bronze.db/s3_events/data/"
	if n := count(b.Keys(t, dataPrefix), ".parquet"); n != batches {
		t.Fatalf("%d data files in the bucket before compaction, want one per batch (%d)", n, batches)
	}
	res, err := tbl.Compact(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesRemoved != batches || res.FilesAdded != 1 || res.Rows != int64(len(want)) {
		t.Fatalf("compaction %+v, want %d files of %d rows into 1", res, batches, len(want))
	}
	if got := tableValues(t, s); !slices.Equal(got, sortedCopy(want)) {
		t.Fatal("compaction changed the rows")
	}

	// Expiry: only the compacted snapshot stays, and the files only the
	// expired snapshots referenced leave the bucket.
	removed, err := tbl.ExpireSnapshots(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if removed != batches {
		t.Fatalf("expiry removed %d snapshots, want %d (one per batch; the compaction's stays)", removed, batches)
	}
	if n := count(b.Keys(t, dataPrefix), ".parquet"); n != 1 {
		t.Fatalf("%d data files in the bucket after expiry, want the compacted one", n)
	}
	if got := tableValues(t, s); !slices.Equal(got, sortedCopy(want)) {
		t.Fatal("expiry changed the rows")
	}
}

// prefixed keeps the keys under prefix.
func prefixed(keys []string, prefix string) []string {
	var out []string
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// TestS3CheckpointLeaseRefusesASecondQuery: two queries on one S3
// checkpoint used to both run batches. While the first runs, the second is
// refused at Start naming the holder; once the first stops, its lease is
// released and the second resumes where it left off, each record once.
func TestS3CheckpointLeaseRefusesASecondQuery(t *testing.T) {
	ctx := context.Background()
	b := s3test.New(t)
	b.SetAWSEnv(t)
	broker, err := stack.NewBroker(stack.BrokerOptions{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	if err := stack.EnsureTopic(ctx, []string{broker.Addr()}, "events", 2); err != nil {
		t.Fatal(err)
	}
	t.Setenv(lakehouse.EnvCatalogType, "")
	t.Setenv(lakehouse.EnvCatalogURI, "")
	t.Setenv(lakehouse.EnvWarehouse, "s3://"+b.Name+"/warehouse")
	t.Setenv(lakehouse.EnvCatalogProps, b.CatalogProps())
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).Config(engine.ConfKafkaBrokers, broker.Addr()).GetOrCreate()
	defer s.Stop()
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := lh.EnsureNamespaces(ctx, "bronze"); err != nil {
		t.Fatal(err)
	}
	checkpoint := b.BlobURL("checkpoints/shared")
	want := produceValues(t, broker.Addr(), "events", 0, 300)
	// A second session stands for a second process: one session refuses a
	// second active query of the same name before the lease is asked.
	s2 := engine.Builder().AppName(t.Name()+"-2").Config(engine.ConfHome, t.TempDir()).Config(engine.ConfKafkaBrokers, broker.Addr()).GetOrCreate()
	defer s2.Stop()
	start := func(s *engine.Session, trigger engine.Trigger) (*engine.StreamingQuery, error) {
		return s.ReadStream().Format("kafka").
			Option("subscribe", "events").
			Option("startingOffsets", "earliest").
			Option("maxOffsetsPerTrigger", 100).
			Load().
			SelectExpr("CAST(value AS STRING) AS v").
			WriteStream().
			Trigger(trigger).
			Option("checkpointLocation", checkpoint).
			Progress(false).
			ToTable(s3Table)
	}
	first, err := start(s, engine.ProcessingTime("50 milliseconds"))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	second, err := start(s2, engine.AvailableNow())
	if err == nil {
		second.Stop()
		t.Fatal("a second query started on the S3 checkpoint the first one runs on")
	}
	if !strings.Contains(err.Error(), "is held by process "+fmt.Sprint(os.Getpid())) {
		t.Fatalf("second query: %v, want a refusal naming the holder (this process)", err)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	want = append(want, produceValues(t, broker.Addr(), "events", 300, 150)...)
	second, err = start(s, engine.AvailableNow())
	if err != nil {
		t.Fatalf("after the first query stopped: %v", err)
	}
	if err := second.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if got := tableValues(t, s); !slices.Equal(got, sortedCopy(want)) {
		t.Fatalf("the table holds %d rows, %d were produced (or they differ)", len(got), len(want))
	}
	if leases := b.Keys(t, "checkpoints/shared/_lease/"); len(leases) == 0 {
		t.Fatal("no lease object in the S3 checkpoint")
	}
}

// TestS3CheckpointRootFromCatalogSettings: with ATLAS_CHECKPOINT_ROOT on
// S3, a query named with QueryName keeps its checkpoint there, reached
// with the catalog's S3 settings (ATLAS_CATALOG_PROPS: endpoint and
// credentials) and no AWS_* variable; a restart resumes from it.
func TestS3CheckpointRootFromCatalogSettings(t *testing.T) {
	ctx := context.Background()
	b := s3test.New(t)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	broker, err := stack.NewBroker(stack.BrokerOptions{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	if err := stack.EnsureTopic(ctx, []string{broker.Addr()}, "events", 2); err != nil {
		t.Fatal(err)
	}
	t.Setenv(lakehouse.EnvCatalogType, "")
	t.Setenv(lakehouse.EnvCatalogURI, "")
	t.Setenv(lakehouse.EnvWarehouse, "s3://"+b.Name+"/warehouse")
	t.Setenv(lakehouse.EnvCatalogProps, b.CatalogProps())
	t.Setenv(engine.EnvCheckpointRoot, "s3://"+b.Name+"/checkpoints/")
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).Config(engine.ConfKafkaBrokers, broker.Addr()).GetOrCreate()
	defer s.Stop()
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := lh.EnsureNamespaces(ctx, "bronze"); err != nil {
		t.Fatal(err)
	}
	run := func() []engine.StreamingQueryProgress {
		q, err := s.ReadStream().Format("kafka").
			Option("subscribe", "events").
			Option("startingOffsets", "earliest").
			Option("maxOffsetsPerTrigger", 100).
			Load().
			SelectExpr("CAST(value AS STRING) AS v").
			WriteStream().
			QueryName("root_events").
			Trigger(engine.AvailableNow()).
			Progress(false).
			ToTable(s3Table)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := q.CheckpointLocation(), "s3://"+b.Name+"/checkpoints/root_events"; got != want {
			t.Fatalf("checkpoint %s, want %s", got, want)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
		return q.RecentProgress()
	}
	want := produceValues(t, broker.Addr(), "events", 0, 250)
	first := run()
	want = append(want, produceValues(t, broker.Addr(), "events", 250, 120)...)
	second := run()
	if len(second) == 0 || second[0].BatchID != first[len(first)-1].BatchID+1 {
		t.Fatalf("the restart did not continue after batch %d", first[len(first)-1].BatchID)
	}
	if got := tableValues(t, s); !slices.Equal(got, sortedCopy(want)) {
		t.Fatalf("the table holds %d rows, %d were produced (or they differ)", len(got), len(want))
	}
	keys := b.Keys(t, "checkpoints/root_events/")
	if n := len(prefixed(keys, "checkpoints/root_events/commits/")); n != len(first)+len(second) {
		t.Fatalf("%d commits in the S3 checkpoint root, the query ran %d batches: %v", n, len(first)+len(second), keys)
	}
}
