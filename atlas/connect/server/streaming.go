package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"

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
	case *pb.Command_StreamingQueryListenerBusCommand:
		return s.listenerBusCommand(ctx, sess, out, c.StreamingQueryListenerBusCommand)
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
	sq, err := s.startStream(ctx, sess, w)
	if err != nil {
		return err
	}
	s.logf("session %s started streaming query %s (id %s, run %s)", sess.key.tag(), sq.Name(), sq.ID(), sq.RunID())
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
		// Stopped by the user: not resumed by a restart, even one that
		// comes before the record's watcher runs.
		s.forget(sq)
		s.logf("session %s stopped streaming query %s (id %s)", sess.key.tag(), sq.Name(), sq.ID())
	case *pb.StreamingQueryCommand_ProcessAllAvailable:
		// Bound to the request: a client that goes away stops the wait.
		if err := sq.ProcessAllAvailableContext(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("[STREAM_FAILED] query %s: %w", sq.ID(), err)
		}
	case *pb.StreamingQueryCommand_Explain:
		res.ResultType = &pb.StreamingQueryCommandResult_Explain{Explain: &pb.StreamingQueryCommandResult_ExplainResult{Result: sq.ExplainString(cmd.Explain.GetExtended())}}
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

// managerCommand runs spark.streams through the session's
// StreamingQueryManager: active, get, awaitAnyTermination,
// resetTerminated. Listeners registered with Python code (add_listener) are
// not supported; PySpark 4's listeners use the listener bus
// (StreamingQueryListenerBusCommand) instead.
func managerCommand(ctx context.Context, sess *session, c *pb.StreamingQueryManagerCommand) (*pb.StreamingQueryManagerCommandResult, error) {
	res := &pb.StreamingQueryManagerCommandResult{}
	mgr := sess.engine.Streams()
	switch cmd := c.GetCommand().(type) {
	case *pb.StreamingQueryManagerCommand_Active:
		active := &pb.StreamingQueryManagerCommandResult_ActiveResult{}
		for _, sq := range mgr.Active() {
			active.ActiveQueries = append(active.ActiveQueries, instance(sq))
		}
		res.ResultType = &pb.StreamingQueryManagerCommandResult_Active{Active: active}
	case *pb.StreamingQueryManagerCommand_GetQuery:
		// Spark answers an unknown id with an empty instance (None in PySpark).
		inst := &pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{Id: &pb.StreamingQueryInstanceId{}}
		if sq := mgr.Get(cmd.GetQuery); sq != nil {
			inst = instance(sq)
		}
		res.ResultType = &pb.StreamingQueryManagerCommandResult_Query{Query: inst}
	case *pb.StreamingQueryManagerCommand_AwaitAnyTermination:
		wait, cancel := ctx, context.CancelFunc(func() {})
		if cmd.AwaitAnyTermination.TimeoutMs != nil {
			wait, cancel = context.WithTimeout(ctx, time.Duration(cmd.AwaitAnyTermination.GetTimeoutMs())*time.Millisecond)
		}
		err := mgr.AwaitAnyTerminationContext(wait)
		cancel()
		ended := true
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && wait.Err() != nil:
			ended = false
		case err != nil:
			// As Spark: awaitAnyTermination raises the query's exception.
			return nil, fmt.Errorf("[STREAM_FAILED] %w", err)
		}
		res.ResultType = &pb.StreamingQueryManagerCommandResult_AwaitAnyTermination{AwaitAnyTermination: &pb.StreamingQueryManagerCommandResult_AwaitAnyTerminationResult{Terminated: ended}}
	case *pb.StreamingQueryManagerCommand_ResetTerminated:
		mgr.ResetTerminated()
		sess.resetTerminated()
		res.ResultType = &pb.StreamingQueryManagerCommandResult_ResetTerminated{ResetTerminated: true}
	case *pb.StreamingQueryManagerCommand_AddListener, *pb.StreamingQueryManagerCommand_RemoveListener, *pb.StreamingQueryManagerCommand_ListListeners:
		return nil, &planner.UnsupportedError{What: "streaming query listeners with Python code (Spark 3.5's add_listener)", Hint: "PySpark 4's spark.streams.addListener uses the listener bus, which Atlas supports; or poll query.lastProgress"}
	default:
		return nil, &planner.UnsupportedError{What: "this streaming query manager command"}
	}
	return res, nil
}

func instance(sq *engine.StreamingQuery) *pb.StreamingQueryManagerCommandResult_StreamingQueryInstance {
	name := sq.Name()
	inst := &pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{Id: &pb.StreamingQueryInstanceId{Id: sq.ID(), RunId: sq.RunID()}}
	if name != "" {
		inst.Name = &name
	}
	return inst
}

func commandName(cmd *pb.Command) string {
	return planner.OneofName(cmd.ProtoReflect(), "command_type")
}
