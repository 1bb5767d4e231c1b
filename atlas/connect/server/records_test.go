package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestDamagedRecordIsKeptAndReported: a query record the server cannot
// read is reported with the reason and left where it is; the server starts.
func TestDamagedRecordIsKeptAndReported(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(StateDir(home), "queries")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "0b7e9c0e-5d7c-4a57-a1a6-3f1c3cf0d1a2.json")
	if err := os.WriteFile(bad, []byte(`{"version": 1, "queryId": "0b7e9c0e`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	rep := srv.Resumed()
	if len(rep.Resumed) != 0 || len(rep.NotResumed) != 1 || rep.NotResumed[0].Record != bad || !strings.Contains(rep.NotResumed[0].Reason, "unexpected end of JSON") {
		t.Fatalf("report %+v", rep)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Fatalf("the damaged record is gone: %v", err)
	}
	got, ok, err := ReadResumeReport(StateDir(home))
	if err != nil || !ok || len(got.NotResumed) != 1 || got.NotResumed[0].Record != bad {
		t.Fatalf("resume.json: %+v %v %v", got, ok, err)
	}
	c := dial(t, srv.Addr())
	c.rows(c.sql("SHOW NAMESPACES"))
}

// TestNoResumeKeepsRecordsForALaterStart: with resuming off, a start
// restarts nothing, reports the recorded query with the reason and keeps
// its record; the next start with resuming on resumes it.
func TestNoResumeKeepsRecordsForALaterStart(t *testing.T) {
	home := t.TempDir()
	conf := map[string]string{engine.ConfHome: home}
	srv1, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: conf})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv1.Addr())
	c.rows(c.sql("CREATE NAMESPACE IF NOT EXISTS lakehouse.silver"))
	rate := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("rate"), Options: map[string]string{"rowsPerSecond": "10"},
	}}}}}
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: rate, QueryName: "ticks", SinkDestination: &pb.WriteStreamOperationStart_TableName{TableName: "lakehouse.silver.ticks"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, r := range resps {
		if s := r.GetWriteStreamOperationStartResult(); s != nil {
			id = s.GetQueryId().GetId()
		}
	}
	srv1.Stop()

	srv2, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: conf, NoResume: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := srv2.Resumed()
	if !rep.Disabled || len(rep.Resumed) != 0 || len(rep.NotResumed) != 1 || rep.NotResumed[0].ID != id || rep.NotResumed[0].Record == "" {
		t.Fatalf("report with resuming off: %+v", rep)
	}
	c2 := dial(t, srv2.Addr())
	c2.session = c.session
	if n := len(c2.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries()); n != 0 {
		t.Fatalf("%d queries run with resuming off", n)
	}
	srv2.Stop()

	srv3, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: conf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv3.Stop()
	if r := srv3.Resumed(); len(r.Resumed) != 1 || r.Resumed[0].ID != id || r.Resumed[0].Name != "ticks" {
		t.Fatalf("the start with resuming on: %+v", r)
	}
}
