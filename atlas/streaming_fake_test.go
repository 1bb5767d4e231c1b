package atlas_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// fbServer plays the server side of the foreachBatch extension for
// batches 0..n-1, logging what it sees in order.
type fbServer struct {
	n    int
	acks chan *atlaspb.ForeachBatchDone

	mu  sync.Mutex
	log []string
}

func (s *fbServer) note(format string, args ...any) {
	s.mu.Lock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *fbServer) events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *fbServer) execute(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
	cmd := req.GetPlan().GetCommand()
	if sql := cmd.GetSqlCommand(); sql != nil {
		s.note("sql %s", sql.GetInput().GetSql().GetQuery())
		return stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_SqlCommandResult_{
			SqlCommandResult: &pb.ExecutePlanResponse_SqlCommandResult{Relation: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT 1"}}}}}})
	}
	ext := cmd.GetExtension()
	done := &atlaspb.ForeachBatchDone{}
	if ext.MessageIs(done) {
		if err := ext.UnmarshalTo(done); err != nil {
			return err
		}
		s.note("done %d %q", done.GetBatchId(), done.GetError())
		s.acks <- done
		return nil
	}
	start := &atlaspb.ForeachBatchStart{}
	if err := ext.UnmarshalTo(start); err != nil {
		return status.Errorf(codes.InvalidArgument, "unexpected command %v", cmd)
	}
	s.note("start %s", start.GetWriteStream().GetQueryName())
	id := &pb.StreamingQueryInstanceId{Id: "q", RunId: "r"}
	if err := stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
		WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{QueryId: id, Name: start.GetWriteStream().GetQueryName()}}}); err != nil {
		return err
	}
	for b := 0; b < s.n; b++ {
		ready, _ := anypb.New(&atlaspb.ForeachBatchReady{QueryId: id, BatchId: int64(b), Batch: &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{
			ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: fmt.Sprintf("batch_%d", b)}}}}}})
		s.note("ready %d", b)
		if err := stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_Extension{Extension: ready}}); err != nil {
			return err
		}
		select {
		case ack := <-s.acks:
			if ack.GetError() != "" {
				s.note("query failed")
				return status.Error(codes.Aborted, ack.GetError())
			}
			s.note("commit %d", b)
		case <-stream.Context().Done():
			s.note("client gone at batch %d: not committed", b)
			return stream.Context().Err()
		}
	}
	return nil
}

func TestForeachBatchRunsInTheClientBetweenReadyAndDone(t *testing.T) {
	srv := &fbServer{n: 3, acks: make(chan *atlaspb.ForeachBatchDone, 1)}
	spark := startFake(t, &fakeServer{execute: srv.execute})
	var seen []string
	q, err := spark.Table("src").WriteStream().QueryName("cdc").Progress(false).
		ForeachBatch(func(batch *atlas.DataFrame, id int64) error {
			rel, _ := batch.Relation()
			seen = append(seen, fmt.Sprintf("%d:%s", id, rel.GetRead().GetNamedTable().GetUnparsedIdentifier()))
			_, err := spark.SQL(fmt.Sprintf("MERGE %d", id))
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	want := []string{"start cdc",
		"ready 0", "sql MERGE 0", `done 0 ""`, "commit 0",
		"ready 1", "sql MERGE 1", `done 1 ""`, "commit 1",
		"ready 2", "sql MERGE 2", `done 2 ""`, "commit 2"}
	if got := srv.events(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("server saw\n %q\nwant\n %q", got, want)
	}
	if strings.Join(seen, ",") != "0:batch_0,1:batch_1,2:batch_2" {
		t.Fatalf("function saw %v", seen)
	}
}

func TestForeachBatchErrorStopsTheQueryUncommitted(t *testing.T) {
	srv := &fbServer{n: 3, acks: make(chan *atlaspb.ForeachBatchDone, 1)}
	spark := startFake(t, &fakeServer{execute: srv.execute})
	q, err := spark.Table("src").WriteStream().Progress(false).
		ForeachBatch(func(_ *atlas.DataFrame, id int64) error {
			if id == 1 {
				panic("boom")
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	err = q.AwaitTermination()
	if err == nil || !strings.Contains(err.Error(), "foreachBatch, batch 1: panic: boom") {
		t.Fatalf("AwaitTermination = %v", err)
	}
	got := strings.Join(srv.events(), "|")
	if !strings.Contains(got, `done 1 "foreachBatch, batch 1: panic: boom"|query failed`) || strings.Contains(got, "commit 1") {
		t.Fatalf("server saw %s", got)
	}
}

func TestInterruptStopsAForeachBatchQueryWithoutCommitting(t *testing.T) {
	srv := &fbServer{n: 3, acks: make(chan *atlaspb.ForeachBatchDone, 1)}
	spark := startFake(t, &fakeServer{execute: srv.execute})
	inBatch := make(chan struct{})
	release := make(chan struct{})
	q, err := spark.Table("src").WriteStream().Progress(false).
		ForeachBatch(func(_ *atlas.DataFrame, id int64) error {
			if id == 1 {
				close(inBatch)
				<-release
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-inBatch
		time.Sleep(100 * time.Millisecond) // AwaitTermination is listening by now
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		time.Sleep(200 * time.Millisecond)
		close(release)
	}()
	start := time.Now()
	err = q.AwaitTermination()
	if !errors.Is(err, atlas.ErrInterrupted) {
		t.Fatalf("AwaitTermination = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("interrupt took %s", d)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(strings.Join(srv.events(), "|"), "client gone at batch 1") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := strings.Join(srv.events(), "|")
	if !strings.Contains(got, "commit 0|ready 1|client gone at batch 1: not committed") || strings.Contains(got, "done 1") {
		t.Fatalf("server saw %s", got)
	}
}

func TestInterruptStopsAServerQuery(t *testing.T) {
	var mu sync.Mutex
	var cmds []string
	awaiting := make(chan struct{}, 16)
	f := &fakeServer{}
	f.execute = func(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
		c := req.GetPlan().GetCommand()
		if ws := c.GetWriteStreamOperationStart(); ws != nil {
			return stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
				WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{QueryId: &pb.StreamingQueryInstanceId{Id: "q", RunId: "r"}, Name: "counts"}}})
		}
		sq := c.GetStreamingQueryCommand()
		res := &pb.StreamingQueryCommandResult{QueryId: sq.GetQueryId()}
		switch {
		case sq.GetAwaitTermination() != nil:
			mu.Lock()
			cmds = append(cmds, "await")
			mu.Unlock()
			awaiting <- struct{}{}
			select {
			case <-time.After(time.Duration(sq.GetAwaitTermination().GetTimeoutMs()) * time.Millisecond):
			case <-stream.Context().Done():
				return stream.Context().Err()
			}
			res.ResultType = &pb.StreamingQueryCommandResult_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommandResult_AwaitTerminationResult{}}
		case sq.GetStop():
			mu.Lock()
			cmds = append(cmds, "stop")
			mu.Unlock()
		case sq.GetRecentProgress():
			res.ResultType = &pb.StreamingQueryCommandResult_RecentProgress{RecentProgress: &pb.StreamingQueryCommandResult_RecentProgressResult{
				RecentProgressJson: []string{`{"id":"q","runId":"r","name":"counts","batchId":4,"numInputRows":10}`}}}
		}
		return stream.Send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryCommandResult{StreamingQueryCommandResult: res}})
	}
	spark := startFake(t, f)
	q, err := spark.Table("src").WriteStream().Format("memory").QueryName("counts").Trigger(atlas.ProcessingTime("1 second")).Start()
	if err != nil {
		t.Fatal(err)
	}
	if p := q.LastProgress(); p != nil {
		t.Fatalf("last progress %v from a server that sent none for last_progress", p)
	}
	if ps := q.RecentProgress(); len(ps) != 1 || ps[0].BatchID != 4 || ps[0].NumInputRows != 10 {
		t.Fatalf("recent progress %+v", ps)
	}
	if tt := q.Totals(); tt != (atlas.QueryTotals{Batches: 1, InputRows: 10}) {
		t.Fatalf("totals %+v, want the one batch of 10 rows the server reported", tt)
	}
	go func() {
		<-awaiting
		<-awaiting // the second poll: the view has been refreshed once
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	}()
	start := time.Now()
	err = q.AwaitTermination()
	if !errors.Is(err, atlas.ErrInterrupted) {
		t.Fatalf("AwaitTermination = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("interrupt took %s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if cmds[len(cmds)-1] != "stop" {
		t.Fatalf("commands %v: the interrupt sent no stop", cmds)
	}
}
