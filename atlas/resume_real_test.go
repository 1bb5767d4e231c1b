package atlas_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// The tests of this file restart the Atlas Connect server under running
// queries and check the tables against results computed in Go from the
// records produced: every record exactly once across the restart.

// resumeWords are the values produced; group is each word's row in the
// static table lakehouse.shop.groups, and the temp view "groups" keeps
// the words whose group is not "z".
var (
	resumeWords = []string{"alpha", "beta", "gamma", "delta", "omega"}
	wordGroup   = map[string]string{"alpha": "a", "beta": "a", "gamma": "b", "delta": "b", "omega": "z"}
)

// produced is one record as the broker stored it.
type produced struct {
	partition int32
	offset    int64
	word      string
}

// wordsBroker is a Kafka cluster in this process with the topic "clicks"
// of three partitions.
func wordsBroker(t *testing.T) string {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "clicks"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	return strings.Join(cluster.ListenAddrs(), ",")
}

// produceClicks produces n words to "clicks" and returns them with the
// partition and offset the broker gave them.
func produceClicks(t *testing.T, brokers string, n, off int) []produced {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: "clicks", Value: []byte(resumeWords[(i*i+off)%len(resumeWords)])}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	out := make([]produced, n)
	for i, r := range recs {
		out[i] = produced{partition: r.Partition, offset: r.Offset, word: string(r.Value)}
	}
	return out
}

// expectedRaw is the reference of the "raw" query: one row per record
// whose word's group is not "z", with its group.
func expectedRaw(recs []produced) []string {
	var out []string
	for _, r := range recs {
		if g := wordGroup[r.word]; g != "z" {
			out = append(out, fmt.Sprintf("%d/%d %s %s", r.partition, r.offset, r.word, g))
		}
	}
	sort.Strings(out)
	return out
}

// expectedCounts is the reference of the "counts" query: records per word.
func expectedCounts(recs []produced) []string {
	n := map[string]int{}
	for _, r := range recs {
		n[r.word]++
	}
	var out []string
	for w, c := range n {
		out = append(out, fmt.Sprintf("%s %d", w, c))
	}
	sort.Strings(out)
	return out
}

// tableLines reads a table through the client and renders its rows.
func tableLines(t *testing.T, spark *atlas.Session, query string) []string {
	t.Helper()
	df, err := spark.SQL(query)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		if _, ok := r["grp"]; ok {
			out[i] = fmt.Sprintf("%v/%v %v %v", r["partition"], r["offset"], r["word"], r["grp"])
		} else {
			out[i] = fmt.Sprintf("%v %v", r["word"], r["count"])
		}
	}
	sort.Strings(out)
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %d rows, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
}

// syncBuffer is a log the server writes from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startHomeServer starts a server over home and brokers, logging to log;
// it stops at the end of the test unless the test stopped it (Stop is
// idempotent).
func startHomeServer(t *testing.T, home, brokers string, log *syncBuffer) *server.Server {
	t.Helper()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Log: log,
		Conf: map[string]string{engine.ConfHome: home, engine.ConfKafkaBrokers: brokers}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// sessionOn connects a client to addr under session id sid, as a notebook
// cell of that kernel would.
func sessionOn(t *testing.T, addr, sid string) *atlas.Session {
	t.Helper()
	spark := atlas.Builder().Remote("sc://" + addr + "/;session_id=" + sid).GetOrCreate()
	t.Cleanup(spark.Close)
	return spark
}

// clickWords is the stream of words.
func clickWords(spark *atlas.Session) *atlas.DataFrame {
	return spark.ReadStream().Format("kafka").
		Option("subscribe", "clicks").
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 40).
		Load().
		SelectExpr("CAST(value AS STRING) AS word", "partition", "offset")
}

// startRawQuery starts "raw": the words joined with the temp view
// "groups", appended to lakehouse.shop.raw.
func startRawQuery(t *testing.T, spark *atlas.Session, checkpoint string) *atlas.StreamingQuery {
	t.Helper()
	q, err := clickWords(spark).Join(spark.Table("groups"), "word").
		WriteStream().QueryName("raw").Progress(false).
		Option("checkpointLocation", checkpoint).
		Trigger(atlas.ProcessingTime("50 milliseconds")).
		ToTable("lakehouse.shop.raw")
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// setupGroups creates the static table and the temp view the "raw"
// query reads.
func setupGroups(t *testing.T, spark *atlas.Session) {
	t.Helper()
	var vals []string
	for _, w := range resumeWords {
		vals = append(vals, fmt.Sprintf("('%s', '%s')", w, wordGroup[w]))
	}
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.shop",
		"CREATE TABLE lakehouse.shop.groups (word string, grp string) USING iceberg",
		"INSERT INTO lakehouse.shop.groups VALUES " + strings.Join(vals, ", "),
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	if err := spark.Table("lakehouse.shop.groups").Where("grp <> 'z'").CreateOrReplaceTempView("groups"); err != nil {
		t.Fatal(err)
	}
}

// TestQueriesResumeAfterServerRestart: a session's Kafka→Iceberg queries
// (a stream-static join with a temp view, appended; a complete-mode count)
// run when the server goes down as the daemon does on SIGTERM; records
// arrive while it is down; the restarted server runs them again in the
// same session, same ids, from their checkpoints, and the tables hold
// exactly the rows of all records. A memory-sink query of the session is
// not resumed and is reported.
func TestQueriesResumeAfterServerRestart(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	log1 := &syncBuffer{}
	srv1 := startHomeServer(t, home, brokers, log1)
	sid := uuid.NewString()
	cell1 := sessionOn(t, srv1.Addr(), sid)
	setupGroups(t, cell1)
	recs := produceClicks(t, brokers, 300, 0)

	raw := startRawQuery(t, cell1, home+"/ck/raw")
	// No checkpointLocation: the server's default for the name is kept.
	counts, err := clickWords(cell1).GroupBy("word").Count().
		WriteStream().QueryName("counts").OutputMode("complete").Progress(false).
		Trigger(atlas.ProcessingTime("50 milliseconds")).
		ToTable("lakehouse.shop.counts")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := clickWords(cell1).WriteStream().Format("memory").QueryName("mem").Progress(false).Start()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []*atlas.StreamingQuery{raw, counts, mem} {
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
	}
	sameLines(t, "raw before the restart", tableLines(t, cell1, "SELECT * FROM lakehouse.shop.raw"), expectedRaw(recs))
	sameLines(t, "counts before the restart", tableLines(t, cell1, "SELECT * FROM lakehouse.shop.counts"), expectedCounts(recs))

	// The server goes down with the queries running, as on SIGTERM.
	srv1.Stop()
	recs = append(recs, produceClicks(t, brokers, 170, 3)...)

	log2 := &syncBuffer{}
	srv2 := startHomeServer(t, home, brokers, log2)
	t.Cleanup(srv2.Stop)
	rep := srv2.Resumed()
	var resumed []string
	for _, q := range rep.Resumed {
		resumed = append(resumed, q.Name)
	}
	sort.Strings(resumed)
	if strings.Join(resumed, ",") != "counts,raw" {
		t.Fatalf("resumed %v, want counts and raw; log:\n%s", resumed, log2.String())
	}
	if len(rep.NotResumed) != 1 || rep.NotResumed[0].Name != "mem" || !strings.Contains(rep.NotResumed[0].Reason, "memory sink") ||
		rep.NotResumed[0].Record != "" {
		t.Fatalf("not resumed %+v, want the memory query mem, forgotten", rep.NotResumed)
	}
	if !strings.Contains(log2.String(), "streaming query mem (id "+mem.ID()+") not resumed: a memory sink") {
		t.Fatalf("the log does not report the memory query:\n%s", log2.String())
	}

	// A later cell of the same session sees them.
	cell2 := sessionOn(t, srv2.Addr(), sid)
	active, err := cell2.Streams().Active()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*atlas.StreamingQuery{}
	for _, q := range active {
		byName[q.Name()] = q
	}
	if len(active) != 2 || byName["raw"] == nil || byName["counts"] == nil {
		t.Fatalf("active queries %v, want raw and counts", byName)
	}
	for name, before := range map[string]*atlas.StreamingQuery{"raw": raw, "counts": counts} {
		q, err := cell2.Streams().Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if q.ID() != before.ID() || q.RunID() == before.RunID() {
			t.Fatalf("%s resumed with id %s run %s; before: id %s run %s (want the same id, a new run)", name, q.ID(), q.RunID(), before.ID(), before.RunID())
		}
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
		if p := q.LastProgress(); p == nil || p.ID != before.ID() {
			t.Fatalf("%s: last progress %+v", name, p)
		}
	}
	if _, err := cell2.Streams().Get("mem"); err == nil {
		t.Fatal("the memory query runs after the restart")
	}
	sameLines(t, "raw after the restart", tableLines(t, cell2, "SELECT * FROM lakehouse.shop.raw"), expectedRaw(recs))
	sameLines(t, "counts after the restart", tableLines(t, cell2, "SELECT * FROM lakehouse.shop.counts"), expectedCounts(recs))

	// Stopped by the user: the next start resumes nothing.
	for _, q := range active {
		if err := q.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	srv2.Stop()
	srv3 := startHomeServer(t, home, brokers, &syncBuffer{})
	if r := srv3.Resumed(); len(r.Resumed)+len(r.NotResumed) != 0 {
		t.Fatalf("after stop() the next start still has queries: %+v", r)
	}
}

// TestForeachBatchQueryIsReportedNotResumed: a client-side foreachBatch
// query's function lives in the client process, so a restarted server
// cannot run it: it reports it once and forgets it.
func TestForeachBatchQueryIsReportedNotResumed(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	produceClicks(t, brokers, 50, 0)
	srv1 := startHomeServer(t, home, brokers, &syncBuffer{})
	sid := uuid.NewString()
	cell := sessionOn(t, srv1.Addr(), sid)
	var mu sync.Mutex
	seen := 0
	q, err := clickWords(cell).WriteStream().QueryName("fb").Progress(false).
		Option("checkpointLocation", home+"/ck/fb").
		ForeachBatch(func(batch *atlas.DataFrame, _ int64) error {
			n, err := batch.Count(context.Background())
			mu.Lock()
			seen += int(n)
			mu.Unlock()
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	srv1.Stop()

	log2 := &syncBuffer{}
	srv2 := startHomeServer(t, home, brokers, log2)
	rep := srv2.Resumed()
	if len(rep.Resumed) != 0 || len(rep.NotResumed) != 1 || rep.NotResumed[0].Name != "fb" ||
		!strings.Contains(rep.NotResumed[0].Reason, "foreachBatch function runs in the client process") {
		t.Fatalf("report %+v, want fb not resumed", rep)
	}
	if !strings.Contains(log2.String(), "streaming query fb (id "+q.ID()+") not resumed: its foreachBatch") {
		t.Fatalf("the log does not report fb:\n%s", log2.String())
	}
	active, err := sessionOn(t, srv2.Addr(), sid).Streams().Active()
	if err != nil || len(active) != 0 {
		t.Fatalf("active after the restart: %v, %v", active, err)
	}
	srv2.Stop()
	// Reported once: the next start has nothing to say.
	srv3 := startHomeServer(t, home, brokers, &syncBuffer{})
	if r := srv3.Resumed(); len(r.Resumed)+len(r.NotResumed) != 0 {
		t.Fatalf("the second start reports again: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen != 50 {
		t.Fatalf("the function saw %d rows, want 50", seen)
	}
}

// TestUnresumableQueryIsKeptAndRetried: a query whose plan cannot be
// planned again (the table its temp view reads was dropped while it ran)
// is not resumed; the server starts anyway, says why, and keeps the
// record, so the start after the table is back resumes the query, still
// exactly once.
func TestUnresumableQueryIsKeptAndRetried(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	srv1 := startHomeServer(t, home, brokers, &syncBuffer{})
	sid := uuid.NewString()
	cell1 := sessionOn(t, srv1.Addr(), sid)
	setupGroups(t, cell1)
	recs := produceClicks(t, brokers, 120, 0)
	raw := startRawQuery(t, cell1, home+"/ck/raw")
	if err := raw.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	// The running query planned its static side already; a new plan
	// cannot read the table.
	if _, err := cell1.SQL("DROP TABLE lakehouse.shop.groups"); err != nil {
		t.Fatal(err)
	}
	srv1.Stop()
	recs = append(recs, produceClicks(t, brokers, 60, 1)...)

	log2 := &syncBuffer{}
	srv2 := startHomeServer(t, home, brokers, log2)
	rep := srv2.Resumed()
	if len(rep.Resumed) != 0 || len(rep.NotResumed) != 1 {
		t.Fatalf("report %+v, want raw not resumed", rep)
	}
	nr := rep.NotResumed[0]
	if nr.Name != "raw" || nr.ID != raw.ID() || !strings.Contains(nr.Reason, "groups") || nr.Record == "" {
		t.Fatalf("not resumed %+v: want raw, the missing table in the reason, and the record kept", nr)
	}
	if !strings.Contains(log2.String(), "streaming query raw (id "+raw.ID()+") not resumed: ") || !strings.Contains(log2.String(), nr.Record) {
		t.Fatalf("the log does not say why raw is not resumed and where its record is:\n%s", log2.String())
	}
	cell2 := sessionOn(t, srv2.Addr(), sid)
	if active, err := cell2.Streams().Active(); err != nil || len(active) != 0 {
		t.Fatalf("active %v, %v", active, err)
	}
	// The server serves: the table comes back through it.
	setupGroups(t, cell2)
	srv2.Stop()

	log3 := &syncBuffer{}
	srv3 := startHomeServer(t, home, brokers, log3)
	if r := srv3.Resumed(); len(r.Resumed) != 1 || r.Resumed[0].ID != raw.ID() || len(r.NotResumed) != 0 {
		t.Fatalf("the start after the fix: %+v; log:\n%s", r, log3.String())
	}
	cell3 := sessionOn(t, srv3.Addr(), sid)
	q, err := cell3.Streams().Get("raw")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "raw after the retried resume", tableLines(t, cell3, "SELECT * FROM lakehouse.shop.raw"), expectedRaw(recs))
}

// TestFinishedQueryIsNotResumed: an AvailableNow query that finished on
// its own, while the server ran, is forgotten: the next start has nothing
// to resume.
func TestFinishedQueryIsNotResumed(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	produceClicks(t, brokers, 30, 0)
	srv1 := startHomeServer(t, home, brokers, &syncBuffer{})
	cell := sessionOn(t, srv1.Addr(), uuid.NewString())
	if _, err := cell.SQL("CREATE NAMESPACE IF NOT EXISTS lakehouse.shop"); err != nil {
		t.Fatal(err)
	}
	q, err := clickWords(cell).WriteStream().QueryName("once").Progress(false).
		Option("checkpointLocation", home+"/ck/once").
		Trigger(atlas.AvailableNow()).
		ToTable("lakehouse.shop.once")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	// The record goes once the server sees the query end.
	record := server.StateDir(home) + "/queries/" + q.ID() + ".json"
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(record); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the record %s of the finished query is still there", record)
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv1.Stop()
	srv2 := startHomeServer(t, home, brokers, &syncBuffer{})
	if r := srv2.Resumed(); len(r.Resumed)+len(r.NotResumed) != 0 {
		t.Fatalf("a finished query comes back: %+v", r)
	}
}

// TestNewSessionTakesOverAResumedQuery is a notebook whose kernel
// restarted with the server: the server resumed "raw" in the old kernel's
// session, and the new kernel's session (another id) runs the cell that
// starts it again. As Spark's spark.sql.streaming.stopActiveRunOnRestart
// does, the resumed run stops and the new one takes over the checkpoint:
// same query id, and the table holds every record exactly once.
func TestNewSessionTakesOverAResumedQuery(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	srv1 := startHomeServer(t, home, brokers, &syncBuffer{})
	oldKernel := sessionOn(t, srv1.Addr(), uuid.NewString())
	setupGroups(t, oldKernel)
	recs := produceClicks(t, brokers, 150, 0)
	raw := startRawQuery(t, oldKernel, home+"/ck/raw")
	if err := raw.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	srv1.Stop()
	recs = append(recs, produceClicks(t, brokers, 40, 1)...)

	log2 := &syncBuffer{}
	srv2 := startHomeServer(t, home, brokers, log2)
	if r := srv2.Resumed(); len(r.Resumed) != 1 {
		t.Fatalf("resumed %+v", r)
	}
	newKernel := sessionOn(t, srv2.Addr(), uuid.NewString())
	if err := newKernel.Table("lakehouse.shop.groups").Where("grp <> 'z'").CreateOrReplaceTempView("groups"); err != nil {
		t.Fatal(err)
	}
	q := startRawQuery(t, newKernel, home+"/ck/raw")
	if q.ID() != raw.ID() {
		t.Fatalf("the new run has id %s, want the checkpoint's %s", q.ID(), raw.ID())
	}
	recs = append(recs, produceClicks(t, brokers, 40, 2)...)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "raw after the new session took over", tableLines(t, newKernel, "SELECT * FROM lakehouse.shop.raw"), expectedRaw(recs))
	if !strings.Contains(log2.String(), "stopping streaming query raw (id "+raw.ID()) {
		t.Fatalf("the log does not say the resumed run was stopped:\n%s", log2.String())
	}
	old := sessionOn(t, srv2.Addr(), oldKernel.SessionID())
	if active, err := old.Streams().Active(); err != nil || len(active) != 0 {
		t.Fatalf("the old session still runs %v (%v)", active, err)
	}
}

// TestOldClientAfterRestart: a client process that lives through a server
// restart (a script, a CLI, not a notebook cell) gets Spark's
// INVALID_HANDLE.SESSION_CHANGED on its next call, since its temp views
// are gone; yet the StreamingQuery handle it kept stops the query the
// server resumed (same id, a new run), and no later start resumes it.
func TestOldClientAfterRestart(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	srv1 := startHomeServer(t, home, brokers, &syncBuffer{})
	addr := srv1.Addr()
	old := sessionOn(t, addr, uuid.NewString())
	setupGroups(t, old)
	produceClicks(t, brokers, 60, 0)
	raw := startRawQuery(t, old, home+"/ck/raw")
	if err := raw.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	srv1.Stop()

	srv2, err := server.Start(server.Config{Addr: addr, Tokens: testTokens, Log: &syncBuffer{},
		Conf: map[string]string{engine.ConfHome: home, engine.ConfKafkaBrokers: brokers}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv2.Stop)
	if r := srv2.Resumed(); len(r.Resumed) != 1 {
		t.Fatalf("resumed %+v, want raw", r)
	}
	_, err = old.SQL("SELECT * FROM groups")
	if !errors.Is(err, atlas.ErrSessionChanged) {
		t.Fatalf("the old session's next call: %v, want INVALID_HANDLE.SESSION_CHANGED", err)
	}
	if !strings.Contains(err.Error(), "create a new session") {
		t.Errorf("the error does not say what to do: %v", err)
	}
	if _, err := old.Streams().Active(); !errors.Is(err, atlas.ErrSessionChanged) {
		t.Fatalf("a second call of the old session: %v, want SESSION_CHANGED again", err)
	}

	if err := raw.Stop(); err != nil {
		t.Fatalf("the old handle cannot stop the resumed query: %v", err)
	}
	fresh := sessionOn(t, addr, old.SessionID())
	if active, err := fresh.Streams().Active(); err != nil || len(active) != 0 {
		t.Fatalf("after the old handle's Stop the session still runs %v (%v)", active, err)
	}
	srv2.Stop()
	srv3 := startHomeServer(t, home, brokers, &syncBuffer{})
	if r := srv3.Resumed(); len(r.Resumed)+len(r.NotResumed) != 0 {
		t.Fatalf("a query the old handle stopped is resumed again: %+v", r)
	}
}
