package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// words produces n records to topic, the i-th valued words[(i*i+off)%4],
// and returns how many of each it produced.
func produceWords(t *testing.T, brokers, topic string, n, off int, counts map[string]int) {
	t.Helper()
	words := []string{"alpha", "beta", "gamma", "delta"}
	ctx := context.Background()
	if err := stack.EnsureTopic(ctx, []string{brokers}, topic, 3); err != nil {
		t.Fatal(err)
	}
	cl, err := stack.NewClient([]string{brokers})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := range n {
		w := words[(i*i+off)%len(words)]
		counts[w]++
		recs = append(recs, &kgo.Record{Topic: topic, Value: []byte(w)})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// command runs a command plan and returns its responses.
func (c *client) command(cmd *pb.Command) ([]*pb.ExecutePlanResponse, error) {
	return c.execute(&pb.Plan{OpType: &pb.Plan_Command{Command: cmd}})
}

func (c *client) queryCmd(id *pb.StreamingQueryInstanceId, cmd *pb.StreamingQueryCommand) *pb.StreamingQueryCommandResult {
	c.t.Helper()
	cmd.QueryId = id
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: cmd}})
	if err != nil {
		c.t.Fatalf("%v: %v", cmd, err)
	}
	for _, r := range resps {
		if res := r.GetStreamingQueryCommandResult(); res != nil {
			return res
		}
	}
	c.t.Fatalf("%v: no streaming_query_command_result", cmd)
	return nil
}

func (c *client) managerCmd(cmd *pb.StreamingQueryManagerCommand) *pb.StreamingQueryManagerCommandResult {
	c.t.Helper()
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_StreamingQueryManagerCommand{StreamingQueryManagerCommand: cmd}})
	if err != nil {
		c.t.Fatalf("%v: %v", cmd, err)
	}
	for _, r := range resps {
		if res := r.GetStreamingQueryManagerCommandResult(); res != nil {
			return res
		}
	}
	c.t.Fatalf("%v: no streaming_query_manager_command_result", cmd)
	return nil
}

// wordCounts is readStream(kafka topic).select(CAST(value AS STRING) AS
// word).groupBy(word).agg(count(1) AS n), as the clients send it.
func wordCounts(topic string) *pb.Relation {
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("kafka"), Options: map[string]string{"subscribe": topic, "startingOffsets": "earliest"},
	}}}}}
	proj := &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: read, Expressions: []*pb.Expression{
		{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: "CAST(value AS STRING) AS word"}}},
	}}}}
	return &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: proj, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		GroupingExpressions:  []*pb.Expression{col("word")},
		AggregateExpressions: []*pb.Expression{as(fn("count", lit(1)), "n")},
	}}}
}

func ptr[T any](v T) *T { return &v }

// progressRows sums numInputRows over progress JSON documents and checks
// they belong to query id.
func progressRows(t *testing.T, docs []string, id string) int64 {
	t.Helper()
	var n int64
	for _, d := range docs {
		var p struct {
			ID           string `json:"id"`
			NumInputRows int64  `json:"numInputRows"`
		}
		if err := json.Unmarshal([]byte(d), &p); err != nil {
			t.Fatalf("progress %s: %v", d, err)
		}
		if p.ID != id {
			t.Fatalf("progress of query %s, want %s", p.ID, id)
		}
		n += p.NumInputRows
	}
	return n
}

// TestStreamingQueryOverConnect starts a query on a Kafka topic through
// WriteStreamOperationStart, then watches and stops it from a second
// connection of the same session: status, lastProgress, recentProgress,
// processAllAvailable, the memory sink through SQL, awaitTermination,
// spark.streams (active, get, awaitAnyTermination, resetTerminated).
func TestStreamingQueryOverConnect(t *testing.T) {
	home := t.TempDir()
	srv, b := startKafkaServer(t, 3, home)
	counts := map[string]int{}
	produceWords(t, b.Addr(), "words", 200, 0, counts)

	starter := dial(t, srv.Addr())
	resps, err := starter.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: wordCounts("words"), Format: "memory", OutputMode: "complete", QueryName: "counts",
		Trigger: &pb.WriteStreamOperationStart_ProcessingTimeInterval{ProcessingTimeInterval: "100 milliseconds"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var started *pb.WriteStreamOperationStartResult
	for _, r := range resps {
		if s := r.GetWriteStreamOperationStartResult(); s != nil {
			started = s
		}
	}
	if started == nil || started.GetName() != "counts" || started.GetQueryId().GetId() == "" || started.GetQueryId().GetRunId() == "" {
		t.Fatalf("start result %v", started)
	}
	id := started.GetQueryId()

	// A second connection of the same session watches the query.
	watcher := dial(t, srv.Addr())
	watcher.session = starter.session

	watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
	st := watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}}).GetStatus()
	if !st.GetIsActive() || st.GetStatusMessage() == "" {
		t.Fatalf("status %v", st)
	}
	last := watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_LastProgress{LastProgress: true}}).GetRecentProgress().GetRecentProgressJson()
	if len(last) != 1 {
		t.Fatalf("lastProgress: %d documents", len(last))
	}
	progressRows(t, last, id.GetId())
	recent := watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_RecentProgress{RecentProgress: true}}).GetRecentProgress().GetRecentProgressJson()
	if n := progressRows(t, recent, id.GetId()); n != 200 {
		t.Fatalf("recentProgress counts %d input rows, produced 200", n)
	}
	want := func() []string {
		var out []string
		for w, n := range counts {
			out = append(out, fmt.Sprintf("word=%s n=%d", w, n))
		}
		return out
	}
	same(t, "memory sink after 200 records", watcher.rows(watcher.sql("SELECT word, n FROM counts")), want())

	// More data: the complete-mode table follows.
	produceWords(t, b.Addr(), "words", 77, 1, counts)
	watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
	same(t, "memory sink after 277 records", watcher.rows(watcher.sql("SELECT word, n FROM counts")), want())

	active := watcher.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries()
	if len(active) != 1 || active[0].GetId().GetId() != id.GetId() || active[0].GetName() != "counts" {
		t.Fatalf("active %v", active)
	}
	got := watcher.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_GetQuery{GetQuery: id.GetId()}}).GetQuery()
	if got.GetId().GetRunId() != id.GetRunId() {
		t.Fatalf("get %v", got)
	}
	if ended := watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
		AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{TimeoutMs: ptr(int64(50))},
	}}).GetAwaitTermination().GetTerminated(); ended {
		t.Fatal("awaitTermination(50 ms) says a running query terminated")
	}
	if ex := watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Explain{Explain: &pb.StreamingQueryCommand_ExplainCommand{}}}).GetExplain().GetResult(); !strings.Contains(strings.ToLower(ex), "aggregate") {
		t.Fatalf("explain %q", ex)
	}

	watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
	if st := watcher.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}}).GetStatus(); st.GetIsActive() {
		t.Fatalf("status after stop %v", st)
	}
	if !starter.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
		AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{},
	}}).GetAwaitTermination().GetTerminated() {
		t.Fatal("awaitTermination after stop: not terminated")
	}
	if ex := starter.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}}).GetException(); ex.ExceptionMessage != nil {
		t.Fatalf("exception after a clean stop: %v", ex)
	}
	if n := len(starter.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries()); n != 0 {
		t.Fatalf("%d active queries after stop", n)
	}
	if !starter.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
		AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: ptr(int64(1000))},
	}}).GetAwaitAnyTermination().GetTerminated() {
		t.Fatal("awaitAnyTermination: no terminated query")
	}
	starter.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_ResetTerminated{ResetTerminated: true}})
	if starter.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
		AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: ptr(int64(50))},
	}}).GetAwaitAnyTermination().GetTerminated() {
		t.Fatal("awaitAnyTermination after resetTerminated: still terminated")
	}
	if _, err := starter.command(&pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: &pb.StreamingQueryCommand{
		QueryId: id, Command: &pb.StreamingQueryCommand_Status{Status: true},
	}}}); err == nil || !strings.Contains(err.Error(), "STREAMING_QUERY_NOT_FOUND") {
		t.Fatalf("status of a reset query: %v", err)
	}
}

// TestStreamingStartRefusals: queries Atlas cannot run fail at start with
// the reason, and none is left registered.
func TestStreamingStartRefusals(t *testing.T) {
	srv, _ := startKafkaServer(t, 1, t.TempDir())
	c := dial(t, srv.Addr())
	cases := []struct {
		w    *pb.WriteStreamOperationStart
		code codes.Code
		msg  string
	}{
		{&pb.WriteStreamOperationStart{Input: wordCounts("t"), Format: "memory", OutputMode: "complete", QueryName: "x",
			ForeachBatch: &pb.StreamingForeachFunction{}}, codes.Unimplemented, "foreachBatch"},
		{&pb.WriteStreamOperationStart{Input: wordCounts("t"), Format: "delta", OutputMode: "complete", QueryName: "x"}, codes.Internal, "delta"},
		{&pb.WriteStreamOperationStart{Input: table("lakehouse.silver.none"), Format: "memory", QueryName: "x"}, codes.NotFound, "none"},
	}
	for _, tc := range cases {
		_, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: tc.w}})
		st, _ := status.FromError(err)
		if st.Code() != tc.code || !strings.Contains(st.Message(), tc.msg) {
			t.Errorf("got %v %q, want %v containing %q", st.Code(), st.Message(), tc.code, tc.msg)
		}
	}
	if n := len(c.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries()); n != 0 {
		t.Fatalf("%d queries registered after refused starts", n)
	}
}

// TestStopServerStopsQueries: queries live until the server stops.
func TestStopServerStopsQueries(t *testing.T) {
	srv, b := startKafkaServer(t, 1, t.TempDir())
	produceWords(t, b.Addr(), "w", 10, 0, map[string]int{})
	c := dial(t, srv.Addr())
	if _, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: wordCounts("w"), Format: "memory", OutputMode: "complete", QueryName: "w",
	}}}); err != nil {
		t.Fatal(err)
	}
	sess, ok := srv.svc.sessions.lookup(sessionKey{OwnerPrincipal, "test", c.session})
	if !ok {
		t.Fatal("no session")
	}
	qs := sess.listQueries(true)
	if len(qs) != 1 {
		t.Fatalf("%d active queries", len(qs))
	}
	srv.Stop()
	if qs[0].sq.IsActive() {
		t.Fatal("the query still runs after the server stopped")
	}
}

// TestIdleSessionsExpire: a session nobody uses is closed after the
// timeout; one with a running streaming query is kept.
func TestIdleSessionsExpire(t *testing.T) {
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, SessionTimeout: 100 * time.Millisecond,
		Conf: map[string]string{engine.ConfHome: t.TempDir(), engine.ConfKafkaBrokers: b.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	produceWords(t, b.Addr(), "w", 10, 0, map[string]int{})
	idle, streaming := dial(t, srv.Addr()), dial(t, srv.Addr())
	idle.rows(idle.sql("SHOW NAMESPACES"))
	if _, err := streaming.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: wordCounts("w"), Format: "memory", OutputMode: "complete", QueryName: "w",
	}}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := srv.svc.sessions.lookup(sessionKey{OwnerPrincipal, "test", idle.session}); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sess, ok := srv.svc.sessions.lookup(sessionKey{OwnerPrincipal, "test", streaming.session})
	if !ok || len(sess.listQueries(true)) != 1 {
		t.Fatalf("the session with a running query was closed (%v)", ok)
	}
}
