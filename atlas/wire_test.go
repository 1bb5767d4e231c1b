package atlas_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// The client encodes its messages with protobuf-go-lite code (sparklite,
// atlaslite, anylite), the server decodes them with protobuf-go's
// (sparkpb, atlaspb). The tests below run every kind of request the client
// sends through the fake server, whose codec (wireCodec) checks each
// request's bytes against the server's encoding of what it decoded, and
// compare the decoded requests with messages written here by hand from
// PySpark's Connect client; the server's answers, encoded by sparkpb, are
// checked through what the client makes of them.

// TestWireTypeURLsAreGooglesAnyTypeURLs checks the Any type URLs the client
// spells out (its generated code has no descriptors) against those google's
// anypb.New writes for the server's messages, which the server's
// UnmarshalTo requires.
func TestWireTypeURLsAreGooglesAnyTypeURLs(t *testing.T) {
	for _, c := range []struct {
		lite string
		msg  proto.Message
	}{
		{atlaslite.TypeURLLatestPerKey, &atlaspb.LatestPerKey{}},
		{atlaslite.TypeURLForeachBatchStart, &atlaspb.ForeachBatchStart{}},
		{atlaslite.TypeURLForeachBatchReady, &atlaspb.ForeachBatchReady{}},
		{atlaslite.TypeURLForeachBatchDone, &atlaspb.ForeachBatchDone{}},
		{atlaslite.TypeURLProgressCharts, &atlaspb.ProgressCharts{}},
		{atlaslite.TypeURLProgressChartsResult, &atlaspb.ProgressChartsResult{}},
		{atlaslite.TypeURLQueryTotals, &atlaspb.QueryTotals{}},
		{atlaslite.TypeURLQueryTotalsResult, &atlaspb.QueryTotalsResult{}},
		{atlaslite.TypeURLConsoleOutput, &atlaspb.ConsoleOutput{}},
		{atlaslite.TypeURLConsoleOutputResult, &atlaspb.ConsoleOutputResult{}},
		{atlaslite.TypeURLSqlForeachBatchStart, &atlaspb.SqlForeachBatchStart{}},
	} {
		a, err := anypb.New(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		if a.GetTypeUrl() != c.lite {
			t.Errorf("client type URL %q, google's anypb writes %q", c.lite, a.GetTypeUrl())
		}
	}
}

// TestCheckWireCatchesEncodingDifferences shows that the fake server's
// codec fails a request whose bytes differ from the server's encoding:
// an unknown field, a field in another order, an Any of an unknown type.
func TestCheckWireCatchesEncodingDifferences(t *testing.T) {
	rel := &pb.Relation{Common: &pb.RelationCommon{PlanId: proto.Int64(3)},
		RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: "t"}}}}}
	good, err := proto.MarshalOptions{Deterministic: true}.Marshal(rel)
	if err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) *pb.Relation {
		m := &pb.Relation{}
		if err := proto.Unmarshal(b, m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if err := checkWire(good, decode(good)); err != nil {
		t.Fatalf("the server's own encoding fails: %v", err)
	}
	unknown := append(append([]byte{}, good...), 0xf8, 0x3e, 0x01) // field 999, varint 1: not in Relation
	if err := checkWire(unknown, decode(unknown)); err == nil || !strings.Contains(err.Error(), "does not know") {
		t.Errorf("an unknown field passes: %v", err)
	}
	// Relation.read (field 2) before common (field 1): valid protobuf, the
	// server decodes the same message, but not the bytes it encodes.
	common, _ := proto.Marshal(&pb.Relation{Common: rel.Common})
	read, _ := proto.Marshal(&pb.Relation{RelType: rel.RelType})
	swapped := append(append([]byte{}, read...), common...)
	if err := checkWire(swapped, decode(swapped)); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("fields out of order pass: %v", err)
	}
	ext := &pb.Relation{RelType: &pb.Relation_Extension{Extension: &anypb.Any{TypeUrl: "type.googleapis.com/atlas.connect.Nope"}}}
	b, _ := proto.Marshal(ext)
	if err := checkWire(b, decode(b)); err == nil || !strings.Contains(err.Error(), "cannot unpack") {
		t.Errorf("an Any of an unknown type passes: %v", err)
	}
}

// wireSession is a session on f as user ana, with one builder setting.
func wireSession(t *testing.T, f *fakeServer, sessionID string) *atlas.Session {
	t.Helper()
	spark := atlas.Builder().
		Remote(serveFake(t, f)+"/;session_id="+sessionID+";user_id=ana").
		Config("spark.sql.shuffle.partitions", "4").
		GetOrCreate()
	t.Cleanup(spark.Close)
	return spark
}

// requestHeader is what every ExecutePlan, AnalyzePlan and Config request
// of the session carries.
type requestHeader struct {
	sessionID string
	user      *pb.UserContext
}

func (h requestHeader) check(t *testing.T, what string, sessionID string, user *pb.UserContext, clientType string) {
	t.Helper()
	if sessionID != h.sessionID || !proto.Equal(user, h.user) || clientType != "atlas-go" {
		t.Errorf("%s: session %q, user %v, client type %q; want %q, %v, atlas-go", what, sessionID, user, clientType, h.sessionID, h.user)
	}
}

func TestWireConfigAndAnalyzeAsTheServerDecodes(t *testing.T) {
	const sid = "8d3e1f4c-1b2a-4c5d-9e8f-0a1b2c3d4e5f"
	hdr := requestHeader{sid, &pb.UserContext{UserId: "ana", UserName: "ana"}}
	f := &fakeServer{
		config: func(req *pb.ConfigRequest) (*pb.ConfigResponse, error) {
			if req.GetOperation().GetGetWithDefault() != nil {
				return &pb.ConfigResponse{SessionId: sid, Pairs: []*pb.KeyValue{{Key: "spark.sql.streaming.checkpointLocation", Value: proto.String("/ck")}}}, nil
			}
			return &pb.ConfigResponse{SessionId: sid}, nil
		},
		analyze: func(req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
			switch req.GetAnalyze().(type) {
			case *pb.AnalyzePlanRequest_Schema_:
				return &pb.AnalyzePlanResponse{SessionId: sid, Result: &pb.AnalyzePlanResponse_Schema_{Schema: &pb.AnalyzePlanResponse_Schema{Schema: latestSchema()}}}, nil
			case *pb.AnalyzePlanRequest_IsStreaming_:
				return &pb.AnalyzePlanResponse{SessionId: sid, Result: &pb.AnalyzePlanResponse_IsStreaming_{IsStreaming: &pb.AnalyzePlanResponse_IsStreaming{IsStreaming: true}}}, nil
			case *pb.AnalyzePlanRequest_TreeString_:
				return &pb.AnalyzePlanResponse{SessionId: sid, Result: &pb.AnalyzePlanResponse_TreeString_{TreeString: &pb.AnalyzePlanResponse_TreeString{TreeString: "root\n |-- user_id: string\n"}}}, nil
			case *pb.AnalyzePlanRequest_Explain_:
				return &pb.AnalyzePlanResponse{SessionId: sid, Result: &pb.AnalyzePlanResponse_Explain_{Explain: &pb.AnalyzePlanResponse_Explain{ExplainString: "== Physical Plan ==\nLatestPerKey\n"}}}, nil
			}
			return nil, status.Errorf(codes.Unimplemented, "analyze %T", req.GetAnalyze())
		},
	}
	spark := wireSession(t, f, sid)

	if err := spark.Conf().Set("spark.sql.session.timeZone", "UTC"); err != nil {
		t.Fatal(err)
	}
	got, err := spark.Conf().Get("spark.sql.streaming.checkpointLocation", "/tmp/ck")
	if err != nil || got != "/ck" {
		t.Fatalf("conf get = %q, %v; want /ck (the server's value)", got, err)
	}
	setOp := func(k, v string) *pb.ConfigRequest_Operation {
		return &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: k, Value: proto.String(v)}}}}}
	}
	wantOps := []*pb.ConfigRequest_Operation{
		setOp("spark.sql.shuffle.partitions", "4"), // the builder's, before anything else
		setOp("spark.sql.session.timeZone", "UTC"),
		{OpType: &pb.ConfigRequest_Operation_GetWithDefault{GetWithDefault: &pb.ConfigRequest_GetWithDefault{
			Pairs: []*pb.KeyValue{{Key: "spark.sql.streaming.checkpointLocation", Value: proto.String("/tmp/ck")}}}}},
	}
	if len(f.configs) != len(wantOps) {
		t.Fatalf("%d Config requests, want %d", len(f.configs), len(wantOps))
	}
	for i, req := range f.configs {
		hdr.check(t, "config", req.GetSessionId(), req.GetUserContext(), req.GetClientType())
		if d := diff(wantOps[i], req.GetOperation()); d != "" {
			t.Errorf("config %d (PySpark's vs Atlas's):\n%s", i, d)
		}
	}

	df := spark.Table("cdc.users").LatestPerKey([]string{"user_id"}, "ts")
	if got, want := df.DTypes(), [][2]string{{"user_id", "string"}, {"ts", "timestamp"}, {"amount", "decimal(10,2)"},
		{"tags", "array<int>"}, {"window", "struct<start:timestamp,end:timestamp>"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("dtypes from the server's schema:\n got %v\nwant %v", got, want)
	}
	if !df.IsStreaming() {
		t.Error("isStreaming: the server said true")
	}
	if got := df.SchemaString(); got != "root\n |-- user_id: string\n" {
		t.Errorf("tree string %q", got)
	}
	if got := df.ExplainString(); got != "== Physical Plan ==\nLatestPerKey\n" {
		t.Errorf("explain %q", got)
	}

	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: "cdc.users"}}}}}
	wantLatest := &atlaspb.LatestPerKey{Input: read, Keys: []string{"user_id"}, OrderBy: "ts"}
	plan := func(rel *pb.Relation) *pb.Plan { return &pb.Plan{OpType: &pb.Plan_Root{Root: rel}} }
	if len(f.analyzed) != 4 {
		t.Fatalf("%d AnalyzePlan requests, want schema, isStreaming, treeString, explain", len(f.analyzed))
	}
	var plans []*pb.Plan
	for _, req := range f.analyzed {
		hdr.check(t, "analyze", req.GetSessionId(), req.GetUserContext(), req.GetClientType())
		switch a := req.GetAnalyze().(type) {
		case *pb.AnalyzePlanRequest_Schema_:
			plans = append(plans, a.Schema.GetPlan())
		case *pb.AnalyzePlanRequest_IsStreaming_:
			plans = append(plans, a.IsStreaming.GetPlan())
		case *pb.AnalyzePlanRequest_TreeString_:
			plans = append(plans, a.TreeString.GetPlan())
		case *pb.AnalyzePlanRequest_Explain_:
			if a.Explain.GetExplainMode() != pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_SIMPLE {
				t.Errorf("explain mode %v, want simple (explain())", a.Explain.GetExplainMode())
			}
			plans = append(plans, a.Explain.GetPlan())
		}
	}
	for i, p := range plans {
		ext := p.GetRoot().GetExtension()
		got := &atlaspb.LatestPerKey{}
		if ext.GetTypeUrl() != "type.googleapis.com/atlas.connect.LatestPerKey" {
			t.Fatalf("plan %d: root %v, want the LatestPerKey extension", i, p.GetRoot())
		}
		if err := ext.UnmarshalTo(got); err != nil {
			t.Fatalf("plan %d: google's anypb cannot unpack the extension: %v", i, err)
		}
		if d := diff(wantLatest, got); d != "" {
			t.Errorf("plan %d: latestPerKey (expected vs Atlas's):\n%s", i, d)
		}
		// The Any is what google's anypb.New packs for the same message.
		want, err := anypb.New(got)
		if err != nil {
			t.Fatal(err)
		}
		if d := diff(plan(&pb.Relation{RelType: &pb.Relation_Extension{Extension: want}}), p); d != "" {
			t.Errorf("plan %d: the Any differs from anypb.New's:\n%s", i, d)
		}
		if got.GetInput().GetCommon().PlanId == nil {
			t.Errorf("plan %d: the input in the extension has no plan id", i)
		}
	}
}

// latestSchema is the server's schema answer for the LatestPerKey test.
func latestSchema() *pb.DataType {
	ts := &pb.DataType{Kind: &pb.DataType_Timestamp_{Timestamp: &pb.DataType_Timestamp{}}}
	field := func(name string, t *pb.DataType) *pb.DataType_StructField {
		return &pb.DataType_StructField{Name: name, DataType: t, Nullable: true}
	}
	return &pb.DataType{Kind: &pb.DataType_Struct_{Struct: &pb.DataType_Struct{Fields: []*pb.DataType_StructField{
		field("user_id", &pb.DataType{Kind: &pb.DataType_String_{String_: &pb.DataType_String{Collation: "UTF8_BINARY"}}}),
		field("ts", ts),
		field("amount", &pb.DataType{Kind: &pb.DataType_Decimal_{Decimal: &pb.DataType_Decimal{Precision: proto.Int32(10), Scale: proto.Int32(2)}}}),
		field("tags", &pb.DataType{Kind: &pb.DataType_Array_{Array: &pb.DataType_Array{
			ElementType: &pb.DataType{Kind: &pb.DataType_Integer_{Integer: &pb.DataType_Integer{}}}, ContainsNull: true}}}),
		field("window", &pb.DataType{Kind: &pb.DataType_Struct_{Struct: &pb.DataType_Struct{Fields: []*pb.DataType_StructField{
			field("start", ts), field("end", ts)}}}}),
	}}}}
}

// progressJSON is a StreamingQueryProgress as Spark's json() writes it.
func progressJSON(batch, rows int64) string {
	return fmt.Sprintf(`{"id":"q1","runId":"r1","name":"event_windows","timestamp":"2026-12-01T06:00:0%dZ","batchId":%d,`+
		`"batchDuration":120,"numInputRows":%d,"inputRowsPerSecond":50.0,"processedRowsPerSecond":250.5,`+
		`"durationMs":{"addBatch":100,"triggerExecution":120},"eventTime":{"watermark":"2026-12-01T05:50:00.000Z"},`+
		`"stateOperators":[],"sources":[{"description":"KafkaV2[Subscribe[events]]","startOffset":null,"endOffset":{"events":{"0":%d}},`+
		`"latestOffset":null,"numInputRows":%d,"inputRowsPerSecond":50.0,"processedRowsPerSecond":250.5}],`+
		`"sink":{"description":"iceberg","numOutputRows":3}}`, batch, batch, rows, rows, rows)
}

// queryServer answers the streaming commands of TestWireStreamingCommandsAsTheServerDecodes.
type queryServer struct {
	t      *testing.T
	listen chan struct{} // closed when the client removes its listener
	once   sync.Once
}

func (s *queryServer) execute(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
	cmd := req.GetPlan().GetCommand()
	send := func(r *pb.ExecutePlanResponse) error {
		r.SessionId = req.GetSessionId()
		r.OperationId = req.GetOperationId()
		return stream.Send(r)
	}
	id := &pb.StreamingQueryInstanceId{Id: "q1", RunId: "r1"}
	qres := func(r *pb.StreamingQueryCommandResult) error {
		r.QueryId = id
		return send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryCommandResult{StreamingQueryCommandResult: r}})
	}
	mres := func(r *pb.StreamingQueryManagerCommandResult) error {
		return send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryManagerCommandResult{StreamingQueryManagerCommandResult: r}})
	}
	switch c := cmd.GetCommandType().(type) {
	case *pb.Command_WriteStreamOperationStart:
		return send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
			WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{QueryId: id, Name: c.WriteStreamOperationStart.GetQueryName()}}})
	case *pb.Command_StreamingQueryCommand:
		switch c.StreamingQueryCommand.GetCommand().(type) {
		case *pb.StreamingQueryCommand_Status:
			return qres(&pb.StreamingQueryCommandResult{ResultType: &pb.StreamingQueryCommandResult_Status{Status: &pb.StreamingQueryCommandResult_StatusResult{
				StatusMessage: "Waiting for data to arrive", IsTriggerActive: true, IsActive: true}}})
		case *pb.StreamingQueryCommand_LastProgress:
			return qres(&pb.StreamingQueryCommandResult{ResultType: &pb.StreamingQueryCommandResult_RecentProgress{RecentProgress: &pb.StreamingQueryCommandResult_RecentProgressResult{
				RecentProgressJson: []string{progressJSON(7, 60)}}}})
		case *pb.StreamingQueryCommand_RecentProgress:
			return qres(&pb.StreamingQueryCommandResult{ResultType: &pb.StreamingQueryCommandResult_RecentProgress{RecentProgress: &pb.StreamingQueryCommandResult_RecentProgressResult{
				RecentProgressJson: []string{progressJSON(6, 0), progressJSON(7, 60)}}}})
		case *pb.StreamingQueryCommand_Exception:
			return qres(&pb.StreamingQueryCommandResult{ResultType: &pb.StreamingQueryCommandResult_Exception{Exception: &pb.StreamingQueryCommandResult_ExceptionResult{
				ExceptionMessage: proto.String("[STREAM_FAILED] Query event_windows terminated with exception: disk full"), ErrorClass: proto.String("STREAM_FAILED")}}})
		case *pb.StreamingQueryCommand_Explain:
			return qres(&pb.StreamingQueryCommandResult{ResultType: &pb.StreamingQueryCommandResult_Explain{Explain: &pb.StreamingQueryCommandResult_ExplainResult{
				Result: "== Parsed Logical Plan ==\nWriteToMicroBatchDataSourceV1\n"}}})
		case *pb.StreamingQueryCommand_AwaitTermination:
			return qres(&pb.StreamingQueryCommandResult{ResultType: &pb.StreamingQueryCommandResult_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommandResult_AwaitTerminationResult{Terminated: true}}})
		}
		return qres(&pb.StreamingQueryCommandResult{}) // stop, processAllAvailable: an empty result
	case *pb.Command_StreamingQueryManagerCommand:
		inst := &pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{Id: id, Name: proto.String("event_windows")}
		switch c.StreamingQueryManagerCommand.GetCommand().(type) {
		case *pb.StreamingQueryManagerCommand_Active:
			return mres(&pb.StreamingQueryManagerCommandResult{ResultType: &pb.StreamingQueryManagerCommandResult_Active{Active: &pb.StreamingQueryManagerCommandResult_ActiveResult{
				ActiveQueries: []*pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{inst}}}})
		case *pb.StreamingQueryManagerCommand_GetQuery:
			return mres(&pb.StreamingQueryManagerCommandResult{ResultType: &pb.StreamingQueryManagerCommandResult_Query{Query: inst}})
		case *pb.StreamingQueryManagerCommand_AwaitAnyTermination:
			return mres(&pb.StreamingQueryManagerCommandResult{ResultType: &pb.StreamingQueryManagerCommandResult_AwaitAnyTermination{
				AwaitAnyTermination: &pb.StreamingQueryManagerCommandResult_AwaitAnyTerminationResult{Terminated: true}}})
		case *pb.StreamingQueryManagerCommand_ResetTerminated:
			return mres(&pb.StreamingQueryManagerCommandResult{ResultType: &pb.StreamingQueryManagerCommandResult_ResetTerminated{ResetTerminated: true}})
		}
	case *pb.Command_StreamingQueryListenerBusCommand:
		if c.StreamingQueryListenerBusCommand.GetRemoveListenerBusListener() {
			s.once.Do(func() { close(s.listen) })
			return nil
		}
		events := func(evs ...*pb.StreamingQueryListenerEvent) error {
			return send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryListenerEventsResult{
				StreamingQueryListenerEventsResult: &pb.StreamingQueryListenerEventsResult{Events: evs}}})
		}
		if err := send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryListenerEventsResult{
			StreamingQueryListenerEventsResult: &pb.StreamingQueryListenerEventsResult{ListenerBusListenerAdded: proto.Bool(true)}}}); err != nil {
			return err
		}
		if err := events(&pb.StreamingQueryListenerEvent{EventType: pb.StreamingQueryEventType_QUERY_PROGRESS_EVENT, EventJson: `{"progress":` + progressJSON(8, 40) + `}`}); err != nil {
			return err
		}
		if err := events(
			&pb.StreamingQueryListenerEvent{EventType: pb.StreamingQueryEventType_QUERY_IDLE_EVENT, EventJson: `{"id":"q1","runId":"r1","timestamp":"2026-12-01T06:00:09.000Z"}`},
			&pb.StreamingQueryListenerEvent{EventType: pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT, EventJson: `{"id":"q1","runId":"r1","exception":"disk full","errorClassOnException":"STREAM_FAILED"}`},
		); err != nil {
			return err
		}
		select {
		case <-s.listen:
			return nil
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
	}
	return status.Errorf(codes.Unimplemented, "command %T", cmd.GetCommandType())
}

func TestWireStreamingCommandsAsTheServerDecodes(t *testing.T) {
	const sid = "2b7c9d10-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	qs := &queryServer{t: t, listen: make(chan struct{})}
	f := &fakeServer{execute: qs.execute}
	spark := wireSession(t, f, sid)

	// The notebook's query, with a processing-time trigger, and a console
	// query with trigger once.
	q, err := notebookWindowCounts(spark).WriteStream().
		OutputMode("update").QueryName("event_windows").
		Option("checkpointLocation", "/ck/event_windows").
		Option("maxFilesPerTrigger", 10).
		Trigger(atlas.ProcessingTime("10 seconds")).
		Progress(false).
		ToTable("lakehouse.gold.event_windows")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spark.Table("events").WriteStream().Format("console").Trigger(atlas.Once()).Progress(false).Start(); err != nil {
		t.Fatal(err)
	}

	if st := q.Status(); st.Message != "Waiting for data to arrive" || st.IsDataAvailable || !st.IsTriggerActive {
		t.Errorf("status %+v", st)
	}
	if !q.IsActive() {
		t.Error("isActive: the server said true")
	}
	last := q.LastProgress()
	if last == nil || last.ID != "q1" || last.RunID != "r1" || last.BatchID != 7 || last.NumInputRows != 60 ||
		last.ProcessedRowsPerSecond != 250.5 || last.DurationMs["triggerExecution"] != 120 ||
		len(last.Sources) != 1 || last.Sources[0].Description != "KafkaV2[Subscribe[events]]" || last.Sink.Description != "iceberg" {
		t.Errorf("lastProgress %+v", last)
	}
	if recent := q.RecentProgress(); len(recent) != 2 || recent[0].BatchID != 6 || recent[1].BatchID != 7 || recent[0].NumInputRows != 0 {
		t.Errorf("recentProgress %+v", recent)
	}
	if err := q.Exception(); err == nil || err.Error() != "[STREAM_FAILED] Query event_windows terminated with exception: disk full" {
		t.Errorf("exception %v", err)
	}
	if s, err := q.ExplainString(true); err != nil || s != "== Parsed Logical Plan ==\nWriteToMicroBatchDataSourceV1\n" {
		t.Errorf("explain %q, %v", s, err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Error(err)
	}
	// Terminated: the client then asks for the exception, which is the error.
	if ended, err := q.AwaitTerminationTimeout(time.Minute); !ended || err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("awaitTermination = %v, %v; want true and the query's exception", ended, err)
	}
	if err := q.Stop(); err != nil {
		t.Error(err)
	}

	streams := spark.Streams()
	if active, err := streams.Active(); err != nil || len(active) != 1 || active[0].ID() != "q1" || active[0].RunID() != "r1" || active[0].Name() != "event_windows" {
		t.Errorf("active %v, %v", active, err)
	}
	if got, err := streams.Get("event_windows"); err != nil || got.ID() != "q1" {
		t.Errorf("get %v, %v", got, err)
	}
	if ended, err := streams.AwaitAnyTermination(250 * time.Millisecond); err != nil || !ended {
		t.Errorf("awaitAnyTermination %v, %v", ended, err)
	}
	if err := streams.ResetTerminated(); err != nil {
		t.Error(err)
	}

	var mu sync.Mutex
	var seen []string
	note := func(s string) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}
	done := make(chan struct{})
	l := &atlas.StreamingQueryListenerFuncs{
		Progress: func(e *atlas.QueryProgressEvent) {
			note(fmt.Sprintf("progress %s batch %d rows %d", e.Progress.ID, e.Progress.BatchID, e.Progress.NumInputRows))
		},
		Idle: func(e *atlas.QueryIdleEvent) { note(fmt.Sprintf("idle %s %s %s", e.ID, e.RunID, e.Timestamp)) },
		Terminated: func(e *atlas.QueryTerminatedEvent) {
			note(fmt.Sprintf("terminated %s %s %s", e.ID, *e.Exception, *e.ErrorClassOnException))
			close(done)
		},
	}
	if err := streams.AddListener(l); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the listener got no terminated event")
	}
	if err := streams.RemoveListener(l); err != nil {
		t.Error(err)
	}
	mu.Lock()
	if want := []string{"progress q1 batch 8 rows 40", "idle q1 r1 2026-12-01T06:00:09.000Z", "terminated q1 disk full STREAM_FAILED"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("listener saw\n %q\nwant\n %q", seen, want)
	}
	mu.Unlock()

	// What the server decoded, against what PySpark sends.
	hdr := requestHeader{sid, &pb.UserContext{UserId: "ana", UserName: "ana"}}
	id := &pb.StreamingQueryInstanceId{Id: "q1", RunId: "r1"}
	qc := func(c *pb.StreamingQueryCommand) *pb.Command {
		c.QueryId = id
		return &pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: c}}
	}
	mc := func(c *pb.StreamingQueryManagerCommand) *pb.Command {
		return &pb.Command{CommandType: &pb.Command_StreamingQueryManagerCommand{StreamingQueryManagerCommand: c}}
	}
	bus := func(c *pb.StreamingQueryListenerBusCommand) *pb.Command {
		return &pb.Command{CommandType: &pb.Command_StreamingQueryListenerBusCommand{StreamingQueryListenerBusCommand: c}}
	}
	statusCmd := qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}})
	consoleExt, err := anypb.New(&atlaspb.ConsoleOutput{QueryId: id, AfterBatchId: -1})
	if err != nil {
		t.Fatal(err)
	}
	consoleCmd := &pb.Command{CommandType: &pb.Command_Extension{Extension: consoleExt}}
	want := []*pb.Command{
		{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
			Input:           pysparkWindowCounts(),
			Options:         map[string]string{"checkpointLocation": "/ck/event_windows", "maxFilesPerTrigger": "10"},
			Trigger:         &pb.WriteStreamOperationStart_ProcessingTimeInterval{ProcessingTimeInterval: "10 seconds"},
			OutputMode:      "update",
			QueryName:       "event_windows",
			SinkDestination: &pb.WriteStreamOperationStart_TableName{TableName: "lakehouse.gold.event_windows"},
		}}},
		{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
			Input:   &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: "events"}}}}},
			Format:  "console",
			Options: map[string]string{},
			Trigger: &pb.WriteStreamOperationStart_Once{Once: true},
		}}},
		statusCmd, statusCmd,
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_LastProgress{LastProgress: true}}),
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_RecentProgress{RecentProgress: true}}),
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}}),
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Explain{Explain: &pb.StreamingQueryCommand_ExplainCommand{Extended: true}}}),
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}}),
		// AwaitTermination asks once for the console batches (an Atlas
		// extension); this Spark-like server refuses it, so it asks no more.
		consoleCmd,
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{TimeoutMs: proto.Int64(500)}}}),
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}}),
		qc(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}}),
		mc(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}),
		mc(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_GetQuery{GetQuery: "event_windows"}}),
		mc(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: proto.Int64(250)}}}),
		mc(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_ResetTerminated{ResetTerminated: true}}),
		bus(&pb.StreamingQueryListenerBusCommand{Command: &pb.StreamingQueryListenerBusCommand_AddListenerBusListener{AddListenerBusListener: true}}),
		bus(&pb.StreamingQueryListenerBusCommand{Command: &pb.StreamingQueryListenerBusCommand_RemoveListenerBusListener{RemoveListenerBusListener: true}}),
	}
	reqs := f.requests()
	if len(reqs) != len(want) {
		var got []string
		for _, r := range reqs {
			got = append(got, prototext.Format(r.GetPlan().GetCommand()))
		}
		t.Fatalf("%d requests, want %d:\n%s", len(reqs), len(want), strings.Join(got, "\n"))
	}
	ops := map[string]bool{}
	for i, r := range reqs {
		hdr.check(t, fmt.Sprintf("request %d", i), r.GetSessionId(), r.GetUserContext(), r.GetClientType())
		if r.GetOperationId() == "" || ops[r.GetOperationId()] {
			t.Errorf("request %d: operation id %q, want a new one per request", i, r.GetOperationId())
		}
		ops[r.GetOperationId()] = true
		if d := diff(want[i], r.GetPlan().GetCommand()); d != "" {
			t.Errorf("request %d (PySpark's vs Atlas's):\n%s", i, d)
		}
	}
}
