package atlas_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// change is one produced record: key k gets value v at time ts.
type change struct {
	k  string
	v  int64
	ts time.Time
}

// kafkaServer starts an in-process Kafka broker holding changes in topic
// "changes" and an Atlas Connect server reading from it.
func kafkaServer(t *testing.T, n int) (addr, home string, changes []change) {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "changes"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	brokers := strings.Join(cluster.ListenAddrs(), ",")
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var recs []*kgo.Record
	for i := range n {
		c := change{k: fmt.Sprintf("key-%02d", (i*7)%23), v: int64(i), ts: t0.Add(time.Duration(i) * time.Second)}
		changes = append(changes, c)
		recs = append(recs, &kgo.Record{Topic: "changes", Value: fmt.Appendf(nil, `{"k":%q,"v":%d,"ts":%q}`, c.k, c.v, c.ts.Format(time.RFC3339))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	home = t.TempDir()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home, engine.ConfKafkaBrokers: brokers}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv.Addr(), home, changes
}

// changeStream is the cell code: the topic parsed into k, v, ts.
func changeStream(spark *atlas.Session) *atlas.DataFrame {
	return spark.ReadStream().Format("kafka").
		Option("subscribe", "changes").
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 100).
		Load().
		SelectExpr("CAST(value AS STRING) AS json").
		Select(atlas.FromJSON(atlas.Col("json"), "k string, v bigint, ts timestamp").Alias("c")).
		Select("c.*")
}

const mergeLatest = `MERGE INTO lakehouse.lab.latest t USING updates u ON t.k = u.k
WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`

// upsert appends every change of the batch to the log table and merges the
// latest change per key into the latest table: two writes per batch. When
// afterWrites is set, it runs after the writes, before the batch is answered.
func upsert(spark *atlas.Session, batches *[]int64, afterWrites func(id int64)) func(*atlas.DataFrame, int64) error {
	return func(batch *atlas.DataFrame, id int64) error {
		*batches = append(*batches, id)
		if err := batch.CreateOrReplaceTempView("batch"); err != nil {
			return err
		}
		if _, err := spark.SQL("INSERT INTO lakehouse.lab.log SELECT k, v FROM batch"); err != nil {
			return err
		}
		if err := batch.LatestPerKey([]string{"k"}, "ts").CreateOrReplaceTempView("updates"); err != nil {
			return err
		}
		if _, err := spark.SQL(mergeLatest); err != nil {
			return err
		}
		if afterWrites != nil {
			afterWrites(id)
		}
		return nil
	}
}

func TestForeachBatchMergeExactlyOnceAcrossADisconnectedClient(t *testing.T) {
	addr, home, changes := kafkaServer(t, 640)
	checkpoint := filepath.Join(home, "checkpoints", "lab")
	ctx := context.Background()

	// Cell 1: create the tables, start the query; the client goes away
	// inside batch 2, after both writes, before answering.
	cell1 := atlas.Builder().Remote("sc://" + addr).GetOrCreate()
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.lab",
		"CREATE TABLE lakehouse.lab.log (k string, v bigint) USING iceberg",
		"CREATE TABLE lakehouse.lab.latest (k string, v bigint, ts timestamp) USING iceberg",
	} {
		if _, err := cell1.SQL(q); err != nil {
			t.Fatal(err)
		}
	}
	var run1 []int64
	q1, err := changeStream(cell1).WriteStream().QueryName("lab").Progress(false).
		Option("checkpointLocation", checkpoint).
		Trigger(atlas.AvailableNow()).
		ForeachBatch(upsert(cell1, &run1, func(id int64) {
			if id == 2 {
				cell1.Close() // the cell's process dies here
			}
		})).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q1.AwaitTermination(); err == nil {
		t.Fatal("the first run ended without an error although its client went away")
	}
	if fmt.Sprint(run1) != "[0 1 2]" {
		t.Fatalf("first run saw batches %v, want [0 1 2]", run1)
	}

	// Cell 2: a new client reruns the query from its checkpoint.
	cell2 := connect(t, addr)
	run2 := rerunLab(t, cell2, checkpoint, 10*time.Second)
	if len(run2) == 0 || run2[0] != 2 {
		t.Fatalf("the rerun saw batches %v: it must replay batch 2, which was never answered", run2)
	}

	// Reference from the raw records: every change once in the log, the
	// last change per key in latest.
	logRows, err := cell2.Table("lakehouse.lab.log").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range logRows {
		seen[fmt.Sprintf("%s/%d", r["k"], r["v"])]++
	}
	for _, c := range changes {
		if n := seen[fmt.Sprintf("%s/%d", c.k, c.v)]; n != 1 {
			t.Errorf("change %s/%d is in the log %d times, want once", c.k, c.v, n)
		}
	}
	if len(logRows) != len(changes) {
		t.Errorf("log holds %d rows, want %d", len(logRows), len(changes))
	}
	want := map[string]change{}
	for _, c := range changes {
		want[c.k] = c
	}
	latest, err := cell2.Table("lakehouse.lab.latest").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(latest) != len(want) {
		t.Errorf("latest holds %d rows, want %d keys", len(latest), len(want))
	}
	for _, r := range latest {
		w := want[r["k"].(string)]
		if r["v"] != w.v || !r["ts"].(time.Time).Equal(w.ts) {
			t.Errorf("latest %v, want v=%d ts=%s", r, w.v, w.ts)
		}
	}
}

func TestForeachBatchErrorFailsTheQueryOnTheServer(t *testing.T) {
	addr, _, _ := kafkaServer(t, 50)
	spark := connect(t, addr)
	q, err := changeStream(spark).WriteStream().QueryName("failing").Progress(false).Trigger(atlas.AvailableNow()).
		ForeachBatch(func(*atlas.DataFrame, int64) error { return errors.New("no room") }).Start()
	if err != nil {
		t.Fatal(err)
	}
	err = q.AwaitTermination()
	if err == nil || !strings.Contains(err.Error(), "foreachBatch, batch 0: no room") {
		t.Fatalf("AwaitTermination = %v", err)
	}
	// A batch DataFrame is refused: foreachBatch needs a stream.
	_, err = spark.Table("nope").WriteStream().ForeachBatch(func(*atlas.DataFrame, int64) error { return nil }).Start()
	if err == nil {
		t.Fatal("foreachBatch on a batch DataFrame started")
	}
}

func TestForeachBatchQueryIsInTheSessionsManager(t *testing.T) {
	addr, home, changes := kafkaServer(t, 300)
	spark := connect(t, addr)
	other := atlas.Builder().Remote("sc://" + addr + "/;session_id=" + spark.SessionID()).GetOrCreate()
	defer other.Close()
	var rows int64
	var listed []string
	// The live view stays on: AwaitTermination polls the query's progress.
	q, err := changeStream(spark).WriteStream().QueryName("watched").
		Option("checkpointLocation", filepath.Join(home, "ck", "watched")).
		Trigger(atlas.AvailableNow()).
		ForeachBatch(func(batch *atlas.DataFrame, id int64) error {
			n, err := batch.Count(context.Background())
			rows += n
			if id == 1 {
				active, aerr := other.Streams().Active()
				if aerr != nil {
					return aerr
				}
				for _, a := range active {
					listed = append(listed, a.Name())
				}
			}
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(listed) != "[watched]" {
		t.Fatalf("another connection of the session listed %v while the query ran", listed)
	}
	if rows != int64(len(changes)) {
		t.Fatalf("the batches held %d rows, want %d", rows, len(changes))
	}
	tot := q.Totals()
	if tot.InputRows != int64(len(changes)) || tot.Batches != 3 {
		t.Fatalf("totals %+v, want 3 batches of %d rows in all", tot, len(changes))
	}
}

// TestForeachBatchProgressCarriesTheBatchWrites: each micro-batch's
// progress (sink.metrics, as Spark's SinkProgress.metrics) carries the
// table writes the client's function made in it, so the live view can
// chart them: two writes per batch, rows inserted = the batch's changes
// (the INSERT into the log) plus its keys not seen before (the MERGE),
// rows updated = its keys seen in earlier batches, computed here from the
// produced changes.
func TestForeachBatchProgressCarriesTheBatchWrites(t *testing.T) {
	addr, home, changes := kafkaServer(t, 230)
	spark := connect(t, addr)
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.lab",
		"CREATE TABLE lakehouse.lab.log (k string, v bigint) USING iceberg",
		"CREATE TABLE lakehouse.lab.latest (k string, v bigint, ts timestamp) USING iceberg",
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatal(err)
		}
	}
	var batches []int64
	q, err := changeStream(spark).WriteStream().QueryName("writes").Progress(false).
		Option("checkpointLocation", filepath.Join(home, "checkpoints", "writes")).
		Trigger(atlas.AvailableNow()).
		ForeachBatch(upsert(spark, &batches, nil)).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	// The reference: batches of 100 changes (maxOffsetsPerTrigger).
	type want struct{ inserted, updated int64 }
	var wants []want
	seen := map[string]bool{}
	for start := 0; start < len(changes); start += 100 {
		batch := changes[start:min(start+100, len(changes))]
		w := want{inserted: int64(len(batch))}
		keys := map[string]bool{}
		for _, c := range batch {
			keys[c.k] = true
		}
		for k := range keys {
			if seen[k] {
				w.updated++
			} else {
				w.inserted++
			}
			seen[k] = true
		}
		wants = append(wants, w)
	}
	ps := q.RecentProgress()
	if len(ps) != len(wants) {
		t.Fatalf("%d progress reports, want %d batches", len(ps), len(wants))
	}
	for i, p := range ps {
		got := want{inserted: p.SinkMetric(progress.SinkNumInsertedRows), updated: p.SinkMetric(progress.SinkNumUpdatedRows)}
		if got != wants[i] || p.SinkMetric(progress.SinkNumWrites) != 2 || p.SinkMetric(progress.SinkNumDeletedRows) != 0 ||
			p.Sink.Metrics[progress.SinkWriteTimeMs] == "" {
			t.Errorf("batch %d: sink metrics %v, want 2 writes, %d inserted, %d updated, 0 deleted, a write time",
				p.BatchID, p.Sink.Metrics, wants[i].inserted, wants[i].updated)
		}
	}
}

// rerunLab starts the "lab" foreachBatch query again from checkpoint in
// cell, AvailableNow, retrying for up to wait while the server is still
// stopping the previous run (its name is in use until then), and returns
// the batch ids the rerun's function saw.
func rerunLab(t *testing.T, cell *atlas.Session, checkpoint string, wait time.Duration) []int64 {
	t.Helper()
	var run []int64
	var q *atlas.StreamingQuery
	var err error
	deadline := time.Now().Add(wait)
	for {
		q, err = changeStream(cell).WriteStream().QueryName("lab").Progress(false).
			Option("checkpointLocation", checkpoint).
			Trigger(atlas.AvailableNow()).
			ForeachBatch(upsert(cell, &run, nil)).Start()
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestTotalsCountEveryBatchOfTheRun: a run of more micro-batches than
// recentProgress keeps (100) that no client watched still reports all of
// them. One partition of 12,345 records read 100 at a time is 124 batches;
// the client sums nothing itself (no live view, no AwaitTermination), so
// the totals must be the server's.
func TestTotalsCountEveryBatchOfTheRun(t *testing.T) {
	const n, perTrigger = 12_345, 100
	addr, home, _ := kafkaServer(t, n)
	spark := connect(t, addr)
	q, err := changeStream(spark).WriteStream().Format("memory").QueryName("all_batches").Progress(false).
		Option("checkpointLocation", filepath.Join(home, "ck", "all_batches")).
		Trigger(atlas.AvailableNow()).Start()
	if err != nil {
		t.Fatal(err)
	}
	for q.IsActive() {
		time.Sleep(20 * time.Millisecond)
	}
	if err := q.Exception(); err != nil {
		t.Fatal(err)
	}
	want := atlas.QueryTotals{Batches: (n + perTrigger - 1) / perTrigger, InputRows: n, OutputRows: n}
	if got := q.Totals(); got != want {
		t.Fatalf("totals %+v, want %+v", got, want)
	}
}
