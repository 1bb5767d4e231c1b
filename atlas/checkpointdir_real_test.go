package atlas_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "gocloud.dev/blob/s3blob"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/s3test"
)

// writeEvents writes n JSON events into a new file of dir.
func writeEvents(t *testing.T, dir, file string, from, n int) {
	t.Helper()
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "{\"id\":%d,\"event\":\"click\"}\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNotebookAndCLIShareOneCheckpoint is the fourth failure: with
// ATLAS_CHECKPOINT_ROOT set for the server, a notebook's
// spark.CheckpointDir used the client's own $ATLAS_HOME/checkpoints while
// `atlas run` used the root, so running both appended every row twice. Now
// the client asks the server: one location for one query name, and the
// second run, the CLI's, finds nothing new (3 rows, not 6).
func TestNotebookAndCLIShareOneCheckpoint(t *testing.T) {
	serverHome, clientHome, root := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv(engine.EnvCheckpointRoot, root)
	t.Setenv("ATLAS_HOME", clientHome) // the notebook kernel's own home
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: serverHome}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	spark := connect(t, srv.Addr())
	ctx := context.Background()

	want := filepath.Join(root, "event_windows")
	if got := spark.CheckpointDir("event_windows"); got != want {
		t.Fatalf("client CheckpointDir(event_windows) = %q, want the server's %q", got, want)
	}
	in := t.TempDir()
	writeEvents(t, in, "1.json", 0, 3)
	const table = "lakehouse.gold.shared_events"
	// The notebook's cell.
	q, err := spark.ReadStream().Schema("id bigint, event string").JSON(in).WriteStream().
		QueryName("event_windows").Option("checkpointLocation", spark.CheckpointDir("event_windows")).
		Trigger(atlas.AvailableNow()).ToTable(table)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	// `atlas run`: the engine in the CLI's process, over the same home's
	// catalog, checkpointing by query name under its root.
	cli := engine.Builder().Config(engine.ConfHome, serverHome).GetOrCreate()
	defer cli.Stop()
	if got := cli.CheckpointDir("event_windows"); got != want {
		t.Fatalf("CLI CheckpointDir = %q, want %q", got, want)
	}
	cq, err := cli.ReadStream().Schema("id bigint, event string").JSON(in).WriteStream().
		QueryName("event_windows").Trigger(engine.AvailableNow()).ToTable(table)
	if err != nil {
		t.Fatal(err)
	}
	if err := cq.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	df, err := spark.SQL("SELECT count(*) AS n, count(DISTINCT id) AS d FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(ctx)
	if err != nil || fmt.Sprint(rows) != "[map[d:3 n:3]]" {
		t.Fatalf("after the notebook and the CLI: %v %v, want 3 rows, 3 distinct", rows, err)
	}
}

// TestCheckpointDirKeepsAnS3URL is the fifth failure on real S3
// (MinIO): with the server's root s3://bucket/ck?endpoint=..., the client
// returned s3:/bucket/ck/x (filepath.Join), which the server took as a
// local relative path. Now the URL stays a URL, and the query's commit log
// lands in the bucket under ck/x/.
func TestCheckpointDirKeepsAnS3URL(t *testing.T) {
	s3b := s3test.New(t)
	s3b.SetAWSEnv(t)
	t.Setenv(engine.EnvCheckpointRoot, s3b.BlobURL("ck"))
	t.Chdir(t.TempDir())
	addr, _ := realServer(t)
	spark := connect(t, addr)

	loc := spark.CheckpointDir("s3 query")
	if want := strings.Replace(s3b.BlobURL("ck"), "/ck?", "/ck/s3_query?", 1); loc != want {
		t.Fatalf("CheckpointDir = %q, want %q", loc, want)
	}
	// A session's own spark.sql.streaming.checkpointLocation wins, and
	// stays a URL too.
	other := connect(t, addr)
	if err := other.Conf().Set("spark.sql.streaming.checkpointLocation", "s3://atlas/ck"); err != nil {
		t.Fatal(err)
	}
	if got := other.CheckpointDir("x"); got != "s3://atlas/ck/x" {
		t.Fatalf("CheckpointDir under the session's s3://atlas/ck = %q, want s3://atlas/ck/x", got)
	}
	in := t.TempDir()
	writeEvents(t, in, "1.json", 0, 2)
	q, err := spark.ReadStream().Schema("id bigint, event string").JSON(in).WriteStream().
		Format("memory").QueryName("s3_query").Option("checkpointLocation", loc).Trigger(atlas.AvailableNow()).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	keys := strings.Join(s3b.Keys(t, "ck/s3_query/"), " ")
	if !strings.Contains(keys, "ck/s3_query/commits/0") || !strings.Contains(keys, "ck/s3_query/offsets/0") {
		t.Fatalf("objects under ck/s3_query/: %s; want its offsets and commit log", keys)
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Fatalf("the server wrote locally instead: %v", ents)
	}
}
