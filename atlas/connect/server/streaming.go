package server

import (
	"context"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// streamingCommand runs the commands of Structured Streaming: starting a
// query, a query's own commands, and the session's query manager.
func (s *service) streamingCommand(ctx context.Context, sess *session, out *responder, cmd *pb.Command) error {
	switch c := cmd.GetCommandType().(type) {
	case *pb.Command_WriteStreamOperationStart:
		return s.startQuery(ctx, sess, out, c.WriteStreamOperationStart)
	case *pb.Command_StreamingQueryCommand:
		res, err := s.queryCommand(ctx, sess, c.StreamingQueryCommand)
		if err != nil {
			return err
		}
		return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryCommandResult{StreamingQueryCommandResult: res}})
	case *pb.Command_StreamingQueryManagerCommand:
		res, err := managerCommand(ctx, sess, c.StreamingQueryManagerCommand)
		if err != nil {
			return err
		}
		return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryManagerCommandResult{StreamingQueryManagerCommandResult: res}})
	}
	return &planner.UnsupportedError{What: "command " + commandName(cmd), Hint: "see the README's table of supported Spark Connect messages"}
}

func (s *service) startQuery(ctx context.Context, sess *session, out *responder, w *pb.WriteStreamOperationStart) error {
	sq, explain, err := sess.planner.StartStream(ctx, w)
	if err != nil {
		return err
	}
	sess.addQuery(sq, explain)
	s.logf("session %s started streaming query %s (id %s, run %s)", sess.key.id, sq.Name(), sq.ID(), sq.RunID())
	return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
		WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{
			QueryId: &pb.StreamingQueryInstanceId{Id: sq.ID(), RunId: sq.RunID()},
			Name:    sq.Name(),
		},
	}})
}

// queryCommand runs one command on a query: status, lastProgress,
// recentProgress, stop, processAllAvailable, explain, exception,
// awaitTermination.
func (s *service) queryCommand(ctx context.Context, sess *session, c *pb.StreamingQueryCommand) (*pb.StreamingQueryCommandResult, error) {
	q, err := sess.query(c.GetQueryId().GetId(), c.GetQueryId().GetRunId())
	if err != nil {
		return nil, err
	}
	sq := q.sq
	res := &pb.StreamingQueryCommandResult{QueryId: &pb.StreamingQueryInstanceId{Id: sq.ID(), RunId: sq.RunID()}}
	switch cmd := c.GetCommand().(type) {
	case *pb.StreamingQueryCommand_Status:
		res.ResultType = &pb.StreamingQueryCommandResult_Status{Status: planner.QueryStatus(sq)}
	case *pb.StreamingQueryCommand_LastProgress, *pb.StreamingQueryCommand_RecentProgress:
		_, last := cmd.(*pb.StreamingQueryCommand_LastProgress)
		p, err := planner.QueryProgress(sq, last)
		if err != nil {
			return nil, err
		}
		res.ResultType = &pb.StreamingQueryCommandResult_RecentProgress{RecentProgress: p}
	case *pb.StreamingQueryCommand_Stop:
		if err := sq.Stop(); err != nil {
			return nil, fmt.Errorf("stop query %s: %w", sq.ID(), err)
		}
		s.logf("session %s stopped streaming query %s (id %s)", sess.key.id, sq.Name(), sq.ID())
	case *pb.StreamingQueryCommand_ProcessAllAvailable:
		done := make(chan error, 1)
		go func() { done <- sq.ProcessAllAvailable() }()
		select {
		case err := <-done:
			if err != nil {
				return nil, fmt.Errorf("[STREAM_FAILED] query %s: %w", sq.ID(), err)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case *pb.StreamingQueryCommand_Explain:
		res.ResultType = &pb.StreamingQueryCommandResult_Explain{Explain: &pb.StreamingQueryCommandResult_ExplainResult{Result: q.explain}}
	case *pb.StreamingQueryCommand_Exception:
		res.ResultType = &pb.StreamingQueryCommandResult_Exception{Exception: planner.QueryException(sq)}
	case *pb.StreamingQueryCommand_AwaitTermination:
		timeout := time.Duration(-1)
		if cmd.AwaitTermination.TimeoutMs != nil {
			timeout = time.Duration(cmd.AwaitTermination.GetTimeoutMs()) * time.Millisecond
		}
		ended, err := awaitTermination(ctx, timeout, func() bool { return !sq.IsActive() })
		if err != nil {
			return nil, err
		}
		if ended && sq.Exception() != nil {
			return nil, fmt.Errorf("[STREAM_FAILED] query %s terminated with exception: %w", sq.ID(), sq.Exception())
		}
		res.ResultType = &pb.StreamingQueryCommandResult_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommandResult_AwaitTerminationResult{Terminated: ended}}
	default:
		return nil, &planner.UnsupportedError{What: "this streaming query command"}
	}
	return res, nil
}

// managerCommand runs spark.streams: active, get, awaitAnyTermination,
// resetTerminated. Listeners are not supported.
func managerCommand(ctx context.Context, sess *session, c *pb.StreamingQueryManagerCommand) (*pb.StreamingQueryManagerCommandResult, error) {
	res := &pb.StreamingQueryManagerCommandResult{}
	switch cmd := c.GetCommand().(type) {
	case *pb.StreamingQueryManagerCommand_Active:
		active := &pb.StreamingQueryManagerCommandResult_ActiveResult{}
		for _, q := range sess.listQueries(true) {
			active.ActiveQueries = append(active.ActiveQueries, instance(q))
		}
		res.ResultType = &pb.StreamingQueryManagerCommandResult_Active{Active: active}
	case *pb.StreamingQueryManagerCommand_GetQuery:
		// Spark answers an unknown id with an empty instance (None in PySpark).
		inst := &pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{Id: &pb.StreamingQueryInstanceId{}}
		if q, err := sess.query(cmd.GetQuery, ""); err == nil && q.sq.IsActive() {
			inst = instance(q)
		}
		res.ResultType = &pb.StreamingQueryManagerCommandResult_Query{Query: inst}
	case *pb.StreamingQueryManagerCommand_AwaitAnyTermination:
		timeout := time.Duration(-1)
		if cmd.AwaitAnyTermination.TimeoutMs != nil {
			timeout = time.Duration(cmd.AwaitAnyTermination.GetTimeoutMs()) * time.Millisecond
		}
		ended, err := awaitTermination(ctx, timeout, func() bool {
			return len(sess.listQueries(false)) > len(sess.listQueries(true))
		})
		if err != nil {
			return nil, err
		}
		res.ResultType = &pb.StreamingQueryManagerCommandResult_AwaitAnyTermination{AwaitAnyTermination: &pb.StreamingQueryManagerCommandResult_AwaitAnyTerminationResult{Terminated: ended}}
	case *pb.StreamingQueryManagerCommand_ResetTerminated:
		sess.resetTerminated()
		res.ResultType = &pb.StreamingQueryManagerCommandResult_ResetTerminated{ResetTerminated: true}
	default:
		return nil, &planner.UnsupportedError{What: "streaming query listeners", Hint: "poll query.lastProgress or query.status"}
	}
	return res, nil
}

func instance(q *query) *pb.StreamingQueryManagerCommandResult_StreamingQueryInstance {
	name := q.sq.Name()
	inst := &pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{Id: &pb.StreamingQueryInstanceId{Id: q.sq.ID(), RunId: q.sq.RunID()}}
	if name != "" {
		inst.Name = &name
	}
	return inst
}

func commandName(cmd *pb.Command) string {
	od := cmd.ProtoReflect().Descriptor().Oneofs().ByName("command_type")
	if fd := cmd.ProtoReflect().WhichOneof(od); fd != nil {
		return string(fd.Name())
	}
	return "(none)"
}
