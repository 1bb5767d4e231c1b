package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink/console"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// StreamingQueryProgress is one micro-batch's progress report, with
// Spark's fields and JSON shape.
type StreamingQueryProgress = progress.StreamingQueryProgress

// StreamingQueryStatus is what a query is doing now.
type StreamingQueryStatus = progress.QueryStatus

// ErrInterrupted is returned by AwaitTermination when SIGINT or SIGTERM
// stopped the query (cleanly: the checkpoint is consistent and a re-run
// resumes without duplicates).
var ErrInterrupted = errors.New("query stopped by interrupt")

// stopGrace bounds how long Stop waits for the batch in flight to abandon;
// GoNB kills a cell 5 s after an interrupt.
const stopGrace = 4 * time.Second

// StreamingQuery is a handle to a running query, as pyspark's StreamingQuery.
type StreamingQuery struct {
	q              *exec.Query
	name           string
	session        *Session
	checkpoint     *checkpoint.Checkpoint
	tempCheckpoint bool
	tap            *tapSink
	view           *progressView
	// console keeps the last printed batches of a console sink query.
	console *console.Ring
	// mgr is the session's query manager; seq orders its Active list.
	mgr *StreamingQueryManager
	seq int64
	// started is closed once the QueryStartedEvent is delivered: the
	// query's later events wait for it, so listeners see them in order.
	started chan struct{}
	// ended is closed once the query has terminated and left the
	// manager's active queries (and its terminated event is queued).
	ended   chan struct{}
	explain queryExplain

	closeOnce sync.Once
	// released is closed once close has run: the checkpoint lease is
	// given back and the sink closed.
	released chan struct{}
}

// StreamingQueryTotals are a query's counters over its current run (since
// Start, not since the checkpoint began): the sums of its progress reports.
type StreamingQueryTotals struct {
	// Batches is the number of micro-batches that ran.
	Batches int64
	// InputRows sums numInputRows.
	InputRows int64
	// OutputRows sums sink.numOutputRows.
	OutputRows int64
	// DroppedLate sums the state operators' numRowsDroppedByWatermark.
	DroppedLate int64
	// Malformed sums observedMetrics' malformed-record counts.
	Malformed int64
	// NullEventTime sums observedMetrics.numRowsWithNullEventTime.
	NullEventTime int64
	// FutureEventTime sums observedMetrics.numRowsWithFutureEventTime.
	FutureEventTime int64
	// WatermarkWarnings counts batches that moved the watermark past their
	// processing time (progress watermarkWarning).
	WatermarkWarnings int64
}

// ID is the query id, stable across restarts from the same checkpoint.
func (sq *StreamingQuery) ID() string { return sq.q.ID() }

// RunID is unique to this run.
func (sq *StreamingQuery) RunID() string { return sq.q.RunID() }

// Name is the query name.
func (sq *StreamingQuery) Name() string { return sq.name }

// IsActive reports whether the query still runs. It turns false only
// once the query has given its checkpoint back, so whoever saw it end
// (an awaitTermination of a notebook cell) can start the next run on the
// same checkpoint at once.
func (sq *StreamingQuery) IsActive() bool {
	select {
	case <-sq.released:
		return false
	default:
		return true
	}
}

// Status says what the query is doing.
func (sq *StreamingQuery) Status() StreamingQueryStatus { return sq.q.Status() }

// LastProgress returns the latest progress report, nil before the first batch.
func (sq *StreamingQuery) LastProgress() *StreamingQueryProgress {
	ps := sq.q.RecentProgress()
	if len(ps) == 0 {
		return nil
	}
	return &ps[len(ps)-1]
}

// RecentProgress returns up to the last 100 progress reports, oldest first.
func (sq *StreamingQuery) RecentProgress() []StreamingQueryProgress { return sq.q.RecentProgress() }

// Totals returns counters over this run: batches, rows in and out, rows
// dropped as late, malformed records.
func (sq *StreamingQuery) Totals() StreamingQueryTotals {
	t := sq.q.Totals()
	return StreamingQueryTotals{
		Batches: t.Batches, InputRows: t.InputRows, OutputRows: t.OutputRows,
		DroppedLate: t.DroppedLate, Malformed: t.Malformed,
		NullEventTime: t.NullEventTime, FutureEventTime: t.FutureEventTime,
		WatermarkWarnings: t.WatermarkWarnings,
	}
}

// RecentWrites returns the table writes (MERGE INTO, INSERT) that a
// foreachBatch query's callback made through the session in its latest
// batches (up to 10), oldest first: what the live view's table shows. It
// is empty for other queries.
func (sq *StreamingQuery) RecentWrites() []BatchWrite {
	if fb, ok := sq.tap.inner.(*foreachBatchSink); ok {
		return fb.log.recent()
	}
	return nil
}

// Done is closed once the query has terminated (stopped, failed or, with
// AvailableNow or Once, finished) and left the manager's active queries.
// Unlike AwaitTermination it does not watch for signals.
func (sq *StreamingQuery) Done() <-chan struct{} { return sq.ended }

// Exception returns the error that terminated the query, or nil.
func (sq *StreamingQuery) Exception() error { return sq.q.Err() }

// CheckpointLocation is where the query keeps its logs and state.
func (sq *StreamingQuery) CheckpointLocation() string { return sq.checkpoint.Location() }

// Stop stops the query and waits (a few seconds at most) for it to end.
// A batch in flight is abandoned and will be replayed on restart.
func (sq *StreamingQuery) Stop() error { return sq.end(nil) }

// Fail stops the query, as Stop, and ends it with err as its exception
// (Spark's query whose foreachBatch worker died fails the same way).
func (sq *StreamingQuery) Fail(err error) error { return sq.end(err) }

// end stops the query, failing it with err when err is not nil.
func (sq *StreamingQuery) end(err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	var stopErr error
	if err != nil {
		stopErr = sq.q.Fail(ctx, err)
	} else {
		stopErr = sq.q.Stop(ctx)
	}
	sq.close()
	if stopErr == nil {
		select {
		case <-sq.ended:
		case <-ctx.Done():
		}
	}
	return stopErr
}

func (sq *StreamingQuery) close() {
	sq.closeOnce.Do(func() {
		if sq.view != nil {
			sq.view.close(sq)
		}
		if c, ok := sq.tap.inner.(interface{ Close() error }); ok {
			// A sink (a Kafka producer) is closed once no batch can use it:
			// after a Stop that timed out, when the batch in flight ends.
			if sq.q == nil {
				_ = c.Close()
			} else {
				go func() {
					<-sq.q.Done()
					_ = c.Close()
				}()
			}
		}
		sq.checkpoint.Close()
		if sq.tempCheckpoint {
			os.RemoveAll(sq.checkpoint.Location())
		}
		close(sq.released)
	})
}

// AwaitTermination blocks until the query ends and returns its error, as
// awaitTermination(). SIGINT (Jupyter's Interrupt) or SIGTERM stops the
// query cleanly and returns ErrInterrupted.
func (sq *StreamingQuery) AwaitTermination() error {
	return sq.AwaitTerminationContext(context.Background())
}

// AwaitTerminationTimeout waits at most d: it returns true when the query
// ended (with its error), false when it still runs, as awaitTermination(timeout).
func (sq *StreamingQuery) AwaitTerminationTimeout(d time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := sq.AwaitTerminationContext(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return false, nil
	}
	return true, err
}

// AwaitTerminationContext waits until the query ends or ctx is done.
func (sq *StreamingQuery) AwaitTerminationContext(ctx context.Context) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case <-sq.ended:
		return sq.q.Err()
	case s := <-sig:
		err := sq.Stop()
		last := int64(-1)
		if p := sq.LastProgress(); p != nil {
			last = p.BatchID
		}
		fmt.Fprintf(os.Stderr, "atlas: %s received; query %s stopped after batch %d; the checkpoint at %s is consistent and a re-run resumes from it\n", s, sq.displayName(), last, sq.checkpoint.Location())
		if err != nil {
			return err
		}
		return ErrInterrupted
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (sq *StreamingQuery) displayName() string {
	if sq.name != "" {
		return sq.name
	}
	return sq.ID()
}

// ProcessAllAvailable blocks until every row available when it was called
// has been processed (and windows it closes emitted), as
// processAllAvailable(); meant for tests and notebooks. It returns once a
// trigger that checked the source after the call found nothing more to
// run, so it returns promptly when the query has already caught up, and
// returns the query's error if the query stops first.
func (sq *StreamingQuery) ProcessAllAvailable() error {
	return sq.ProcessAllAvailableContext(context.Background())
}

// ProcessAllAvailableContext is ProcessAllAvailable, giving up when ctx is done.
func (sq *StreamingQuery) ProcessAllAvailableContext(ctx context.Context) error {
	return sq.q.AwaitCaughtUp(ctx)
}

// onWait shows in the live view that the query waits for its source
// (status "" when it answers again). It may run during exec.Start, before
// sq.q is set.
func (sq *StreamingQuery) onWait(status string) {
	if sq.view != nil {
		sq.view.live.Notice(status)
	}
}

func (sq *StreamingQuery) onProgress(p *progress.StreamingQueryProgress) {
	if sq.view != nil {
		sq.view.update(sq, p)
	}
	if sq.mgr != nil {
		<-sq.started
		ev := &QueryProgressEvent{Progress: *p}
		sq.mgr.bus.Post(func(l StreamingQueryListener) { l.OnQueryProgress(ev) })
	}
}

// onIdle posts a QueryIdleEvent.
func (sq *StreamingQuery) onIdle(trigger time.Time) {
	if sq.mgr != nil {
		<-sq.started
		ev := &QueryIdleEvent{ID: sq.q.ID(), RunID: sq.q.RunID(), Timestamp: formatEventTime(trigger)}
		sq.mgr.bus.Post(func(l StreamingQueryListener) { l.OnQueryIdle(ev) })
	}
}
