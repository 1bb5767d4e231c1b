package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/avro"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

func strLit(s string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_String_{String_: s}}}}
}

func selectOf(in *pb.Relation, exprs ...*pb.Expression) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: exprs}}}
}

// TestFileSourcesOverConnect: spark.read.csv(path, header=True) and
// spark.readStream.schema(StructType).json(dir) as PySpark's Connect client
// sends them (DataSource with paths; the schema as StructType JSON).
func TestFileSourcesOverConnect(t *testing.T) {
	home := t.TempDir()
	srv := startServer(t, home)
	c := dial(t, srv.Addr())
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "districts.csv")
	os.WriteFile(csvPath, []byte("district,province\nGasabo,Kigali\nHuye,Southern\n"), 0o644)
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("csv"), Options: map[string]string{"header": "true"}, Paths: []string{csvPath},
	}}}}}
	same(t, "spark.read.csv", c.rows(read), []string{"district=Gasabo province=Kigali", "district=Huye province=Southern"})

	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	os.WriteFile(filepath.Join(in, "a.json"), []byte("{\"id\":1,\"wiki\":\"rw\"}\n{\"id\":2,\"wiki\":\"sw\"}\nnot json\n"), 0o644)
	schema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"wiki","type":"string","nullable":true,"metadata":{}}]}`
	stream := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("json"), Schema: ptr(schema), Options: map[string]string{"mode": "DROPMALFORMED"}, Paths: []string{in},
	}}}}}
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: stream, Format: "memory", OutputMode: "append", QueryName: "edits",
		Trigger: &pb.WriteStreamOperationStart_AvailableNow{AvailableNow: true},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var id *pb.StreamingQueryInstanceId
	for _, r := range resps {
		if s := r.GetWriteStreamOperationStartResult(); s != nil {
			id = s.GetQueryId()
		}
	}
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{}}})
	same(t, "file stream", c.rows(c.sql("SELECT id, wiki FROM edits")), []string{"id=1 wiki=rw", "id=2 wiki=sw"})
}

// TestAvroOverConnect: from_avro(value, schema, {"mode": "PERMISSIVE",
// "framing": "single-object"}) and to_avro(col) as PySpark's Connect
// client sends them, over records the Avro library encoded.
func TestAvroOverConnect(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := dial(t, srv.Addr())
	const sch = `{"type":"record","name":"E","fields":[{"name":"event_id","type":"string"},{"name":"n","type":"long"}]}`
	s := avro.MustParse(sch)
	other := avro.MustParse(`{"type":"record","name":"F","fields":[{"name":"x","type":"long"}]}`)
	var vals [][]byte
	for i := 1; i <= 3; i++ {
		b, _ := s.AppendSingleObject(nil, map[string]any{"event_id": fmt.Sprintf("e%d", i), "n": int64(i * 10)})
		vals = append(vals, b)
	}
	unknown, _ := other.AppendSingleObject(nil, map[string]any{"x": int64(1)})
	vals = append(vals, unknown, vals[0][:11])
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, v := range vals {
		b.Field(0).(*array.BinaryBuilder).Append(v)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, err := planner.WriteIPC(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	local := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}
	opts := fn("map", strLit("mode"), strLit("PERMISSIVE"), strLit("framing"), strLit("single-object"))
	parsed := selectOf(local, as(fn("from_avro", col("value"), strLit(sch), opts), "e"))
	kept := &pb.Relation{RelType: &pb.Relation_Filter{Filter: &pb.Filter{Input: parsed, Condition: fn("isnotnull", col("e"))}}}
	same(t, "from_avro", c.rows(selectOf(kept, col("e.event_id"), col("e.n"))), []string{"event_id=e1 n=10", "event_id=e2 n=20", "event_id=e3 n=30"})

	// to_avro(n) writes the derived schema ["long","null"]; from_avro reads it back.
	enc := selectOf(selectOf(kept, as(col("e.n"), "n")), as(fn("to_avro", col("n")), "a"), col("n"))
	back := selectOf(enc, as(fn("from_avro", col("a"), strLit(`["long","null"]`)), "m"), col("n"))
	same(t, "to_avro round trip", c.rows(back), []string{"m=10 n=10", "m=20 n=20", "m=30 n=30"})
}
