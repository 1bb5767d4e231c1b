package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestFilesOutsideTheRootsRefused: with file limits, spark.read,
// readStream, file sinks, checkpoints and table locations outside the
// roots are refused naming the path (/etc/shadow, /proc/self/environ, the
// server's own token file among them); files under a root read as before;
// a session cannot lift the limit with spark.conf.set.
func TestFilesOutsideTheRootsRefused(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	tokenFile := filepath.Join(home, "connect.token")
	os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600)
	csvPath := filepath.Join(data, "ok.csv")
	os.WriteFile(csvPath, []byte("a,b\n1,2\n"), 0o644)
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, TokenFile: tokenFile, NoResume: true,
		Conf: map[string]string{engine.ConfHome: home}, Files: &FileAccess{Roots: []string{home, data}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c := dial(t, srv.Addr())
	read := func(format string, paths ...string) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
			Format: ptr(format), Schema: ptr("value string"), Paths: paths,
		}}}}}
	}
	same(t, "a csv under a root", c.rows(&pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("csv"), Options: map[string]string{"header": "true"}, Paths: []string{csvPath}}}}}}), []string{"a=1 b=2"})
	for _, path := range []string{"/etc/shadow", "/proc/self/environ", tokenFile, filepath.Join(home, "..", "elsewhere.csv")} {
		_, err := c.tryRows(read("csv", path))
		if err == nil || !strings.Contains(err.Error(), filepath.Clean(path)) || !strings.Contains(err.Error(), "allowed file roots") {
			t.Errorf("spark.read.csv(%s): %v, want a refusal naming it", path, err)
		}
	}
	start := func(w *pb.WriteStreamOperationStart) error {
		_, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: w}})
		return err
	}
	stream := func(path string) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
			Format: ptr("json"), Schema: ptr(`{"type":"struct","fields":[{"name":"v","type":"string","nullable":true,"metadata":{}}]}`), Paths: []string{path}}}}}}
	}
	outside := filepath.Join(filepath.Dir(home), "escape_out")
	for what, w := range map[string]*pb.WriteStreamOperationStart{
		"readStream of /proc": {Input: stream("/proc/self"), Format: "memory", QueryName: "p"},
		"a json sink outside": {Input: stream(data), Format: "json", Options: map[string]string{"checkpointLocation": filepath.Join(home, "ck")},
			SinkDestination: &pb.WriteStreamOperationStart_Path{Path: outside}},
		"a checkpoint outside": {Input: stream(data), Format: "json", Options: map[string]string{"checkpointLocation": outside},
			SinkDestination: &pb.WriteStreamOperationStart_Path{Path: filepath.Join(home, "out")}},
	} {
		if err := start(w); err == nil || !strings.Contains(err.Error(), "allowed file roots") {
			t.Errorf("%s: %v, want refused", what, err)
		}
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("a refused query left %s behind (%v)", outside, err)
	}
	ddl := &pb.SqlCommand{Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "CREATE TABLE lakehouse.default.t (a int) USING iceberg LOCATION '/etc/atlas-t'"}}}}
	if _, err := c.command(&pb.Command{CommandType: &pb.Command_SqlCommand{SqlCommand: ddl}}); err == nil || !strings.Contains(err.Error(), "/etc/atlas-t") {
		t.Errorf("CREATE TABLE ... LOCATION '/etc/atlas-t': %v, want refused", err)
	}
	_, err = c.rpc.Config(t.Context(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: engine.ConfFileRoots, Value: ptr("/")}}}}}})
	if err == nil {
		t.Error("spark.conf.set(atlas.files.roots, /) was accepted")
	}
	if _, err := c.tryRows(read("csv", "/etc/shadow")); err == nil {
		t.Error("/etc/shadow readable after spark.conf.set")
	}
}
