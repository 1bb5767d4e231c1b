package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	srv, err := Start(Config{Addr: "127.0.0.1:0", Conf: map[string]string{engine.ConfHome: home}})
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
