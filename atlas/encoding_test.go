package atlas_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/atlas-lakehouse/atlas/atlas"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// The expected messages below are written by hand from PySpark's Connect
// client (python/pyspark/sql/connect: column.py, functions/builtin.py,
// group.py, dataframe.py, streaming/readwriter.py), the reference for what
// a Spark Connect server receives.

func attr(name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: name}}}
}

func call(name string, args ...*pb.Expression) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{UnresolvedFunction: &pb.Expression_UnresolvedFunction{FunctionName: name, Arguments: args}}}
}

func strLit(s string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_String_{String_: s}}}}
}

func intLit(n int32) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Integer{Integer: n}}}}
}

func alias(e *pb.Expression, name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Alias_{Alias: &pb.Expression_Alias{Expr: e, Name: []string{name}}}}
}

func project(in *pb.Relation, exprs ...*pb.Expression) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: exprs}}}
}

func str(s string) *string { return &s }

// kafkaRead is the notebooks' readStream of a Kafka topic.
func kafkaRead(topic string, maxOffsets string) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format:  str("kafka"),
		Options: map[string]string{"subscribe": topic, "startingOffsets": "earliest", "maxOffsetsPerTrigger": maxOffsets},
	}}}}}
}

// notebookWindowCounts is the events notebook's pipeline, as written in
// notebooks/streaming_windows-events (parseEvents, windowCounts).
func notebookWindowCounts(spark *atlas.Session) *atlas.DataFrame {
	raw := spark.ReadStream().Format("kafka").
		Option("subscribe", "events").
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 20_000).
		Load()
	events := raw.SelectExpr("CAST(value AS STRING) AS json").
		Select(atlas.FromJSON(atlas.Col("json"), "user_id string, event string, ts timestamp").Alias("data")).
		Select("data.*")
	return events.
		WithWatermark("ts", "10 minutes").
		GroupBy(atlas.Window(atlas.Col("ts"), "5 minutes"), atlas.Col("event")).
		Count().
		Select(atlas.Col("event"),
			atlas.Col("window.start").Alias("window_start"),
			atlas.Col("window.end").Alias("window_end"),
			atlas.Col("count"))
}

// pysparkWindowCounts is what PySpark sends for the same pipeline.
func pysparkWindowCounts() *pb.Relation {
	p1 := project(kafkaRead("events", "20000"),
		&pb.Expression{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: "CAST(value AS STRING) AS json"}}})
	p2 := project(p1, alias(call("from_json", attr("json"), strLit("user_id string, event string, ts timestamp")), "data"))
	p3 := project(p2, &pb.Expression{ExprType: &pb.Expression_UnresolvedStar_{UnresolvedStar: &pb.Expression_UnresolvedStar{UnparsedTarget: str("data.*")}}})
	wm := &pb.Relation{RelType: &pb.Relation_WithWatermark{WithWatermark: &pb.WithWatermark{Input: p3, EventTime: "ts", DelayThreshold: "10 minutes"}}}
	agg := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: wm, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		GroupingExpressions:  []*pb.Expression{call("window", attr("ts"), strLit("5 minutes")), attr("event")},
		AggregateExpressions: []*pb.Expression{alias(call("count", intLit(1)), "count")},
	}}}
	return project(agg, attr("event"), alias(attr("window.start"), "window_start"), alias(attr("window.end"), "window_end"), attr("count"))
}

// diff is "" when the messages are equal without plan ids, else both as text.
func diff(want, got proto.Message) string {
	w, g := withoutPlanIDs(want), withoutPlanIDs(got)
	if proto.Equal(w, g) {
		return ""
	}
	return fmt.Sprintf("want:\n%s\ngot:\n%s", prototext.Format(w), prototext.Format(g))
}

func TestNotebookPipelineEncodesAsPySpark(t *testing.T) {
	spark := atlas.Builder().Remote("sc://127.0.0.1:1").GetOrCreate() // never dialled
	defer spark.Close()
	rel, err := notebookWindowCounts(spark).Relation()
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(pysparkWindowCounts(), asServer(t, rel, &pb.Relation{})); d != "" {
		t.Fatalf("relation differs from PySpark's (PySpark's vs Atlas's):\n%s", d)
	}
	if rel.GetCommon().PlanId == nil {
		t.Fatal("relations carry no plan id; PySpark numbers every relation")
	}
}

func TestColumnOperatorsEncodeAsPySpark(t *testing.T) {
	cases := []struct {
		name string
		got  atlas.Column
		want *pb.Expression
	}{
		{"eq", atlas.Col("a").EqualTo(1), call("==", attr("a"), intLit(1))},
		{"ne is not(==)", atlas.Col("a").NotEqual("x"), call("not", call("==", attr("a"), strLit("x")))},
		{"and/or lower case", atlas.Col("a").Gt(1).And(atlas.Col("b").Leq(2)).Or(atlas.Col("c").IsNull()),
			call("or", call("and", call(">", attr("a"), intLit(1)), call("<=", attr("b"), intLit(2))), call("isNull", attr("c")))},
		{"isin", atlas.Col("e").IsIn("view", "click"), call("in", attr("e"), strLit("view"), strLit("click"))},
		{"sum over plus", atlas.Sum(atlas.Col("q").Multiply(atlas.Col("p"))).Alias("v"), alias(call("sum", call("*", attr("q"), attr("p"))), "v")},
		{"cast by name", atlas.Col("value").Cast("string"), &pb.Expression{ExprType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{Expr: attr("value"), CastToType: &pb.Expression_Cast_TypeStr{TypeStr: "string"}}}}},
		{"window with slide", atlas.Window(atlas.Col("ts"), "10 minutes", "5 minutes"), call("window", attr("ts"), strLit("10 minutes"), strLit("5 minutes"))},
		{"long literal", atlas.Lit(int64(1)), &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Long{Long: 1}}}}},
		{"big int literal is long", atlas.Lit(1 << 40), &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Long{Long: 1 << 40}}}}},
	}
	for _, c := range cases {
		got, err := c.got.Expression()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := diff(c.want, asServer(t, got, &pb.Expression{})); d != "" {
			t.Errorf("%s (PySpark's vs Atlas's):\n%s", c.name, d)
		}
	}
}

func TestSQLCountAndResultsOverTheWire(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "event", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"view", ""}, []bool{true, false})
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{7, 9}, nil)
	b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(t0.UnixMicro()), 0}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	countSchema := arrow.NewSchema([]arrow.Field{{Name: "count(1)", Type: arrow.PrimitiveTypes.Int64}}, nil)
	cb := array.NewRecordBuilder(mem, countSchema)
	defer cb.Release()
	cb.Field(0).(*array.Int64Builder).Append(2)
	countRec := cb.NewRecordBatch()
	defer countRec.Release()

	sqlResult := &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT 1"}}}
	f := &fakeServer{}
	f.execute = func(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
		if cmd := req.GetPlan().GetCommand(); cmd != nil {
			return stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_SqlCommandResult_{
				SqlCommandResult: &pb.ExecutePlanResponse_SqlCommandResult{Relation: sqlResult}}})
		}
		if req.GetPlan().GetRoot().GetAggregate() != nil {
			return stream.Send(arrowResponse(t, countRec))
		}
		return stream.Send(arrowResponse(t, rec))
	}
	spark := startFake(t, f)
	df, err := spark.SQL("SELECT event, n, ts FROM t")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []atlas.Row{{"event": "view", "n": int64(7), "ts": t0}, {"event": nil, "n": int64(9), "ts": time.Unix(0, 0).UTC()}}
	if !reflect.DeepEqual(want, rows) {
		t.Fatalf("rows:\n got %v\nwant %v", rows, want)
	}
	n, err := df.Count(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want 2", n, err)
	}

	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want sql, collect, count", len(reqs))
	}
	wantSQL := &pb.Command{CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT event, n, ts FROM t"}}}}}}
	if d := diff(wantSQL, reqs[0].GetPlan().GetCommand()); d != "" {
		t.Errorf("sql command (PySpark's vs Atlas's):\n%s", d)
	}
	if d := diff(sqlResult, reqs[1].GetPlan().GetRoot()); d != "" {
		t.Errorf("the DataFrame of spark.sql must be the server's relation :\n%s", d)
	}
	wantCount := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{Input: sqlResult, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		AggregateExpressions: []*pb.Expression{call("count", intLit(1))}}}}
	if d := diff(wantCount, reqs[2].GetPlan().GetRoot()); d != "" {
		t.Errorf("count (PySpark's vs Atlas's):\n%s", d)
	}
	for _, r := range reqs {
		if r.GetSessionId() != spark.SessionID() || r.GetOperationId() == "" {
			t.Errorf("request without the session id or an operation id: %v", r)
		}
	}
}

func TestErrReportsBuildAndAnalysisErrorsOnce(t *testing.T) {
	var calls atomic.Int32
	f := &fakeServer{analyze: func(req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
		calls.Add(1)
		return nil, status.Error(codes.InvalidArgument, "[UNRESOLVED_COLUMN] a column named nope cannot be resolved")
	}}
	spark := startFake(t, f)

	bad := spark.Table("t").Where(atlas.Col("a").EqualTo(struct{}{}))
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "unsupported literal type struct {}") {
		t.Fatalf("build error = %v", err)
	}
	if calls.Load() != 0 {
		t.Fatal("a DataFrame with a build error went to the server")
	}

	df := spark.Table("t").Select("nope")
	for range 3 {
		err := df.Err()
		var se *atlas.ServerError
		if !errors.As(err, &se) || !strings.Contains(se.Message, "UNRESOLVED_COLUMN") {
			t.Fatalf("analysis error = %v", err)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("%d AnalyzePlan calls for three Err calls, want 1 (cached)", calls.Load())
	}
}

func TestWriteStreamEncodesAsPySpark(t *testing.T) {
	f := &fakeServer{}
	f.execute = func(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
		return stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
			WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{QueryId: &pb.StreamingQueryInstanceId{Id: "q1", RunId: "r1"}, Name: "event_windows"}}})
	}
	spark := startFake(t, f)
	q, err := notebookWindowCounts(spark).WriteStream().
		OutputMode("append").
		QueryName("event_windows").
		Option("checkpointLocation", "/ck/event_windows").
		Option("lateRowsTable", "lakehouse.gold.event_windows_late").
		Trigger(atlas.AvailableNow()).
		ToTable("lakehouse.gold.event_windows")
	if err != nil {
		t.Fatal(err)
	}
	if q.ID() != "q1" || q.RunID() != "r1" || q.Name() != "event_windows" {
		t.Fatalf("query handle %s %s %s", q.ID(), q.RunID(), q.Name())
	}
	want := &pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input:           pysparkWindowCounts(),
		Options:         map[string]string{"checkpointLocation": "/ck/event_windows", "lateRowsTable": "lakehouse.gold.event_windows_late"},
		Trigger:         &pb.WriteStreamOperationStart_AvailableNow{AvailableNow: true},
		OutputMode:      "append",
		QueryName:       "event_windows",
		SinkDestination: &pb.WriteStreamOperationStart_TableName{TableName: "lakehouse.gold.event_windows"},
	}}}
	if d := diff(want, f.requests()[0].GetPlan().GetCommand()); d != "" {
		t.Fatalf("writeStream (PySpark's vs Atlas's):\n%s", d)
	}

	// A bad trigger fails at Start, before anything reaches the server.
	_, err = notebookWindowCounts(spark).WriteStream().Trigger(atlas.ProcessingTime(-time.Second)).Start()
	if err == nil || !strings.Contains(err.Error(), "not positive") {
		t.Fatalf("bad trigger: %v", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Fatalf("a query with a bad trigger reached the server (%d requests)", n)
	}
}
