package exec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/avrox"
	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Config describes a streaming query to run.
type Config struct {
	// Name is the query name ("" for none).
	Name string
	// Plan is the validated plan.
	Shape *plan.Shape
	// Sink receives each batch's output.
	Sink sink.Sink
	// Mode is the output mode.
	Mode sink.OutputMode
	// Trigger says when batches run.
	Trigger Trigger
	// Checkpoint holds the logs and state.
	Checkpoint *checkpoint.Checkpoint
	// OnProgress, when set, is called after every batch (on the query's goroutine).
	OnProgress func(p *progress.StreamingQueryProgress)
	// RetainBatches is how many batches of logs and state to keep (Spark's
	// minBatchesToRetain). Default 100.
	RetainBatches int64
	// OnWait, when set, is called each time the query waits for an
	// unavailable source (a Kafka broker that is down) with the status
	// message, and with "" once the source answers again. It may be called
	// during Start.
	OnWait func(status string)
	// LateSink, when set, receives the rows the watermark drops as late
	// (LateRowsSchema), in append mode, after Sink and before the commit
	// log, idempotent per (query id, batch id) like Sink.
	LateSink sink.Sink
	// LateRowsSchema is the late-rows table's schema when it is
	// LegacyLateRowsSchema (a table created before the reason column);
	// nil means LateRowsSchema.
	LateRowsSchema *arrow.Schema
	// EventTimeMaxAhead, when positive, is the writer option
	// eventTimeMaxAheadOfProcessing: rows whose event time is further ahead
	// of the batch's processing time (batchTimestampMs, from the offsets
	// log) are kept out of the watermark and the aggregation, counted in
	// numRowsWithFutureEventTime and sent to LateSink (reason
	// future_event_time). Zero keeps Spark's rule: every row counts, and
	// one far-future row moves the watermark so that all later rows are
	// late (the batch then carries a WatermarkWarning).
	EventTimeMaxAhead time.Duration
	// OnIdle, when set, is called (on the query's goroutine) with the
	// trigger's start time when a trigger found no data to process, at most
	// once per NoDataEventInterval since the last batch or idle call, as
	// Spark's QueryIdleEvent (spark.sql.streaming.noDataProgressEventInterval).
	// The first idle trigger of a run before any batch always calls it.
	OnIdle func(trigger time.Time)
	// NoDataEventInterval throttles OnIdle; zero calls it on every idle
	// trigger.
	NoDataEventInterval time.Duration
	// MultipleWatermarkPolicy is Spark's
	// spark.sql.streaming.multipleWatermarkPolicy: how the global watermark
	// of a query with several watermarked inputs (a stream-stream join) is
	// chosen from theirs, WatermarkPolicyMin ("" too) or WatermarkPolicyMax.
	// It is recorded in the offsets log, and a restart keeps the recorded one.
	MultipleWatermarkPolicy string
	// Parallelism is how many goroutines run a micro-batch's stateless
	// operators (parsing, projections, filters, the watermark) at once:
	// 0 means one per core (GOMAXPROCS), 1 runs them on one goroutine.
	// The aggregation, the sink and the statistics still see the rows in
	// the source's order, so results do not depend on it.
	Parallelism int
	// ChunkRows is how many rows of a record one goroutine takes at a time
	// when an aggregation follows the operators (0: DefaultChunkRows).
	// Without an aggregation records reach the sink whole.
	ChunkRows int
	// HoldBeforeCommit, when set, is the writer option holdBeforeCommit: the
	// batch with this id runs in full (its sink writes and commits its
	// output, its state is saved) and then waits, before its commit-log
	// entry, until the query is stopped, its status saying so. The batch is
	// then abandoned at the one moment a crash leaves the sink ahead of the
	// commit log, so a restart replays it and the sink must skip it: a
	// fault-injection point for drills and labs, never needed in production.
	HoldBeforeCommit *int64
}

// The values of Config.MultipleWatermarkPolicy.
const (
	// WatermarkPolicyMin moves the global watermark at the pace of the
	// slowest input (Spark's default): no input's rows are dropped as late
	// because another one ran ahead.
	WatermarkPolicyMin = "min"
	// WatermarkPolicyMax moves it at the pace of the fastest input: faster
	// results, and the slower inputs' rows are dropped as late sooner.
	WatermarkPolicyMax = "max"
	// ConfMultipleWatermarkPolicy is the offsets-log conf key, Spark's.
	ConfMultipleWatermarkPolicy = "spark.sql.streaming.multipleWatermarkPolicy"
)

// Query is a running streaming query: Spark's StreamExecution.
type Query struct {
	cfg Config
	// wmPolicy is the multiple watermark policy this run uses (the
	// checkpoint's when it records one).
	wmPolicy string
	id       string
	runID    string
	src      source.Source
	// tree is the query's operators; tracker derives the query's
	// watermark from its watermark operators.
	tree    *opTree
	tracker *watermarkTracker
	// stats are the event-time statistics of the last batch over every
	// watermark operator.
	stats EventTimeStats
	// stateLoads counts, over this run, the batches whose stateful
	// operators found the previous state version in memory (hits) and
	// the loads of a version from the checkpoint (misses), as Spark's
	// HDFS-backed provider counts its loaded-map cache; stateLoaded says
	// the state was just loaded, so the next batch is no hit.
	stateHits, stateMisses int64
	stateLoaded            bool
	// lateSchema is the late-rows schema when cfg.LateSink is set; late
	// collects the batch's late rows (aggregateOp.late points here).
	lateSchema *arrow.Schema
	late       []arrow.RecordBatch
	// lateWM caches the watermark for late events of batch lateWM.id, read
	// from the offsets log (see batchRun.readLateWatermark).
	lateWM struct {
		id, ms int64
		ok     bool
	}
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	err    error
	status progress.QueryStatus
	// failWith is the error a Fail ended the query with (nil for a Stop).
	failWith error
	recent   []progress.StreamingQueryProgress
	totals   Totals
	// checks numbers the source checks (latestOffset calls) begun so far;
	// idleCheck is the number of the latest check that found nothing to
	// run; caughtUp is closed, and replaced, whenever idleCheck moves.
	checks    int64
	idleCheck int64
	caughtUp  chan struct{}
}

// Totals are counters over the whole run.
type Totals struct {
	Batches     int64
	InputRows   int64
	OutputRows  int64
	DroppedLate int64
	// Malformed sums numMalformedRows (from_json, file sources) and
	// from_avro's numMalformedAvroRecords and numUnknownAvroSchemaRecords.
	Malformed int64
	// NullEventTime and FutureEventTime sum progress.MetricNullEventTime
	// and progress.MetricFutureEventTime.
	NullEventTime   int64
	FutureEventTime int64
	// WatermarkWarnings counts batches that moved the watermark past their
	// processing time (progress.WatermarkWarning).
	WatermarkWarnings int64
}

// Start prepares the query from its checkpoint and starts the micro-batch
// loop on its own goroutine. Errors about the checkpoint or the source
// (unreachable broker, corrupt log) are returned here. The query binds its
// own expressions and opens its own source instance: the plan is shared
// with every other query and batch action built on the same DataFrame.
func Start(ctx context.Context, cfg Config) (q *Query, err error) {
	if cfg.Shape.Root == nil || !cfg.Shape.Root.IsStreaming() {
		return nil, fmt.Errorf("a streaming query needs a streaming source")
	}
	if cfg.RetainBatches <= 0 {
		cfg.RetainBatches = 100
	}
	q = &Query{cfg: cfg, runID: uuid.NewString(), done: make(chan struct{}), caughtUp: make(chan struct{})}
	if q.tree, err = buildTree(cfg.Shape.Root, cfg.Mode); err != nil {
		return nil, err
	}
	for _, n := range q.tree.stateful {
		if d, ok := n.op.(*dedupOp); ok {
			d.setRetain(cfg.RetainBatches)
		}
	}
	if cfg.LateSink != nil {
		if q.lateSchema = LateRowsSchema(cfg.Shape); q.lateSchema == nil || cfg.Mode == sink.Complete || len(q.tree.aggs) != 1 {
			return nil, fmt.Errorf("late rows can be kept only by an aggregation with a watermark in append or update mode: add WithWatermark(...) before GroupBy, or drop the lateRowsTable option")
		}
		if ls := cfg.LateRowsSchema; ls != nil {
			if !ls.Equal(LegacyLateRowsSchema(cfg.Shape)) && !ls.Equal(q.lateSchema) {
				return nil, fmt.Errorf("the late-rows table has columns %v, the query's late rows are %v: use a new lateRowsTable", ls, q.lateSchema)
			}
			q.lateSchema = ls
		}
		a := q.tree.aggs[0]
		a.st.CollectLateRows()
		a.late, a.lateSchema = &q.late, q.lateSchema
	}
	if cfg.EventTimeMaxAhead < 0 || (cfg.EventTimeMaxAhead > 0 && !q.tree.hasWatermark()) {
		return nil, fmt.Errorf("eventTimeMaxAheadOfProcessing %s: needs a positive duration and a query with WithWatermark(...); drop the option otherwise", cfg.EventTimeMaxAhead)
	}
	src, err := q.tree.open()
	if err != nil {
		return nil, err
	}
	q.src = src
	if p, ok := src.(source.ColumnPruner); ok && len(q.tree.scans) == 1 {
		if read := readColumns(cfg.Shape); read != nil {
			p.PruneColumns(read)
		}
	}
	defer func() {
		if err != nil {
			src.Close() // the query did not start: nothing else closes it
		}
	}()
	meta, ok, err := cfg.Checkpoint.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		meta.ID = uuid.NewString()
		if err := cfg.Checkpoint.WriteMetadata(ctx, meta); err != nil {
			return nil, err
		}
	}
	q.id = meta.ID
	if ls, ok := q.src.(source.LoggingSource); ok {
		if err := ls.UseMetadataLog(ctx, cfg.Checkpoint.SourceLog(0)); err != nil {
			return nil, fmt.Errorf("open %s: %w", q.tree.scans[0].Source, err)
		}
	}
	if m, ok := q.src.(*multiSource); ok {
		for i, s := range m.srcs {
			if ls, ok := s.(source.LoggingSource); ok {
				if err := ls.UseMetadataLog(ctx, cfg.Checkpoint.SourceLog(i)); err != nil {
					return nil, fmt.Errorf("open %s: %w", s.Description(), err)
				}
			}
		}
	}
	resume, err := q.recover(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Trigger.Kind == TriggerAvailableNow || cfg.Trigger.Kind == TriggerOnce {
		if an, ok := q.src.(source.AvailableNow); ok {
			err := q.retrySource(ctx, true, func(int) error { return an.PrepareForAvailableNow(ctx) })
			if err != nil {
				return nil, fmt.Errorf("prepare available-now trigger: %w", err)
			}
		}
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	q.cancel = cancel
	q.status = progress.QueryStatus{Message: "Initializing sources"}
	go q.run(runCtx, resume)
	return q, nil
}

// open opens the query's sources: the one source, or all of them read as
// one (a stream-stream join, a union).
func (t *opTree) open() (source.Source, error) {
	if len(t.scans) == 1 {
		src, err := t.scans[0].Open()
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", t.scans[0].Source, err)
		}
		return src, nil
	}
	m := &multiSource{}
	for _, scan := range t.scans {
		src, err := scan.Open()
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("open %s: %w", scan.Source, err)
		}
		m.srcs = append(m.srcs, src)
	}
	return m, nil
}

// resumePoint is where the loop starts.
type resumePoint struct {
	batchID   int64
	start     source.Offset
	watermark int64 // ms
	replay    *checkpoint.OffsetSeq
}

// recover reads the logs: an uncommitted offsets entry is replayed with its
// recorded range and watermark; state comes from the previous version.
func (q *Query) recover(ctx context.Context) (resumePoint, error) {
	ck := q.cfg.Checkpoint
	var rp resumePoint
	last, err := ck.LatestOffsets(ctx)
	if err != nil {
		return rp, err
	}
	commitID, commit, committed, err := ck.LatestCommit(ctx)
	if err != nil {
		return rp, err
	}
	q.wmPolicy = q.cfg.MultipleWatermarkPolicy
	if last != nil {
		// The checkpoint's policy wins; one written before the policy was
		// recorded ran with Spark's default, as Spark assumes.
		q.wmPolicy = last.Metadata.Conf[ConfMultipleWatermarkPolicy]
	}
	if q.wmPolicy == "" {
		q.wmPolicy = WatermarkPolicyMin
	}
	q.tracker = newWatermarkTracker(q.tree, q.wmPolicy == WatermarkPolicyMax)
	if last == nil {
		init, err := q.initialOffset(ctx, true)
		if err != nil {
			return rp, err
		}
		rp.start = init
		return rp, nil
	}
	if committed && commitID > last.BatchID {
		return rp, fmt.Errorf("checkpoint %s is inconsistent: batch %d is committed but the offsets log ends at %d", ck.Location(), commitID, last.BatchID)
	}
	if !committed || commitID < last.BatchID {
		// Replay the last planned batch exactly.
		rp.batchID = last.BatchID
		rp.replay = last
		rp.watermark = last.Metadata.BatchWatermarkMs
		if last.BatchID == 0 {
			init, err := q.initialOffset(ctx, false)
			if err != nil {
				return rp, err
			}
			rp.start = init
		} else {
			prev, err := ck.Offsets(ctx, last.BatchID-1)
			if err != nil {
				return rp, err
			}
			if rp.start, err = q.logOffset(prev); err != nil {
				return rp, err
			}
		}
	} else {
		rp.batchID = last.BatchID + 1
		if rp.start, err = q.logOffset(last); err != nil {
			return rp, err
		}
		rp.watermark = commit.NextBatchWatermarkMs
	}
	if rp.batchID > 0 {
		if err := q.checkNoOrphanState(ctx, rp.batchID-1); err != nil {
			return rp, err
		}
	}
	if rp.batchID > 0 {
		if err := q.restoreState(ctx, rp.batchID-1); err != nil {
			return rp, err
		}
	}
	return rp, nil
}

// ID is the query id, stable across restarts from the same checkpoint.
func (q *Query) ID() string { return q.id }

// RunID is unique to this run.
func (q *Query) RunID() string { return q.runID }

// Done is closed when the query terminates.
func (q *Query) Done() <-chan struct{} { return q.done }

// Err is the error that stopped the query, nil if it stopped cleanly or runs.
func (q *Query) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Stop asks the query to stop and waits for it, up to ctx. A batch in
// flight is abandoned; its offsets entry stays uncommitted and is replayed
// on restart, so nothing is lost or doubled.
func (q *Query) Stop(ctx context.Context) error {
	q.cancel()
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("query %s did not stop in time: %w", q.id, ctx.Err())
	}
}

// Fail stops the query as Stop does, but the query ends with err as its
// exception, as when a batch fails: for a query whose work the caller
// knows can no longer be done (the client running its foreachBatch went
// away). A batch in flight is not committed and is replayed on restart.
func (q *Query) Fail(ctx context.Context, err error) error {
	q.mu.Lock()
	if q.failWith == nil {
		q.failWith = err
	}
	q.mu.Unlock()
	return q.Stop(ctx)
}

// Status returns what the query is doing now.
func (q *Query) Status() progress.QueryStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.status
}

// Totals returns counters over this run.
func (q *Query) Totals() Totals {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.totals
}

// RecentProgress returns the last progress reports, oldest first.
func (q *Query) RecentProgress() []progress.StreamingQueryProgress {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]progress.StreamingQueryProgress(nil), q.recent...)
}

// AwaitCaughtUp blocks until a trigger that began its source check after
// the call found no new data and nothing else to run (Spark's
// processAllAvailable): every row available at the call has then been
// processed, and every window it closed emitted. It returns the query's
// error if the query stops first, or ctx's error.
func (q *Query) AwaitCaughtUp(ctx context.Context) error {
	q.mu.Lock()
	begun := q.checks
	for q.idleCheck <= begun {
		ch := q.caughtUp
		q.mu.Unlock()
		select {
		case <-ch:
		case <-q.done:
			return q.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
		q.mu.Lock()
	}
	q.mu.Unlock()
	return nil
}

// beginCheck numbers a source check and shows it in the status, as Spark's
// "Getting offsets from <source>".
func (q *Query) beginCheck() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.checks++
	q.status.Message = "Getting offsets from " + q.src.Description()
	q.status.IsTriggerActive = true // again, after a wait for an unavailable source
	return q.checks
}

// caughtUpAt records that check n found nothing to run and wakes
// AwaitCaughtUp.
func (q *Query) caughtUpAt(n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n > q.idleCheck {
		q.idleCheck = n
		close(q.caughtUp)
		q.caughtUp = make(chan struct{})
	}
}

func (q *Query) setStatus(msg string, data, active bool) {
	q.mu.Lock()
	q.status = progress.QueryStatus{Message: msg, IsDataAvailable: data, IsTriggerActive: active}
	q.mu.Unlock()
}

// setMessage changes the status message only, as Spark's updateStatusMessage.
func (q *Query) setMessage(msg string) {
	q.mu.Lock()
	q.status.Message = msg
	q.mu.Unlock()
}

// setTriggerActive marks a trigger as running or finished, keeping the
// message and isDataAvailable, as Spark's startTrigger and finishTrigger.
func (q *Query) setTriggerActive(active bool) {
	q.mu.Lock()
	q.status.IsTriggerActive = active
	q.mu.Unlock()
}

func (q *Query) finish(err error) {
	q.mu.Lock()
	if errors.Is(err, context.Canceled) {
		err = q.failWith
	}
	q.err = err
	if err != nil {
		q.status = progress.QueryStatus{Message: "Terminated with exception: " + err.Error()}
	} else {
		q.status = progress.QueryStatus{Message: "Stopped"}
	}
	q.mu.Unlock()
	q.src.Close()
	close(q.done)
}

// recoverRun, deferred by run, ends the query with a *guard.PanicError
// when the loop (an operator, a sink, a foreachBatch function) panics:
// the query fails as with any error, the batch in flight is not committed
// (the next run replays it from the offsets log), and the process serving
// the other queries goes on.
func (q *Query) recoverRun() {
	p := recover()
	if p == nil {
		return
	}
	pe := guard.Recovered("streaming query "+q.id, p)
	select {
	case <-q.done:
		return // the panic came after the query had finished
	default:
	}
	q.mu.Lock()
	q.err = pe
	q.status = progress.QueryStatus{Message: "Terminated with exception: " + pe.Error()}
	q.mu.Unlock()
	func() {
		defer func() { _ = recover() }() // the source may be what panicked
		q.src.Close()
	}()
	close(q.done)
}

// run is the trigger loop. Status follows Spark's MicroBatchExecution: a
// trigger is active from its source check to its end; a trigger that found
// no data says "Waiting for data to arrive" while the default trigger
// pauses before polling again; between triggers the message is "Waiting
// for next trigger", with isDataAvailable as the last check found it.
func (q *Query) run(ctx context.Context, rp resumePoint) {
	defer q.cancel()
	defer q.recoverRun()
	batchID, start, wm := rp.batchID, rp.start, rp.watermark
	replay := rp.replay
	var lastTrigger time.Time
	// lastNoExecution is when a batch last ran or OnIdle was last called
	// (Spark's lastNoExecutionProgressEventTime); zero before either.
	var lastNoExecution time.Time
	for {
		if ctx.Err() != nil {
			q.finish(nil)
			return
		}
		trigStart := time.Now()
		if q.cfg.Trigger.Kind == TriggerProcessingTime && !lastTrigger.IsZero() {
			next := lastTrigger.Add(q.cfg.Trigger.Interval)
			if d := time.Until(next); d > 0 {
				select {
				case <-ctx.Done():
					q.finish(nil)
					return
				case <-time.After(d):
				}
				trigStart = time.Now()
			}
		}
		q.setTriggerActive(true)
		b := &batchRun{q: q, id: batchID, start: start, watermark: wm, trigStart: trigStart, prevTrigger: lastTrigger, durations: map[string]int64{}}
		var ran bool
		err := q.retrySource(ctx, q.cfg.Trigger.mustEnd(), func(int) (err error) {
			ran, err = b.plan(ctx, replay)
			return err
		})
		replay = nil
		if err != nil {
			q.finish(err)
			return
		}
		if !ran {
			if q.cfg.Trigger.Kind == TriggerAvailableNow || q.cfg.Trigger.Kind == TriggerOnce {
				q.finish(nil)
				return
			}
			wait := idleDelay
			msg := "Waiting for data to arrive"
			if q.cfg.Trigger.Kind == TriggerProcessingTime {
				// Nothing polls before the next trigger: the query waits for it.
				wait = time.Until(trigStart.Add(q.cfg.Trigger.Interval))
				lastTrigger = trigStart
				msg = "Waiting for next trigger"
			}
			q.setStatus(msg, false, false)
			q.caughtUpAt(b.check)
			if q.cfg.OnIdle != nil && (lastNoExecution.IsZero() || !trigStart.Before(lastNoExecution.Add(q.cfg.NoDataEventInterval))) {
				lastNoExecution = trigStart
				q.cfg.OnIdle(trigStart)
			}
			select {
			case <-ctx.Done():
				q.finish(nil)
				return
			case <-time.After(wait):
			}
			q.setMessage("Waiting for next trigger")
			continue
		}
		// A source that becomes unavailable half-way through the batch fails
		// it before the sink sees anything; the batch then runs again from
		// its logged offsets and the state before it, so it is written once.
		var p *progress.StreamingQueryProgress
		err = q.retrySource(ctx, q.cfg.Trigger.mustEnd(), func(attempt int) (err error) {
			if attempt > 0 {
				if err := q.rewindState(ctx, b.id); err != nil {
					return err
				}
			}
			p, err = b.execute(ctx)
			return err
		})
		if err != nil {
			q.finish(err)
			return
		}
		lastTrigger = trigStart
		lastNoExecution = time.Now()
		batchID, start, wm = b.id+1, b.end, b.nextWatermark
		q.setTriggerActive(false)
		q.setMessage("Waiting for next trigger")
		q.report(p)
		if batchID%10 == 0 && batchID > q.cfg.RetainBatches {
			_ = q.cfg.Checkpoint.Purge(ctx, batchID-q.cfg.RetainBatches)
		}
		if q.cfg.Trigger.Kind == TriggerOnce {
			q.finish(nil)
			return
		}
	}
}

// numRecentProgressUpdates is how many progress reports a query keeps for
// RecentProgress, as Spark's spark.sql.streaming.numRecentProgressUpdates
// (default 100): the history must not grow with the stream.
const numRecentProgressUpdates = 100

func (q *Query) report(p *progress.StreamingQueryProgress) {
	q.mu.Lock()
	q.recent = append(q.recent, *p)
	if n := len(q.recent); n > numRecentProgressUpdates {
		q.recent = q.recent[n-numRecentProgressUpdates:]
	}
	q.totals.Batches++
	q.totals.InputRows += p.NumInputRows
	q.totals.OutputRows += p.Sink.NumOutputRows
	for _, s := range p.StateOperators {
		q.totals.DroppedLate += s.NumRowsDroppedByWatermark
	}
	q.totals.Malformed += p.ObservedMetrics[expr.MetricMalformed] + p.ObservedMetrics[avrox.MetricMalformed] + p.ObservedMetrics[avrox.MetricUnknownSchema]
	q.totals.NullEventTime += p.ObservedMetrics[progress.MetricNullEventTime]
	q.totals.FutureEventTime += p.ObservedMetrics[progress.MetricFutureEventTime]
	if p.WatermarkWarning != nil {
		q.totals.WatermarkWarnings++
	}
	q.mu.Unlock()
	if q.cfg.OnProgress != nil {
		q.cfg.OnProgress(p)
	}
}

// releaseAll releases records.
func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// logOffset is the query's offset recorded in an offsets log entry: the
// one source's, or all sources' combined.
func (q *Query) logOffset(seq *checkpoint.OffsetSeq) (source.Offset, error) {
	if m, ok := q.src.(*multiSource); ok {
		if len(seq.Offsets) != len(m.srcs) {
			return "", fmt.Errorf("checkpoint %s: batch %d has %d source offsets, the query reads %d sources: use a new checkpointLocation", q.cfg.Checkpoint.Location(), seq.BatchID, len(seq.Offsets), len(m.srcs))
		}
		return m.combine(seq.Offsets), nil
	}
	if len(seq.Offsets) != 1 {
		return "", fmt.Errorf("checkpoint %s: batch %d has %d source offsets, the query reads one source: use a new checkpointLocation", q.cfg.Checkpoint.Location(), seq.BatchID, len(seq.Offsets))
	}
	return seq.Offsets[0], nil
}

// logOffsets are the offsets log lines of end, one per source.
func (q *Query) logOffsets(end source.Offset) ([]source.Offset, error) {
	if m, ok := q.src.(*multiSource); ok {
		return m.logOffsets(end)
	}
	return []source.Offset{end}, nil
}
