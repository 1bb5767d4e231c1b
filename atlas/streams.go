package atlas

import (
	"context"
	"errors"
	"fmt"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// StreamingQueryManager lists and waits for the session's streaming
// queries on the server, as spark.streams.
type StreamingQueryManager struct{ s *Session }

// Streams returns the session's query manager.
func (s *Session) Streams() *StreamingQueryManager { return &StreamingQueryManager{s} }

func (m *StreamingQueryManager) command(ctx context.Context, c *pb.StreamingQueryManagerCommand) (*pb.StreamingQueryManagerCommandResult, error) {
	resps, err := m.s.command(ctx, &pb.Command{CommandType: &pb.Command_StreamingQueryManagerCommand{StreamingQueryManagerCommand: c}})
	if err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	for _, r := range resps {
		if res := r.GetStreamingQueryManagerCommandResult(); res != nil {
			return res, nil
		}
	}
	return nil, errors.New("streams: the server answered without a result")
}

func (m *StreamingQueryManager) instance(qi *pb.StreamingQueryManagerCommandResult_StreamingQueryInstance) *StreamingQuery {
	return m.s.query(qi.GetId(), qi.GetName())
}

// Active returns the running queries, including those started by earlier
// cells (processes) of this session, as streams.active.
func (m *StreamingQueryManager) Active() ([]*StreamingQuery, error) {
	ctx, cancel := shortCtx()
	defer cancel()
	res, err := m.command(ctx, &pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}})
	if err != nil {
		return nil, err
	}
	var out []*StreamingQuery
	for _, qi := range res.GetActive().GetActiveQueries() {
		out = append(out, m.instance(qi))
	}
	return out, nil
}

// Get returns the query with this id (or, on Atlas, this name), as
// streams.get(id). It fails when the server knows no such query.
func (m *StreamingQueryManager) Get(idOrName string) (*StreamingQuery, error) {
	ctx, cancel := shortCtx()
	defer cancel()
	res, err := m.command(ctx, &pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_GetQuery{GetQuery: idOrName}})
	if err != nil {
		return nil, err
	}
	qi := res.GetQuery()
	if qi == nil || qi.GetId().GetId() == "" {
		return nil, m.notActive(ctx, idOrName)
	}
	return m.instance(qi), nil
}

// notActive is Get's error for a query that is not running: when the
// session still knows a query of that id or name that ended, it says how
// it ended (a foreachBatch query whose cell went away fails, and says
// so), else that there is none.
func (m *StreamingQueryManager) notActive(ctx context.Context, idOrName string) error {
	ended := m.s.query(&pb.StreamingQueryInstanceId{Id: idOrName}, idOrName)
	res, err := ended.command(ctx, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}})
	if err != nil {
		return fmt.Errorf("streams: no query %q in this session (Active lists the running ones)", idOrName)
	}
	if e := res.GetException(); e != nil && e.ExceptionMessage != nil {
		return fmt.Errorf("streams: query %q is not running: it terminated with an exception: %w", idOrName, &ServerError{Message: e.GetExceptionMessage()})
	}
	return fmt.Errorf("streams: query %q is not running: it was stopped (start it again to resume from its checkpoint)", idOrName)
}

// AwaitAnyTermination blocks until any query of the session terminates
// (or has terminated since the last ResetTerminated), or d passes when
// d > 0; it reports whether one did.
func (m *StreamingQueryManager) AwaitAnyTermination(d time.Duration) (bool, error) {
	c := &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{}
	if d > 0 {
		c.TimeoutMs = ptr(d.Milliseconds())
	}
	res, err := m.command(context.Background(), &pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{AwaitAnyTermination: c}})
	if err != nil {
		return false, err
	}
	return res.GetAwaitAnyTermination().GetTerminated(), nil
}

// ResetTerminated forgets past terminations, so AwaitAnyTermination waits
// for a new one.
func (m *StreamingQueryManager) ResetTerminated() error {
	ctx, cancel := shortCtx()
	defer cancel()
	_, err := m.command(ctx, &pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_ResetTerminated{ResetTerminated: true}})
	return err
}
