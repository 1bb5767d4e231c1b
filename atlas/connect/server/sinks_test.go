package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// TestSinksOverConnect starts, as PySpark's Connect client sends them,
// writeStream.format("kafka").option("topic", ...) and
// writeStream.format("json").start(path) on a Kafka topic of words: a
// read_committed consumer sees each word once, and spark.read.json(path)
// reads exactly the words through the sink log. A foreach writer is
// refused with the reason.
func TestSinksOverConnect(t *testing.T) {
	home := t.TempDir()
	srv, b := startKafkaServer(t, 3, home)
	counts := map[string]int{}
	produceWords(t, b.Addr(), "words", 40, 0, counts)
	if err := stack.EnsureTopic(context.Background(), []string{b.Addr()}, "copies", 3); err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv.Addr())
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("kafka"), Options: map[string]string{"subscribe": "words", "startingOffsets": "earliest"},
	}}}}}
	words := &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: read, Expressions: []*pb.Expression{
		{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: "CAST(value AS STRING) AS value"}}},
	}}}}
	out := filepath.Join(home, "out")
	start := func(w *pb.WriteStreamOperationStart) (*pb.StreamingQueryInstanceId, error) {
		resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: w}})
		if err != nil {
			return nil, err
		}
		for _, r := range resps {
			if s := r.GetWriteStreamOperationStartResult(); s != nil {
				return s.GetQueryId(), nil
			}
		}
		return nil, fmt.Errorf("no start result")
	}
	kq, err := start(&pb.WriteStreamOperationStart{Input: words, Format: "kafka", Options: map[string]string{
		"topic": "copies", "checkpointLocation": filepath.Join(home, "ck-kafka")}})
	if err != nil {
		t.Fatal(err)
	}
	fq, err := start(&pb.WriteStreamOperationStart{Input: words, Format: "json", Options: map[string]string{
		"checkpointLocation": filepath.Join(home, "ck-json")}, SinkDestination: &pb.WriteStreamOperationStart_Path{Path: out}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []*pb.StreamingQueryInstanceId{kq, fq} {
		c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
		c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
	}
	var want []string
	for w, n := range counts {
		for range n {
			want = append(want, "value="+w)
		}
	}
	sort.Strings(want)

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("copies"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); len(got) < len(want) && time.Now().Before(deadline); {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, "value="+string(r.Value)) })
		cancel()
	}
	sort.Strings(got)
	same(t, "kafka sink, read_committed", got, want)

	readJSON := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("json"), Schema: ptr("value string"), Paths: []string{out},
	}}}}}
	same(t, "json sink read back", c.rows(readJSON), want)

	if _, err := start(&pb.WriteStreamOperationStart{Input: words, ForeachWriter: &pb.StreamingForeachFunction{}}); err == nil || !strings.Contains(err.Error(), "Foreach(writer)") {
		t.Fatalf("a foreach writer: %v, want a refusal naming the alternatives", err)
	}
}

// TestFailedQueryOverConnect: a Kafka sink row aimed at a partition the
// topic does not have fails its batch (the transaction aborts: a
// read_committed reader sees nothing); awaitAnyTermination raises the
// query's exception, as Spark's, and the listener bus carries the
// terminated event with it.
func TestFailedQueryOverConnect(t *testing.T) {
	home := t.TempDir()
	srv, b := startKafkaServer(t, 3, home)
	produceWords(t, b.Addr(), "words", 10, 0, map[string]int{})
	if err := stack.EnsureTopic(context.Background(), []string{b.Addr()}, "copies", 3); err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := c.rpc.ExecutePlan(ctx, &pb.ExecutePlanRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"}, Plan: busCommand(true)})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := stream.Recv(); err != nil || !r.GetStreamingQueryListenerEventsResult().GetListenerBusListenerAdded() {
		t.Fatalf("listener bus: %v %v", r, err)
	}
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("kafka"), Options: map[string]string{"subscribe": "words", "startingOffsets": "earliest"},
	}}}}}
	rows := &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: read, Expressions: []*pb.Expression{
		{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: "CAST(value AS STRING) AS value"}}},
		{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: "CAST(99 AS INT) AS partition"}}},
	}}}}
	if _, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: rows, Format: "kafka", Options: map[string]string{"topic": "copies", "checkpointLocation": filepath.Join(home, "ck")},
	}}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.command(&pb.Command{CommandType: &pb.Command_StreamingQueryManagerCommand{StreamingQueryManagerCommand: &pb.StreamingQueryManagerCommand{
		Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: ptr(int64(20000))}},
	}}})
	if err == nil || !strings.Contains(err.Error(), "STREAM_FAILED") || !strings.Contains(err.Error(), "batch 0") {
		t.Fatalf("awaitAnyTermination = %v, want the query's exception", err)
	}
	for {
		r, err := stream.Recv()
		if err != nil {
			t.Fatalf("listener stream ended before the terminated event: %v", err)
		}
		var ev struct {
			Exception *string `json:"exception"`
		}
		var done bool
		for _, e := range r.GetStreamingQueryListenerEventsResult().GetEvents() {
			if e.GetEventType() == pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT {
				if json.Unmarshal([]byte(e.GetEventJson()), &ev) != nil || ev.Exception == nil || !strings.Contains(*ev.Exception, "batch 0") {
					t.Fatalf("terminated event %s, want the exception", e.GetEventJson())
				}
				done = true
			}
		}
		if done {
			break
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("copies"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	pctx, pcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer pcancel()
	if n := cl.PollFetches(pctx).NumRecords(); n != 0 {
		t.Fatalf("read_committed saw %d records of the failed batch", n)
	}
}
