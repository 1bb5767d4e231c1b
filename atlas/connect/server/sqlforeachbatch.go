package server

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// The server side of atlas.connect.SqlForeachBatchStart: a foreachBatch
// whose body is SQL run here, so the query needs no client once started.
// It is recorded like a toTable query (with its view name and statements)
// and resumed after a server restart from its checkpoint.

// sqlBatchRecord is a SQL foreachBatch in a query record.
type sqlBatchRecord struct {
	View       string   `json:"view"`
	Statements []string `json:"statements"`
}

// sqlForeachBatchStart starts the query and answers with its id.
func (s *service) sqlForeachBatchStart(ctx context.Context, sess *session, out *responder, m *atlaspb.SqlForeachBatchStart) error {
	q, err := s.startSQLForeachBatch(ctx, sess, m)
	if err != nil {
		return err
	}
	s.logf("query %s (%s) started with a server-side foreachBatch (SQL over the view %s) in session %s", q.Name(), q.ID(), m.GetViewName(), sess.key.id)
	return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
		WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{
			QueryId: &pb.StreamingQueryInstanceId{Id: q.ID(), RunId: q.RunID()}, Name: q.Name()},
	}})
}

// startSQLForeachBatch validates m, starts its query in sess and records
// it for a restart. Invalid requests fail before any side effect.
func (s *service) startSQLForeachBatch(ctx context.Context, sess *session, m *atlaspb.SqlForeachBatchStart) (*engine.StreamingQuery, error) {
	ws := m.GetWriteStream()
	if ws == nil {
		return nil, invalidArgument(errors.New("foreachBatch SQL: write_stream is required"))
	}
	if err := engine.CheckForeachBatchSQL(m.GetViewName(), m.GetStatements()); err != nil {
		return nil, invalidArgument(err)
	}
	if ws.GetQueryName() == "" && ws.GetOptions()["checkpointLocation"] == "" {
		return nil, invalidArgument(errors.New("foreachBatch SQL: a query that outlives its client needs a durable checkpoint: add QueryName(\"cdc_merge\") (checkpoint under the server's checkpoint root) or the checkpointLocation option"))
	}
	df, err := sess.planner.Relation(ctx, ws.GetInput())
	if err != nil {
		return nil, err
	}
	w, err := foreachBatchWriter(df, ws)
	if err != nil {
		return nil, invalidArgument(fmt.Errorf("foreachBatch SQL: %w", err))
	}
	// The checkpoint records the view and statements: a start from it with
	// others (or with a client-side function) is refused, never mixed.
	w = w.ForeachBatchSQL(m.GetViewName(), m.GetStatements(), nil)
	q, err := w.Start()
	if errors.Is(err, checkpoint.ErrInUse) && s.stopActiveRun(sess, ws, true) {
		q, err = w.Start()
	}
	if err != nil {
		return nil, invalidArgument(err)
	}
	sess.addQuery(q, df.ExplainString())
	s.recordQuery(sess, q, ws, "", &sqlBatchRecord{View: m.GetViewName(), Statements: m.GetStatements()})
	return q, nil
}

// resumeSQLForeachBatch restarts a recorded SQL foreachBatch query.
func (s *service) resumeSQLForeachBatch(ctx context.Context, sess *session, w *pb.WriteStreamOperationStart, b *sqlBatchRecord) (*engine.StreamingQuery, error) {
	return s.startSQLForeachBatch(ctx, sess, &atlaspb.SqlForeachBatchStart{
		WriteStream: proto.Clone(w).(*pb.WriteStreamOperationStart), ViewName: b.View, Statements: b.Statements})
}
