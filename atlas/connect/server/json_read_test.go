package server

import (
	"os"
	"path/filepath"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// TestReadJSONArraysAndCorruptRecordOverConnect: spark.read.schema(st).json
// as PySpark sends it, the schema as StructType JSON with an array of
// structs and _corrupt_record: the arrays come back as written, the
// malformed line in _corrupt_record. The reference is the file's lines.
func TestReadJSONArraysAndCorruptRecordOverConnect(t *testing.T) {
	home := t.TempDir()
	c := dial(t, startServer(t, home).Addr())
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := os.WriteFile(path, []byte(`{"id":1,"kv":[{"k":"a","v":2}]}`+"\n"+`{"id":2,"kv":[}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"kv","type":{"type":"array","elementType":{"type":"struct","fields":[{"name":"k","type":"string","nullable":true,"metadata":{}},{"name":"v","type":"integer","nullable":true,"metadata":{}}]},"containsNull":true},"nullable":true,"metadata":{}},` +
		`{"name":"_corrupt_record","type":"string","nullable":true,"metadata":{}}]}`
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("json"), Schema: ptr(schema), Paths: []string{path},
	}}}}}
	same(t, "rows", c.rows(read), []string{
		`id=1 kv=[{"k":"a","v":2}] _corrupt_record=null`,
		`id=null kv=null _corrupt_record={"id":2,"kv":[}`,
	})
}
