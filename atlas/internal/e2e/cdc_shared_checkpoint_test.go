package e2e_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
)

// cdcServer starts an Atlas server over e's home and broker and returns
// a client session on it, as a notebook cell has.
func cdcServer(t *testing.T, e *env) *atlas.Session {
	t.Helper()
	const token = "atlas-e2e-cdc-token-0123456789abcdef"
	t.Setenv(atlas.EnvConnectToken, token)
	t.Setenv(engine.EnvCheckpointRoot, "")
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: map[string]string{server.OwnerPrincipal: token},
		Conf: map[string]string{engine.ConfHome: e.home, engine.ConfKafkaBrokers: e.brokers}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	spark := atlas.Builder().AppName(t.Name()).Remote("sc://" + srv.Addr()).GetOrCreate()
	t.Cleanup(spark.Close)
	return spark
}

// notebookCDC starts the notebook's pipeline query as its Write cell does:
// the server-side foreachBatch with scenario 2's statements, under the
// query name that names the checkpoint `atlas run cdc` uses.
func notebookCDC(spark *atlas.Session, statements ...string) *atlas.DataStreamWriter {
	return notebookCDCWriter(spark).ForeachBatchSQL(scenarios.CDCBatchView, statements...)
}

// notebookCDCWriter is notebookCDC's query before its foreachBatch.
func notebookCDCWriter(spark *atlas.Session) *atlas.DataStreamWriter {
	return spark.ReadStream().Format("kafka").
		Option("subscribe", scenarios.CDCTopic).
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 200).
		Load().
		SelectExpr("CAST(value AS STRING) AS json").
		Select(atlas.FromJSON(atlas.Col("json"), scenarios.ChangeSchema).Alias("c")).
		Select("c.*").
		WriteStream().
		QueryName(scenarios.CDCQueryName).
		Option("checkpointLocation", spark.CheckpointDir(scenarios.CDCQueryName)).
		Progress(false)
}

// runNotebookCDC runs the notebook's query until it has merged every
// change in the topic, stops it and returns how many records it read.
func runNotebookCDC(t *testing.T, spark *atlas.Session) int64 {
	t.Helper()
	q, err := notebookCDC(spark, scenarios.CDCStatements...).Trigger(atlas.ProcessingTime("50 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	read := q.Totals().InputRows
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	return read
}

// runCLICDC runs scenario 2 as `atlas run cdc` does (its own engine over
// the same home) and returns the records it read and its merge totals.
func runCLICDC(t *testing.T, e *env) (int64, scenarios.MergeTotals) {
	t.Helper()
	var totals scenarios.MergeTotals
	q, err := scenarios.StartOnlineRetailCDC(e.session, scenarios.CDCOptions{MaxOffsetsPerTrigger: 200, Trigger: engine.AvailableNow()}, &totals)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	return q.Totals().InputRows, totals.Snapshot()
}

// TestCDCNotebookAndCLIShareOneCheckpoint runs the CDC notebook's durable
// query (ForeachBatchSQL through the server) and `atlas run cdc`
// (scenarios.StartOnlineRetailCDC, in-process) on one home, alternately,
// with changes arriving in between: whichever runs second reads only what
// the first left, never a record twice, and the table equals the replay
// of the raw Kafka records each time. A start from that checkpoint with a
// different per-batch form (a Go function, other statements, the old Go
// Upsert of the CLI) is refused, naming the recorded form; the table is
// left as it was.
func TestCDCNotebookAndCLIShareOneCheckpoint(t *testing.T) {
	e := newEnv(t)
	spark := cdcServer(t, e)
	first, second := cdcConfig(11), cdcConfig(12)
	e.produceCDC(first)
	mustSQL(t, e.session, scenarios.CreateSilver) // the notebook's Write cell creates it

	if n := runNotebookCDC(t, spark); n != first.Count {
		t.Fatalf("the notebook's query read %d records, the topic holds %d", n, first.Count)
	}
	want := referenceCDC(t, e.readCDCTopic(first.Count))
	diffCDC(t, readCDCTable(t, e.session), want)
	if n, totals := runCLICDC(t, e); n != 0 || totals.Batches != 0 {
		t.Fatalf("atlas run cdc after the notebook read %d records in %d merges; want nothing new", n, totals.Batches)
	}
	diffCDC(t, readCDCTable(t, e.session), want)

	e.produceCDC(second)
	all := first.Count + second.Count
	n, totals := runCLICDC(t, e)
	if n != second.Count || totals.Batches == 0 {
		t.Fatalf("atlas run cdc read %d records in %d merges after %d new ones arrived", n, totals.Batches, second.Count)
	}
	want = referenceCDC(t, e.readCDCTopic(all))
	diffCDC(t, readCDCTable(t, e.session), want)
	if n := runNotebookCDC(t, spark); n != 0 {
		t.Fatalf("the notebook's query read %d records after atlas run cdc had read them all", n)
	}
	diffCDC(t, readCDCTable(t, e.session), want)

	// Other forms on the shared checkpoint: refused, with the recorded one named.
	other := strings.Replace(scenarios.MergeLatestChanges, "max(ts)", "min(ts)", 1)
	for name, start := range map[string]func() error{
		"a Go ForeachBatch function": func() error {
			q, err := notebookCDCWriter(spark).ForeachBatch(func(*atlas.DataFrame, int64) error { return nil }).Start()
			if err == nil {
				q.Stop()
			}
			return err
		},
		"other statements": func() error {
			q, err := notebookCDC(spark, other).Start()
			if err == nil {
				q.Stop()
			}
			return err
		},
	} {
		err := start()
		if err == nil || !strings.Contains(err.Error(), "was started by a server-side foreachBatch") || !strings.Contains(err.Error(), "SQL over the view changes") {
			t.Errorf("%s on the shared checkpoint: %v; want it refused, naming the recorded foreachBatch", name, err)
		}
	}
	var totals2 scenarios.MergeTotals
	_, err := e.session.ReadStream().Format("kafka").Option("subscribe", scenarios.CDCTopic).Load().
		WriteStream().QueryName(scenarios.CDCQueryName).
		ForeachBatch(scenarios.Upsert(e.session, &totals2)).Trigger(engine.AvailableNow()).Start()
	if !errors.Is(err, checkpoint.ErrBatchFormMismatch) {
		t.Errorf("the CLI's old Go Upsert on the shared checkpoint: %v; want ErrBatchFormMismatch", err)
	}
	diffCDC(t, readCDCTable(t, e.session), want)
}
