package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// Every refused Start names the reason and the fix, and leaves no trace:
// no table in the catalog, no checkpoint directory.
func TestStartRefusesInvalidSinksBeforeAnySideEffect(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.gold")
	ms, err := s.MemoryStream("ev", "event string, ts timestamp")
	if err != nil {
		t.Fatal(err)
	}
	rows := ms.ToDF()
	counts := rows.WithWatermark("ts", "10 minutes").GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).Count()
	const table = "lakehouse.gold.out"
	ck := filepath.Join(home, "ck")

	cases := []struct {
		name  string
		start func() (*engine.StreamingQuery, error)
		want  []string
	}{
		{"delta", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Format("delta").Progress(false).ToTable(table)
		}, []string{`sink format "delta" is not available`, "ToTable(", `Format("console")`}},
		{"unknown format", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Format("parquett").Progress(false).Option("checkpointLocation", ck).Start()
		}, []string{`unknown sink format "parquett"`, `Format("iceberg")`, `Format("memory")`, "ForeachBatch(fn)"}},
		{"kafka format", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Format("kafka").Option("kafka.bootstrap.servers", "127.0.0.1:9092").Option("topic", "t").
				Option("checkpointLocation", ck).Progress(false).Start()
		}, []string{`required attribute 'value' not found among the columns [event ts]`, `Alias("value")`}},
		{"kafka without topic", func() (*engine.StreamingQuery, error) {
			return rows.Select(engine.Col("event").Alias("value")).WriteStream().Format("kafka").
				Option("checkpointLocation", ck).Progress(false).Start()
		}, []string{`topic option required when no 'topic' attribute is present`}},
		{"kafka option", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Option("topic", "events").Progress(false).ToTable(table)
		}, []string{`option "topic" belongs to the kafka sink, not the iceberg sink`, "the iceberg sink takes: checkpointClassification, checkpointId, checkpointLocation, checkpointOwner, eventTimeMaxAheadOfProcessing, holdBeforeCommit, lateRowsTable, path, queryName"}},
		{"delta option", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Option("mergeSchema", "true").Progress(false).ToTable(table)
		}, []string{`option "mergeSchema" belongs to Spark's delta sink, which is not available`}},
		{"console option on iceberg", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Option("numRows", 5).Progress(false).ToTable(table)
		}, []string{`option "numRows" belongs to the console sink, not the iceberg sink`}},
		{"update mode into iceberg", func() (*engine.StreamingQuery, error) {
			return counts.WriteStream().OutputMode("update").Progress(false).ToTable(table)
		}, []string{"output mode update is not supported by the iceberg sink", "MERGE INTO"}},
		{"late rows without aggregation", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Option("lateRowsTable", table+"_late").Progress(false).ToTable(table)
		}, []string{"late rows exist only for an aggregation with a watermark", "WithWatermark"}},
		{"late rows into the target", func() (*engine.StreamingQuery, error) {
			return counts.WriteStream().Option("lateRowsTable", table).Progress(false).ToTable(table)
		}, []string{"is the query's own target table", table + "_late"}},
		{"late rows in complete mode", func() (*engine.StreamingQuery, error) {
			return counts.WriteStream().OutputMode("complete").Option("lateRowsTable", table+"_late").Progress(false).ToTable(table)
		}, []string{"append or update mode"}},
		{"no checkpoint", func() (*engine.StreamingQuery, error) {
			return counts.WriteStream().Option("lateRowsTable", table+"_late").Progress(false).
				ForeachBatch(func(*engine.DataFrame, int64) error { return nil }).Start()
		}, []string{"checkpointLocation must be specified", "QueryName("}},
		{"eventTimeMaxAheadOfProcessing not a duration", func() (*engine.StreamingQuery, error) {
			return counts.WriteStream().Option("eventTimeMaxAheadOfProcessing", "soon").Progress(false).ToTable(table)
		}, []string{`eventTimeMaxAheadOfProcessing "soon"`, `"1 hour"`}},
		{"eventTimeMaxAheadOfProcessing without watermark", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Option("eventTimeMaxAheadOfProcessing", "1 hour").Progress(false).ToTable(table)
		}, []string{`eventTimeMaxAheadOfProcessing "1 hour"`, "WithWatermark"}},
		{"query name ..", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Format("parquet").Option("path", filepath.Join(home, "out")).QueryName("..").Progress(false).Start()
		}, []string{`queryName ".."`, `cannot be "." or contain ".."`}},
		{"query name with ..", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().QueryName("a/../../b").Progress(false).ToTable(table)
		}, []string{`queryName "a/../../b"`}},
		{"bad console option", func() (*engine.StreamingQuery, error) {
			return rows.WriteStream().Format("console").Option("numRows", -1).Option("checkpointLocation", ck).Progress(false).Start()
		}, []string{"numRows must be a non-negative integer"}},
	}
	for _, c := range cases {
		q, err := c.start()
		if err == nil {
			q.Stop()
			t.Errorf("%s: Start succeeded", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error misses %q: %v", c.name, w, err)
			}
		}
		if tables := render(rowsOf(t, mustSQL(t, s, "SHOW TABLES IN lakehouse.gold")), "tableName"); len(tables) != 0 {
			t.Fatalf("%s: the refused Start created %v", c.name, tables)
		}
		for _, dir := range []string{ck, filepath.Join(home, "checkpoints")} {
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("%s: the refused Start created the checkpoint directory %s (%v)", c.name, dir, err)
			}
		}
	}
}
