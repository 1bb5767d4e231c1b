package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func busCommand(add bool) *pb.Plan {
	c := &pb.StreamingQueryListenerBusCommand{Command: &pb.StreamingQueryListenerBusCommand_RemoveListenerBusListener{RemoveListenerBusListener: true}}
	if add {
		c.Command = &pb.StreamingQueryListenerBusCommand_AddListenerBusListener{AddListenerBusListener: true}
	}
	return &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_StreamingQueryListenerBusCommand{StreamingQueryListenerBusCommand: c}}}}
}

// TestListenerBusOverConnect follows a query's events through the
// listener bus as PySpark 4 receives them: the add command answers
// listener_bus_listener_added and then streams, in order, the idle event
// of the empty first trigger (noDataProgressEventInterval is 1 hour, so
// only that one), a progress event per batch with the rows produced for
// it, and the terminated event of the stop; remove_listener_bus_listener
// from another request ends the stream. Start, awaitAnyTermination and
// active go through the session's query manager.
func TestListenerBusOverConnect(t *testing.T) {
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{
		engine.ConfHome: t.TempDir(), engine.ConfKafkaBrokers: b.Addr(), engine.ConfNoDataProgressEventInterval: "3600000",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	if err := stack.EnsureTopic(context.Background(), []string{b.Addr()}, "words", 3); err != nil {
		t.Fatal(err)
	}

	listener := dial(t, srv.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := listener.rpc.ExecutePlan(ctx, &pb.ExecutePlanRequest{
		SessionId: listener.session, UserContext: &pb.UserContext{UserId: "test"}, Plan: busCommand(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	first, err := stream.Recv()
	if err != nil || !first.GetStreamingQueryListenerEventsResult().GetListenerBusListenerAdded() {
		t.Fatalf("first response %v (%v), want listener_bus_listener_added", first, err)
	}
	type event struct {
		typ pb.StreamingQueryEventType
		js  string
	}
	events := make(chan event, 100)
	ended := make(chan error, 1)
	go func() {
		for {
			r, err := stream.Recv()
			if err != nil {
				ended <- err
				return
			}
			for _, e := range r.GetStreamingQueryListenerEventsResult().GetEvents() {
				events <- event{e.GetEventType(), e.GetEventJson()}
			}
		}
	}()
	next := func() event {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("no listener event within 10 s")
		}
		return event{}
	}

	starter := dial(t, srv.Addr())
	starter.session = listener.session
	resps, err := starter.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: wordCounts("words"), Format: "memory", OutputMode: "complete", QueryName: "counts",
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
	var idle struct{ ID, RunID, Timestamp string }
	if e := next(); e.typ != pb.StreamingQueryEventType_QUERY_IDLE_EVENT || json.Unmarshal([]byte(e.js), &idle) != nil || idle.ID != id.GetId() || idle.RunID != id.GetRunId() || idle.Timestamp == "" {
		t.Fatalf("first event %v %s, want the idle event of query %s", e.typ, e.js, id)
	}
	counts := map[string]int{}
	batch := int64(0)
	for i, n := range []int{50, 30} {
		produceWords(t, b.Addr(), "words", n, i, counts)
		starter.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
		// One progress event per batch, in batch order, until the batches
		// hold the n rows produced (a produce may land in one batch or two).
		for rows := int64(0); rows < int64(n); batch++ {
			e := next()
			var p struct {
				Progress struct {
					ID           string `json:"id"`
					RunID        string `json:"runId"`
					BatchID      int64  `json:"batchId"`
					NumInputRows int64  `json:"numInputRows"`
				} `json:"progress"`
			}
			if e.typ != pb.StreamingQueryEventType_QUERY_PROGRESS_EVENT || json.Unmarshal([]byte(e.js), &p) != nil {
				t.Fatalf("event %v %s, want a progress event", e.typ, e.js)
			}
			if p.Progress.ID != id.GetId() || p.Progress.RunID != id.GetRunId() || p.Progress.BatchID != batch || p.Progress.NumInputRows == 0 {
				t.Fatalf("progress event %s, want batch %d with rows of query %s", e.js, batch, id)
			}
			rows += p.Progress.NumInputRows
			if rows > int64(n) {
				t.Fatalf("progress events count %d rows, produced %d", rows, n)
			}
		}
	}
	if a := starter.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries(); len(a) != 1 || a[0].GetId().GetRunId() != id.GetRunId() {
		t.Fatalf("active %v", a)
	}
	starter.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
	e := next()
	want := fmt.Sprintf(`{"id":%q,"runId":%q,"exception":null,"errorClassOnException":null}`, id.GetId(), id.GetRunId())
	if e.typ != pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT || e.js != want {
		t.Fatalf("event %v %s, want terminated %s", e.typ, e.js, want)
	}
	if !starter.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
		AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: ptr(int64(1000))},
	}}).GetAwaitAnyTermination().GetTerminated() {
		t.Fatal("awaitAnyTermination after the stop: not terminated")
	}
	if _, err := starter.execute(busCommand(false)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("the listener stream ended with %v, want its end", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("remove_listener_bus_listener did not end the listener's stream")
	}
	select {
	case e := <-events:
		t.Fatalf("extra event %v %s", e.typ, e.js)
	default:
	}
	if _, err := starter.command(&pb.Command{CommandType: &pb.Command_StreamingQueryManagerCommand{StreamingQueryManagerCommand: &pb.StreamingQueryManagerCommand{
		Command: &pb.StreamingQueryManagerCommand_ListListeners{ListListeners: true},
	}}}); err == nil || !strings.Contains(err.Error(), "listener bus") {
		t.Fatalf("list_listeners: %v, want a refusal naming the listener bus", err)
	}
}

// TestProcessAllAvailableEndsWithItsClient: a processAllAvailable that
// cannot finish (the next trigger is an hour away) and whose client goes
// away leaves no goroutine waiting behind it.
func TestProcessAllAvailableEndsWithItsClient(t *testing.T) {
	srv, b := startKafkaServer(t, 1, t.TempDir())
	counts := map[string]int{}
	produceWords(t, b.Addr(), "words", 10, 0, counts)
	c := dial(t, srv.Addr())
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: wordCounts("words"), Format: "memory", OutputMode: "complete", QueryName: "hourly",
		Trigger: &pb.WriteStreamOperationStart_ProcessingTimeInterval{ProcessingTimeInterval: "1 hour"},
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
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	stream, err := c.rpc.ExecutePlan(ctx, &pb.ExecutePlanRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Plan: &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: &pb.StreamingQueryCommand{
			QueryId: id, Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true},
		}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := stream.Recv(); err != nil {
			break // the client's deadline
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, ".(*StreamingQuery).ProcessAllAvailable") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a goroutine still waits in ProcessAllAvailable after its client left:\n%s", stacks)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
}
