package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// The server side of the foreachBatch extension (atlas.connect.
// ForeachBatchStart / ForeachBatchReady / ForeachBatchDone): the query runs
// here with an engine foreachBatch function that publishes each micro-batch
// as a temp view of the session, announces it on the ExecutePlan call that
// started the query, and waits for the client's answer. The engine commits
// the batch only when the function returns nil, that is after the client
// answered ok; while it waits, the engine session is inside the batch, so
// the client's writes through the session (MERGE, INSERT) are keyed by
// (query id, batch id, write sequence) and a replayed batch skips them.

// errClientGone stops a query whose client went away before it answered.
var errClientGone = errors.New("[FOREACH_BATCH_USER_FUNCTION_ERROR] the client running this query's foreachBatch function went away (its cell ended, was interrupted, or the kernel restarted): the query stopped, and a batch in flight is not committed; start the query again (it resumes from its checkpoint), or keep it running on the server with ForeachBatchSQL")

// pollQuery is how often the starting call checks whether its query ended.
const pollQuery = 50 * time.Millisecond

// batchKey names one announced micro-batch awaiting its answer.
type batchKey struct {
	session sessionKey
	queryID string
	batchID int64
}

// batchAcks routes ForeachBatchDone answers to the query waiting for them.
type batchAcks struct {
	mu      sync.Mutex
	waiting map[batchKey]chan *atlaspb.ForeachBatchDone
}

func (a *batchAcks) expect(k batchKey) chan *atlaspb.ForeachBatchDone {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting == nil {
		a.waiting = map[batchKey]chan *atlaspb.ForeachBatchDone{}
	}
	ch := make(chan *atlaspb.ForeachBatchDone, 1)
	a.waiting[k] = ch
	return ch
}

func (a *batchAcks) forget(k batchKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiting, k)
}

func (a *batchAcks) deliver(k batchKey, done *atlaspb.ForeachBatchDone) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.waiting[k]
	if !ok {
		return fmt.Errorf("no micro-batch %d of query %s waits for an answer in this session (answered twice, or the query stopped)", k.batchID, k.queryID)
	}
	delete(a.waiting, k)
	ch <- done
	return nil
}

// commandExtension runs an Atlas command extension (Command.extension).
func (s *service) commandExtension(ctx context.Context, sess *session, out *responder, ext *anypb.Any) error {
	start := &atlaspb.ForeachBatchStart{}
	if ext.MessageIs(start) {
		if err := ext.UnmarshalTo(start); err != nil {
			return invalidArgument(fmt.Errorf("foreachBatch start: %w", err))
		}
		return s.foreachBatchStart(ctx, sess, out, start.GetWriteStream())
	}
	done := &atlaspb.ForeachBatchDone{}
	if ext.MessageIs(done) {
		if err := ext.UnmarshalTo(done); err != nil {
			return invalidArgument(fmt.Errorf("foreachBatch done: %w", err))
		}
		k := batchKey{session: sess.key, queryID: done.GetQueryId().GetId(), batchID: done.GetBatchId()}
		if err := s.acks.deliver(k, done); err != nil {
			return invalidArgument(err)
		}
		return nil
	}
	charts := &atlaspb.ProgressCharts{}
	if ext.MessageIs(charts) {
		if err := ext.UnmarshalTo(charts); err != nil {
			return invalidArgument(fmt.Errorf("progress charts: %w", err))
		}
		return s.progressCharts(sess, out, charts)
	}
	totals := &atlaspb.QueryTotals{}
	if ext.MessageIs(totals) {
		if err := ext.UnmarshalTo(totals); err != nil {
			return invalidArgument(fmt.Errorf("query totals: %w", err))
		}
		return s.queryTotals(sess, out, totals)
	}
	sqlStart := &atlaspb.SqlForeachBatchStart{}
	if ext.MessageIs(sqlStart) {
		if err := ext.UnmarshalTo(sqlStart); err != nil {
			return invalidArgument(fmt.Errorf("foreachBatch SQL start: %w", err))
		}
		return s.sqlForeachBatchStart(ctx, sess, out, sqlStart)
	}
	console := &atlaspb.ConsoleOutput{}
	if ext.MessageIs(console) {
		if err := ext.UnmarshalTo(console); err != nil {
			return invalidArgument(fmt.Errorf("console output: %w", err))
		}
		return s.consoleOutput(sess, out, console)
	}
	return &planner.UnsupportedError{What: "command extension " + ext.GetTypeUrl(),
		Hint: "Atlas's command extensions are atlas.connect.ForeachBatchStart, ForeachBatchDone, ProgressCharts, QueryTotals, ConsoleOutput and SqlForeachBatchStart"}
}

// foreachBatchWriter builds the engine writer for ws.
func foreachBatchWriter(df *engine.DataFrame, ws *pb.WriteStreamOperationStart) (*engine.DataStreamWriter, error) {
	if ws.GetSinkDestination() != nil || ws.GetFormat() != "" || ws.GetForeachWriter() != nil || ws.GetForeachBatch() != nil {
		return nil, errors.New("a query with a client-side foreachBatch writes nowhere else: leave format, path, table and the Spark foreach functions unset")
	}
	if !df.IsStreaming() {
		return nil, errors.New("foreachBatch needs a streaming DataFrame (spark.readStream...); for a batch DataFrame call the function on it directly")
	}
	w := df.WriteStream().Progress(false)
	if m := ws.GetOutputMode(); m != "" {
		w = w.OutputMode(m)
	}
	for k, v := range ws.GetOptions() {
		w = w.Option(k, v)
	}
	if n := ws.GetQueryName(); n != "" {
		w = w.QueryName(n)
	}
	switch t := ws.GetTrigger().(type) {
	case *pb.WriteStreamOperationStart_ProcessingTimeInterval:
		w = w.Trigger(engine.ProcessingTime(t.ProcessingTimeInterval))
	case *pb.WriteStreamOperationStart_AvailableNow:
		w = w.Trigger(engine.AvailableNow())
	case *pb.WriteStreamOperationStart_Once:
		w = w.Trigger(engine.Once())
	case *pb.WriteStreamOperationStart_ContinuousCheckpointInterval:
		return nil, &planner.UnsupportedError{What: "the continuous trigger", Hint: "use a processing-time trigger"}
	}
	return w, nil
}

// foreachBatchStart runs the query for as long as the call lasts.
func (s *service) foreachBatchStart(ctx context.Context, sess *session, out *responder, ws *pb.WriteStreamOperationStart) error {
	if ws == nil {
		return invalidArgument(errors.New("foreachBatch start: write_stream is required"))
	}
	df, err := sess.planner.Relation(ctx, ws.GetInput())
	if err != nil {
		return err
	}
	w, err := foreachBatchWriter(df, ws)
	if err != nil {
		return invalidArgument(fmt.Errorf("foreachBatch start: %w", err))
	}
	view := "__atlas_foreach_batch_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	started := make(chan struct{})
	quit := make(chan struct{})
	var id *pb.StreamingQueryInstanceId
	w = w.ForeachBatch(func(batch *engine.DataFrame, batchID int64) error {
		select {
		case <-started:
		case <-ctx.Done():
			return errClientGone
		case <-quit:
			return errClientGone
		}
		if err := batch.CreateOrReplaceTempView(view); err != nil {
			return fmt.Errorf("publish micro-batch %d: %w", batchID, err)
		}
		k := batchKey{session: sess.key, queryID: id.GetId(), batchID: batchID}
		answer := s.acks.expect(k)
		defer s.acks.forget(k)
		ready := &atlaspb.ForeachBatchReady{QueryId: id, BatchId: batchID, Batch: &pb.Relation{
			RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: view}}}},
		}}
		if err := out.sendExtension(ready); err != nil {
			return fmt.Errorf("%w (%v)", errClientGone, err)
		}
		select {
		case d := <-answer:
			if msg := d.GetError(); msg != "" {
				return fmt.Errorf("the client's foreachBatch function failed: %s", msg)
			}
			return nil
		case <-ctx.Done():
			return errClientGone
		case <-quit:
			return errClientGone
		}
	})
	q, err := w.Start()
	if errors.Is(err, checkpoint.ErrInUse) && s.stopActiveRun(sess, ws, true) {
		q, err = w.Start()
	}
	if err != nil {
		return invalidArgument(err)
	}
	stop := func() {
		close(quit)
		if err := q.Stop(); err != nil {
			s.logf("query %s: stop: %v", q.ID(), err)
		}
	}
	// The session's query manager knows it too: status, progress, Active,
	// Get and stop work on it from any client of the session.
	sess.addQuery(q, df.ExplainString())
	s.logQueryPanic(q)
	s.record(sess, q, ws, "its foreachBatch function runs in the client process that started it, which a server restart cuts off; run that client again")
	id = &pb.StreamingQueryInstanceId{Id: q.ID(), RunId: q.RunID()}
	if err := out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
		WriteStreamOperationStartResult: &pb.WriteStreamOperationStartResult{QueryId: id, Name: q.Name()},
	}}); err != nil {
		stop()
		return err
	}
	close(started)
	s.logf("query %s (%s) started with a client-side foreachBatch in session %s", q.Name(), q.ID(), sess.key.tag())
	tick := time.NewTicker(pollQuery)
	defer tick.Stop()
	for q.IsActive() {
		select {
		case <-ctx.Done():
			// As in Spark, whose query fails when its foreachBatch
			// worker dies: the next cell's Get(name) finds it with the
			// reason, rather than a query that silently is not there.
			close(quit)
			if err := q.Fail(errClientGone); err != nil {
				s.logf("query %s: stop: %v", q.ID(), err)
			}
			s.logf("query %s (%s) failed: its client went away", q.Name(), q.ID())
			return ctx.Err()
		case <-tick.C:
		}
	}
	stop()
	if err := q.Exception(); err != nil {
		s.logf("query %s (%s) failed: %v", q.Name(), q.ID(), err)
		return err
	}
	s.logf("query %s (%s) finished", q.Name(), q.ID())
	return nil
}
