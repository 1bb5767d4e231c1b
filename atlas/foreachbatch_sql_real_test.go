package atlas_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestForeachBatchSQLResumesAfterServerRestart: a server-side SQL
// foreachBatch (ForeachBatchSQL) appends every record of each micro-batch
// to an Iceberg table; the server goes down with the query running,
// records arrive meanwhile, and the restarted server resumes the query in
// its session (same id, new run) from its checkpoint: the table holds each
// record exactly once, against the reference computed from the produced
// records. On the old code the extension did not exist (the query could
// only run from a client-side Go function, which a restart cuts off).
func TestForeachBatchSQLResumesAfterServerRestart(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	srv1 := startHomeServer(t, home, brokers, &syncBuffer{})
	sid := uuid.NewString()
	cell1 := sessionOn(t, srv1.Addr(), sid)
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.shop",
		"CREATE TABLE lakehouse.shop.log (word string, partition int, offset bigint) USING iceberg",
	} {
		if _, err := cell1.SQL(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	recs := produceClicks(t, brokers, 200, 0)
	if _, err := clickWords(cell1).WriteStream().QueryName("wlog").ForeachBatchSQL("batch", "SELECT nonsense FROM").Start(); err == nil {
		t.Fatal("a statement that does not parse was accepted")
	}
	q, err := clickWords(cell1).WriteStream().QueryName("wlog").Progress(false).
		Trigger(atlas.ProcessingTime("50 milliseconds")).
		ForeachBatchSQL("batch", "INSERT INTO lakehouse.shop.log SELECT word, partition, offset FROM batch").
		Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	want := func(recs []produced) []string {
		var out []string
		for _, r := range recs {
			out = append(out, fmt.Sprintf("%d/%d %s", r.partition, r.offset, r.word))
		}
		sort.Strings(out)
		return out
	}
	sameLines(t, "log before the restart", logLines(t, cell1), want(recs))

	srv1.Stop()
	recs = append(recs, produceClicks(t, brokers, 130, 3)...)
	log2 := &syncBuffer{}
	srv2 := startHomeServer(t, home, brokers, log2)
	if rep := srv2.Resumed(); len(rep.Resumed) != 1 || rep.Resumed[0].Name != "wlog" {
		t.Fatalf("resumed %+v, not resumed %+v; log:\n%s", rep.Resumed, rep.NotResumed, log2.String())
	}
	cell2 := sessionOn(t, srv2.Addr(), sid)
	q2, err := cell2.Streams().Get("wlog")
	if err != nil {
		t.Fatal(err)
	}
	if q2.ID() != q.ID() || q2.RunID() == q.RunID() {
		t.Fatalf("resumed as id %s run %s; before id %s run %s", q2.ID(), q2.RunID(), q.ID(), q.RunID())
	}
	if err := q2.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "log after the restart", logLines(t, cell2), want(recs))
	if err := q2.Stop(); err != nil {
		t.Fatal(err)
	}
}

// logLines reads lakehouse.shop.log as "partition/offset word" lines.
func logLines(t *testing.T, spark *atlas.Session) []string {
	t.Helper()
	df, err := spark.SQL("SELECT word, partition, offset FROM lakehouse.shop.log")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%v/%v %v", r["partition"], r["offset"], r["word"])
	}
	sort.Strings(out)
	return out
}
