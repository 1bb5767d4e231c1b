package atlas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// StreamingQueryProgress is one micro-batch's progress, as Spark's.
type StreamingQueryProgress = progress.StreamingQueryProgress

// StreamingQueryStatus is what a query is doing now, as Spark's.
type StreamingQueryStatus = progress.QueryStatus

// ErrInterrupted is returned by AwaitTermination when SIGINT (Jupyter's
// Kernel > Interrupt) or SIGTERM stopped the query.
var ErrInterrupted = errors.New("query stopped by interrupt")

// ErrNilQuery is what every method of a nil *StreamingQuery returns (or
// says, for those without an error). A handle is a value, and values do not
// survive between notebook cells: GoNB keeps a package variable's
// declaration, not its value, so a handle stored by one cell is nil in the
// next. The query itself keeps running on the server.
var ErrNilQuery = errors.New("atlas: this StreamingQuery handle is nil (values do not survive between notebook cells; the query keeps running on the server): get it back with spark.Streams().Get(name), or list them with spark.Streams().Active()")

// pollInterval is how long one await_termination call waits on the server
// before the client refreshes the live view.
const pollInterval = 500 * time.Millisecond

// stopTimeout bounds the stop an interrupt sends, well inside the 5 s
// GoNB leaves between SIGINT and SIGKILL.
const stopTimeout = 3 * time.Second

// StreamingQuery is a handle on a streaming query the server runs. The
// query outlives the handle and this process: another process gets it
// back with Session.Streams().Get(name).
type StreamingQuery struct {
	s          *Session
	id         *pb.StreamingQueryInstanceId
	name       string
	progress   bool
	checkpoint string
	fb         *foreachBatchRun // set when fn runs in this process
	log        progressLog
	out        view.Surface // the cell's output; nil: view.DetectSurface()
	console    bool         // started here with Format("console")
}

func (s *Session) query(id *pb.StreamingQueryInstanceId, name string) *StreamingQuery {
	return &StreamingQuery{s: s, id: id, name: name, progress: true}
}

// ID is the query's id: the same across restarts from one checkpoint.
func (q *StreamingQuery) ID() string {
	if q == nil {
		return ""
	}
	return q.id.GetId()
}

// RunID is unique to this run of the query.
func (q *StreamingQuery) RunID() string {
	if q == nil {
		return ""
	}
	return q.id.GetRunId()
}

// Name is the query name, or "".
func (q *StreamingQuery) Name() string {
	if q == nil {
		return ""
	}
	return q.name
}

// command runs one StreamingQueryCommand and returns its result.
func (q *StreamingQuery) command(ctx context.Context, c *pb.StreamingQueryCommand) (*pb.StreamingQueryCommandResult, error) {
	return q.commandAs(ctx, c, q.s.observed())
}

// commandAs is command with the given observed server-side session id.
func (q *StreamingQuery) commandAs(ctx context.Context, c *pb.StreamingQueryCommand, observed *string) (*pb.StreamingQueryCommandResult, error) {
	c.QueryId = q.id
	resps, err := q.s.commandAs(ctx, &pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: c}}, observed)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.displayName(), err)
	}
	for _, r := range resps {
		if res := r.GetStreamingQueryCommandResult(); res != nil {
			return res, nil
		}
	}
	return nil, fmt.Errorf("query %s: the server answered without a result", q.displayName())
}

func shortCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), rpcTimeout)
}

// status asks the server for the query's status.
func (q *StreamingQuery) status(ctx context.Context) (*pb.StreamingQueryCommandResult_StatusResult, error) {
	res, err := q.command(ctx, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}})
	if err != nil {
		return nil, err
	}
	return res.GetStatus(), nil
}

// IsActive reports whether the query is running (false when the server
// cannot be asked).
func (q *StreamingQuery) IsActive() bool {
	if q == nil {
		return false
	}
	if q.fb != nil {
		select {
		case <-q.fb.done:
			return false
		default:
		}
	}
	ctx, cancel := shortCtx()
	defer cancel()
	st, err := q.status(ctx)
	return err == nil && st.GetIsActive()
}

// Status reports what the query is doing now, as status. When the server
// cannot be asked, Message says why.
func (q *StreamingQuery) Status() StreamingQueryStatus {
	if q == nil {
		return StreamingQueryStatus{Message: ErrNilQuery.Error()}
	}
	ctx, cancel := shortCtx()
	defer cancel()
	st, err := q.status(ctx)
	if err != nil {
		return StreamingQueryStatus{Message: "unknown: " + err.Error()}
	}
	return StreamingQueryStatus{Message: st.GetStatusMessage(), IsDataAvailable: st.GetIsDataAvailable(), IsTriggerActive: st.GetIsTriggerActive()}
}

// progressList runs last_progress or recent_progress.
func (q *StreamingQuery) progressList(ctx context.Context, last bool) ([]StreamingQueryProgress, error) {
	c := &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_RecentProgress{RecentProgress: true}}
	if last {
		c.Command = &pb.StreamingQueryCommand_LastProgress{LastProgress: true}
	}
	res, err := q.command(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []StreamingQueryProgress
	for i, js := range res.GetRecentProgress().GetRecentProgressJson() {
		var p StreamingQueryProgress
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return nil, fmt.Errorf("query %s: progress %d: %w", q.displayName(), i, err)
		}
		out = append(out, p)
	}
	q.log.record(q.RunID(), out)
	return out, nil
}

// LastProgress is the latest micro-batch's progress, or nil before the
// first (or when the server cannot be asked), as lastProgress.
func (q *StreamingQuery) LastProgress() *StreamingQueryProgress {
	if q == nil {
		return nil
	}
	ctx, cancel := shortCtx()
	defer cancel()
	ps, err := q.progressList(ctx, true)
	if err != nil || len(ps) == 0 {
		return nil
	}
	return &ps[len(ps)-1]
}

// RecentProgress is the progress of the latest micro-batches, oldest
// first, as recentProgress.
func (q *StreamingQuery) RecentProgress() []StreamingQueryProgress {
	if q == nil {
		return nil
	}
	ctx, cancel := shortCtx()
	defer cancel()
	ps, _ := q.progressList(ctx, false)
	return ps
}

// Exception is the error that stopped the query, or nil, as exception().
func (q *StreamingQuery) Exception() error {
	if q == nil {
		return ErrNilQuery
	}
	if q.fb != nil {
		select {
		case <-q.fb.done:
			return q.fb.result()
		default:
		}
	}
	ctx, cancel := shortCtx()
	defer cancel()
	res, err := q.command(ctx, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}})
	if err != nil {
		return err
	}
	if e := res.GetException(); e != nil && e.ExceptionMessage != nil {
		return &ServerError{Message: e.GetExceptionMessage()}
	}
	return nil
}

// ExplainString returns the query's plan, as explain(extended).
func (q *StreamingQuery) ExplainString(extended bool) (string, error) {
	if q == nil {
		return "", ErrNilQuery
	}
	ctx, cancel := shortCtx()
	defer cancel()
	res, err := q.command(ctx, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Explain{
		Explain: &pb.StreamingQueryCommand_ExplainCommand{Extended: extended},
	}})
	if err != nil {
		return "", err
	}
	return res.GetExplain().GetResult(), nil
}

// Explain prints the query's plan.
func (q *StreamingQuery) Explain() {
	s, err := q.ExplainString(false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return
	}
	fmt.Print(s)
}

// Stop stops the query and waits until it has stopped, as stop(). The
// checkpoint stays consistent: a restart resumes after the last committed
// batch.
func (q *StreamingQuery) Stop() error { return q.stop(context.Background()) }

func (q *StreamingQuery) stop(ctx context.Context) error {
	if q == nil {
		return ErrNilQuery
	}
	if q.fb != nil {
		return q.fb.stop(ctx, q)
	}
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	stop := &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}}
	_, err := q.command(ctx, stop)
	if errors.Is(err, ErrSessionChanged) {
		// The server restarted and resumed the query (same id, a new
		// run): stopping it is still what the handle's owner asks for.
		// The session stays changed for every other call.
		_, err = q.commandAs(ctx, stop, nil)
	}
	return err
}

// ProcessAllAvailable blocks until every row available when it was
// called has been processed, as processAllAvailable(); for tests and
// notebooks.
func (q *StreamingQuery) ProcessAllAvailable() error {
	if q == nil {
		return ErrNilQuery
	}
	_, err := q.command(context.Background(), &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
	return err
}

// AwaitTermination blocks until the query ends and returns its error, as
// awaitTermination(), updating the live view in place meanwhile. SIGINT
// (Jupyter's Kernel > Interrupt) or SIGTERM stops the query on the server
// within a few seconds and returns ErrInterrupted.
func (q *StreamingQuery) AwaitTermination() error {
	return q.AwaitTerminationContext(context.Background())
}

// AwaitTerminationTimeout waits at most d: it returns true when the query
// ended (with its error), false when it still runs, as
// awaitTermination(timeout). A later cell uses it to watch a running
// query's live view for a while.
func (q *StreamingQuery) AwaitTerminationTimeout(d time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := q.AwaitTerminationContext(ctx)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return false, nil
	}
	return true, err
}

// AwaitTerminationContext waits until the query ends or ctx is done
// (returning ctx's error; the query keeps running).
func (q *StreamingQuery) AwaitTerminationContext(ctx context.Context) error {
	if q == nil {
		return ErrNilQuery
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	var view *liveView
	if q.progress {
		view = newLiveView(q)
	}
	tail := newConsoleTail(ctx, q, q.surface())
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- q.wait(waitCtx, view, tail) }()
	select {
	case err := <-done:
		tail.finish(context.Background())
		if view != nil {
			view.close(err)
		}
		return err
	case s := <-sig:
		cancel()
		stopCtx, stopCancel := context.WithTimeout(context.Background(), stopTimeout)
		defer stopCancel()
		err := q.stop(stopCtx)
		<-done
		// The batch the query stopped after is the server's: the view last
		// looked before the stop, and batches may have ended since.
		last := int64(-1)
		if ps, perr := q.progressList(stopCtx, true); perr == nil && len(ps) > 0 {
			last = ps[len(ps)-1].BatchID
		}
		tail.finish(stopCtx)
		if view != nil {
			view.refresh(stopCtx)
			view.closeStatus("stopped by interrupt")
		}
		fmt.Fprintf(os.Stderr, "atlas: %s received; query %s stopped after batch %d; its checkpoint is consistent and a re-run resumes from it\n", s, q.displayName(), last)
		if err != nil {
			return fmt.Errorf("%w; stopping it failed: %v", ErrInterrupted, err)
		}
		return ErrInterrupted
	}
}

// Watch attaches the live view (the progress charts, updated in place) to
// a running query, typically one a previous cell started and this cell
// got back with Session.Streams().Get(name), for at most d (d <= 0: until
// the query ends or ctx is done). Unlike AwaitTermination, Kernel >
// Interrupt (SIGINT) or the end of d only stop watching: the query keeps
// running on the server. Watch returns the query's error if it ended with
// one while watched, else nil.
func (q *StreamingQuery) Watch(ctx context.Context, d time.Duration) error {
	if q == nil {
		return ErrNilQuery
	}
	var timeUp <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeUp = t.C
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	view := newLiveView(q)
	tail := newConsoleTail(ctx, q, q.surface())
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- q.wait(waitCtx, view, tail) }()
	var err error
	stopped := false  // stopped watching, the query runs on
	finished := false // done has answered
	select {
	case err = <-done:
		stopped, finished = ctx.Err() != nil, true
	case <-timeUp:
		stopped = true
	case <-sig:
		stopped = true
	}
	if stopped {
		cancel()
		if !finished {
			<-done
		}
		tail.finish(context.Background())
		view.refresh(context.Background())
		view.closeStatus(watchEndedStatus(time.Now()))
		return nil
	}
	tail.finish(context.Background())
	view.close(err)
	return err
}

// wait polls until the query terminates, showing the console batches of
// tail and then refreshing view (so the batches come before the frame).
func (q *StreamingQuery) wait(ctx context.Context, view *liveView, tail *consoleTail) error {
	for {
		var terminated bool
		if q.fb != nil {
			select {
			case <-q.fb.done:
				terminated = true
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(pollInterval):
			}
		} else {
			res, err := q.command(ctx, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
				AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{TimeoutMs: ptr(pollInterval.Milliseconds())},
			}})
			if err != nil {
				// The server shares the deadline (Grpc-Timeout) and may
				// answer DEADLINE_EXCEEDED or reset the stream first.
				settleNearDeadline(ctx)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return err
			}
			terminated = res.GetAwaitTermination().GetTerminated()
		}
		tail.poll(ctx)
		if view != nil {
			view.refresh(ctx)
		}
		if terminated {
			return q.Exception()
		}
	}
}

func (q *StreamingQuery) displayName() string {
	if q.name != "" {
		return q.name
	}
	return q.ID()
}
