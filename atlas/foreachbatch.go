package atlas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	atlaspb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// foreachBatchRun is a query whose foreachBatch function runs in this
// process: the ExecutePlan call carrying atlas.connect.ForeachBatchStart
// stays open, the server announces each micro-batch on it
// (ForeachBatchReady), and the client answers each with ForeachBatchDone
// after the function returns. Cancelling the call stops the query.
type foreachBatchRun struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu  sync.Mutex
	err error // why the query ended; nil when it finished or was stopped
}

// startForeachBatch starts op with fn as its foreachBatch function.
func (w *DataStreamWriter) startForeachBatch(op *pb.WriteStreamOperationStart) (*StreamingQuery, error) {
	s := w.df.s
	if err := s.ready(context.Background()); err != nil {
		return nil, fmt.Errorf("start the query: %w", err)
	}
	start := &atlaspb.ForeachBatchStart{WriteStream: op}
	b, err := start.MarshalVT()
	ext, err := packExtension(atlaspb.TypeURLForeachBatchStart, b, err)
	if err != nil {
		return nil, fmt.Errorf("start the query: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := s.startExecute(ctx, &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_Extension{Extension: ext}}}}, s.observed())
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start the query: %w", err)
	}
	var started *pb.WriteStreamOperationStartResult
	for started == nil {
		resp := &pb.ExecutePlanResponse{}
		if err := stream.recv(resp.UnmarshalVT); err != nil {
			cancel()
			if errors.Is(err, io.EOF) {
				return nil, errors.New("start the query: the server ended the call before the query started")
			}
			return nil, fmt.Errorf("start the query: %w", s.rpcError(err))
		}
		started = resp.GetWriteStreamOperationStartResult()
	}
	q := s.query(started.GetQueryId(), started.GetName())
	q.progress = w.progress
	q.checkpoint = op.GetOptions()["checkpointLocation"]
	run := &foreachBatchRun{cancel: cancel, done: make(chan struct{})}
	q.fb = run
	s.postStarted(q)
	go run.pump(ctx, stream, q, w.fn)
	return q, nil
}

// pump runs fn for every announced batch until the call ends.
func (r *foreachBatchRun) pump(ctx context.Context, stream *callStream, q *StreamingQuery, fn func(*DataFrame, int64) error) {
	defer close(r.done)
	defer r.cancel()
	defer stream.close()
	for {
		resp := &pb.ExecutePlanResponse{}
		err := stream.recv(resp.UnmarshalVT)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if ctx.Err() == nil {
				r.fail(q.s.rpcError(err))
			}
			return
		}
		ext := resp.GetExtension()
		if ext == nil {
			continue
		}
		ready := &atlaspb.ForeachBatchReady{}
		if err := unpackExtension(ext, atlaspb.TypeURLForeachBatchReady, ready.UnmarshalVT); err != nil {
			r.fail(fmt.Errorf("query %s: unexpected message %s from the server: %w", q.displayName(), ext.GetTypeUrl(), err))
			return
		}
		batch := &DataFrame{s: q.s, rel: ready.GetBatch()}
		ferr := callBatch(fn, batch, ready.GetBatchId())
		done := &atlaspb.ForeachBatchDone{QueryId: ready.GetQueryId(), BatchId: ready.GetBatchId()}
		if ferr != nil {
			ferr = fmt.Errorf("foreachBatch, batch %d: %w", ready.GetBatchId(), ferr)
			done.Error = ferr.Error()
			r.fail(ferr)
		}
		if ctx.Err() != nil {
			return // stopped while fn ran: the batch stays uncommitted
		}
		b, err := done.MarshalVT()
		ack, err := packExtension(atlaspb.TypeURLForeachBatchDone, b, err)
		if err == nil {
			_, err = q.s.command(ctx, &pb.Command{CommandType: &pb.Command_Extension{Extension: ack}})
		}
		if err != nil {
			if ctx.Err() == nil {
				r.fail(fmt.Errorf("query %s: answer batch %d: %w", q.displayName(), ready.GetBatchId(), err))
			}
			return
		}
		if ferr != nil {
			return
		}
	}
}

// callBatch runs fn, turning a panic into an error so the batch is
// answered and the query stops cleanly.
func callBatch(fn func(*DataFrame, int64) error, df *DataFrame, id int64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(df, id)
}

// fail records the first error that ended the query.
func (r *foreachBatchRun) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

func (r *foreachBatchRun) result() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// stop ends the call (the server stops the query without committing a
// batch not yet answered) and waits for the pump, at most until ctx ends.
// The server stops the query when the call ends, on its own time; stop
// then asks it to stop q too, which returns once the query has stopped, so
// that stop() returns when the query is no longer active, as Spark's, and
// a query of the same name or checkpoint can start at once. A query the
// server already forgot is stopped.
func (r *foreachBatchRun) stop(ctx context.Context, q *StreamingQuery) error {
	r.cancel()
	select {
	case <-r.done:
	case <-ctx.Done():
		return fmt.Errorf("the foreachBatch function is still running: %w", ctx.Err())
	}
	cctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	_, _ = q.command(cctx, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
	return nil
}
