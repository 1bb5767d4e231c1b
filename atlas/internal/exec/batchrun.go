package exec

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// batchRun is one micro-batch: planned (offsets logged), then executed.
type batchRun struct {
	q             *Query
	id            int64
	start, end    source.Offset
	latest        source.Offset
	watermark     int64 // ms: this batch's watermark, for eviction
	lateWatermark int64 // ms: the previous batch's watermark, for late rows
	nextWatermark int64 // ms, after this batch
	timestampMs   int64 // the batch's processing time (batchTimestampMs)
	warning       *progress.WatermarkWarning
	trigStart     time.Time
	prevTrigger   time.Time
	durations     map[string]int64
	// hasData reports whether the batch reads new rows (false for a batch
	// run only to evict state); check is the number of its source check.
	hasData bool
	check   int64
	// loss is what the source skipped in this batch (failOnDataLoss=false).
	loss []progress.DataLoss
}

func since(t time.Time) int64 { return time.Since(t).Milliseconds() }

// plan decides whether a batch runs and writes its offsets entry first
// (the write-ahead log). A replayed entry is taken as recorded.
func (b *batchRun) plan(ctx context.Context, replay *checkpoint.OffsetSeq) (bool, error) {
	q := b.q
	if replay != nil {
		end, err := q.logOffset(replay)
		if err != nil {
			return false, err
		}
		b.end = end
		b.latest = b.end
		b.watermark = replay.Metadata.BatchWatermarkMs
		b.timestampMs = replay.Metadata.BatchTimestampMs
		b.hasData = b.end != b.start
		return true, b.readLateWatermark(ctx)
	}
	b.timestampMs = b.trigStart.UnixMilli()
	if err := b.readLateWatermark(ctx); err != nil {
		return false, err
	}
	t := time.Now()
	b.check = q.beginCheck()
	end, err := q.src.LatestOffset(ctx, b.start)
	if err != nil {
		return false, fmt.Errorf("batch %d: latest offset of %s: %w", b.id, q.src.Description(), err)
	}
	b.durations["latestOffset"] = since(t)
	b.end = end
	b.hasData = end != b.start
	// Spark's StateStoreSaveExec.shouldRunAnotherBatch: without new data,
	// a batch still runs when the watermark moved past the last batch's
	// (append and update modes), to close windows and so that the next
	// data batch judges late rows by the moved watermark.
	noDataBatch := !b.hasData && q.tree.evictsWithoutData() && q.tree.hasWatermark() && q.cfg.Mode != sink.Complete && b.watermark > b.lateWatermark
	if !b.hasData && !noDataBatch {
		return false, nil
	}
	q.setMessage("Writing offsets to log")
	if latest, err := q.src.AvailableOffset(ctx); err == nil {
		b.latest = latest
	}
	logged, err := q.logOffsets(end)
	if err != nil {
		return false, err
	}
	t = time.Now()
	err = q.cfg.Checkpoint.WriteOffsets(ctx, checkpoint.OffsetSeq{
		BatchID: b.id,
		Metadata: checkpoint.OffsetSeqMetadata{BatchWatermarkMs: b.watermark, BatchTimestampMs: b.timestampMs,
			Conf: map[string]string{ConfMultipleWatermarkPolicy: q.wmPolicy}},
		Offsets: logged,
	})
	if err != nil {
		return false, fmt.Errorf("batch %d: %w", b.id, err)
	}
	b.durations["walCommit"] = since(t)
	return true, nil
}

// readLateWatermark sets b.lateWatermark, the watermark this batch filters
// late rows with. Since Spark 3.4 (SPARK-40925) that is the previous
// batch's watermark, as recorded in the offsets log (Spark's
// IncrementalExecution gets it from offsetLog.offsetSeqMetadataForBatchId
// (batchId - 1)), while b.watermark, this batch's own entry, closes
// windows and evicts state. With the one watermark for both, a row whose
// window the batch is about to emit for the first time was dropped as
// late. Both come from the log, never from memory, so a replay of batch N
// after a restart uses exactly the watermarks of its first run; batch 0,
// or a missing entry, uses 0 as Spark does.
func (b *batchRun) readLateWatermark(ctx context.Context) error {
	q := b.q
	if !q.lateWM.ok || q.lateWM.id != b.id {
		meta, _, err := q.cfg.Checkpoint.OffsetSeqMetadataForBatch(ctx, b.id-1)
		if err != nil {
			return fmt.Errorf("batch %d: watermark for late events: %w", b.id, err)
		}
		q.lateWM.id, q.lateWM.ms, q.lateWM.ok = b.id, meta.BatchWatermarkMs, true
	}
	b.lateWatermark = q.lateWM.ms
	return nil
}

// execute runs the planned batch through the operators, the state and
// the sink, then writes the state versions and the commit entry.
func (b *batchRun) execute(ctx context.Context) (*progress.StreamingQueryProgress, error) {
	q := b.q
	if b.hasData {
		q.setStatus("Processing new data", true, true)
	} else {
		q.setStatus("No new data but cleaning up state", false, true)
	}
	c := expr.NewCtx(ctx)
	c.Now = time.UnixMilli(b.timestampMs).UTC() // current_timestamp() is the batch timestamp, as in Spark
	var outputs []arrow.RecordBatch
	releaseAll(q.late)
	q.late = nil
	defer func() { releaseAll(outputs); releaseAll(q.late); q.late = nil }()
	q.beginOperators(c, b, &outputs)
	t := time.Now()
	numInput, rows, procTime, err := q.readBatch(c, b)
	if err != nil {
		return nil, fmt.Errorf("batch %d: %w", b.id, err)
	}
	if r, ok := q.src.(source.DataLossReporter); ok {
		b.loss = r.DataLoss()
	}
	if r, ok := q.src.(source.MetricsReporter); ok && b.hasData {
		for name, n := range r.BatchMetrics() {
			c.Add(name, n)
		}
	}
	// Reading overlaps processing: getBatch is the wall time of the read
	// not covered by the operators' work.
	b.durations["getBatch"] = max(0, time.Since(t)-procTime).Milliseconds()
	t2 := time.Now()
	for _, n := range q.tree.post {
		if err := n.op.Advance(c, n.emit); err != nil {
			return nil, fmt.Errorf("batch %d: %w", b.id, err)
		}
	}
	q.stats = q.tree.mergedStats()
	schema := outputSchema(q)
	out := &sink.Batch{QueryID: q.id, BatchID: b.id, Mode: q.cfg.Mode, Schema: schema, Records: outputs}
	if err := q.cfg.Sink.AddBatch(ctx, out); err != nil {
		return nil, fmt.Errorf("batch %d: sink %s: %w", b.id, q.cfg.Sink.Description(), err)
	}
	if len(q.late) > 0 {
		lb := &sink.Batch{QueryID: q.id, BatchID: b.id, Mode: sink.Append, Schema: q.lateSchema, Records: q.late}
		if err := q.cfg.LateSink.AddBatch(ctx, lb); err != nil {
			return nil, fmt.Errorf("batch %d: late rows sink %s: %w", b.id, q.cfg.LateSink.Description(), err)
		}
	}
	b.durations["addBatch"] = since(t2) + procTime.Milliseconds()
	b.nextWatermark = q.tracker.next(b.watermark)
	if err := q.snapshotState(ctx, b.id); err != nil {
		return nil, err
	}
	b.warning = watermarkWarning(b, q.stats.Max)
	if h := q.cfg.HoldBeforeCommit; h != nil && *h == b.id {
		if err := q.holdBeforeCommit(ctx, b); err != nil {
			return nil, err
		}
	}
	t3 := time.Now()
	if err := q.cfg.Checkpoint.WriteCommit(ctx, b.id, checkpoint.CommitMetadata{NextBatchWatermarkMs: b.nextWatermark}); err != nil {
		return nil, fmt.Errorf("batch %d: %w", b.id, err)
	}
	if err := q.src.Commit(ctx, b.end); err != nil {
		return nil, fmt.Errorf("batch %d: %w", b.id, err)
	}
	b.durations["commitOffsets"] = since(t3)
	b.durations["queryPlanning"] = 0
	b.durations["triggerExecution"] = since(b.trigStart)
	metrics := c.Metrics
	var nullTime int64
	for _, a := range q.tree.aggs {
		nullTime += a.nullTime
	}
	for name, n := range map[string]int64{progress.MetricNullEventTime: nullTime, progress.MetricFutureEventTime: q.stats.Ahead} {
		if n > 0 {
			if metrics == nil {
				metrics = map[string]int64{}
			}
			metrics[name] = n
		}
	}
	return b.progress(numInput, out.NumRows(), rows, metrics), nil
}

// HoldingStatusPrefix starts the status message of a batch held by
// Config.HoldBeforeCommit.
const HoldingStatusPrefix = "Holding batch "

// holdBeforeCommit waits, with the status saying so, until ctx ends (the
// query is stopped): batch b's output is written and its commit entry is
// not. It always returns an error, wrapping ctx's.
func (q *Query) holdBeforeCommit(ctx context.Context, b *batchRun) error {
	q.setStatus(fmt.Sprintf("%s%d before its commit log entry (holdBeforeCommit): its output is written; stop the query to abandon the batch here", HoldingStatusPrefix, b.id), b.hasData, true)
	<-ctx.Done()
	return fmt.Errorf("batch %d: held before its commit log entry (holdBeforeCommit): %w", b.id, ctx.Err())
}

// beginOperators readies every operator for batch b: each its own
// watermarks (propagateWatermarks), the watermark operators' statistics
// and their bound on event times ahead of processing time, and where each
// hands its rows (the root: to outputs, for the sink).
func (q *Query) beginOperators(c *expr.Ctx, b *batchRun, outputs *[]arrow.RecordBatch) {
	t := q.tree
	t.propagateWatermarks(b.lateWatermark, b.watermark)
	single := len(t.scans) == 1
	for _, l := range t.wms {
		*l.stats = EventTimeStats{Min: math.MaxInt64, Max: math.MinInt64}
		if !single {
			continue
		}
		// Rows further ahead of processing time than the bound are counted;
		// with eventTimeMaxAheadOfProcessing they are also kept out of the
		// watermark (here) and of the aggregation (SetEventTimeLimit).
		bound, exclude := l.delay, q.cfg.EventTimeMaxAhead > 0
		if exclude {
			bound = q.cfg.EventTimeMaxAhead
		}
		l.stats.Limit, l.stats.Exclude = b.timestampMs*1000+bound.Microseconds(), exclude
		if exclude {
			for _, a := range t.aggs {
				a.st.SetEventTimeLimit(l.stats.Limit)
			}
		}
	}
	queryWM := t.hasWatermark()
	for _, n := range t.post {
		n.op.Begin(&opBatch{id: b.id, lateMs: n.late, evictMs: n.evict, hasWatermark: n.hasWM, queryWatermark: queryWM, noData: !b.hasData})
		if p := n.parent; p != nil {
			slot := n.slot
			n.emit = func(rec arrow.RecordBatch) error { return p.op.Process(c, slot, rec, p.emit) }
			continue
		}
		n.emit = func(rec arrow.RecordBatch) error {
			rec.Retain()
			*outputs = append(*outputs, rec)
			return nil
		}
	}
}

// readBatch reads the batch's rows from the sources into the leaves of
// the operator tree. It returns the rows read (in all and per source) and
// the time the operators took.
func (q *Query) readBatch(c *expr.Ctx, b *batchRun) (numInput int64, rows []int64, procTime time.Duration, err error) {
	rows = make([]int64, len(q.tree.leaves))
	if m, ok := q.src.(*multiSource); ok {
		err = m.getSides(c.Context, b.start, b.end, func(side int, rec arrow.RecordBatch) error {
			pt := time.Now()
			defer func() { procTime += time.Since(pt) }()
			numInput += rec.NumRows()
			rows[side] += rec.NumRows()
			l := q.tree.leaves[side]
			return l.op.Process(c, 0, rec, l.emit)
		})
		return numInput, rows, procTime, err
	}
	leaf := q.tree.leaves[0]
	read := func(yield func(arrow.RecordBatch) error) error {
		return q.src.GetBatch(c.Context, b.start, b.end, yield)
	}
	if p := q.parallelRun(); p != nil {
		// The operators run on several goroutines, over chunks of the
		// records; the leaf's parent sees the chunks in row order.
		base := EventTimeStats{Min: math.MaxInt64, Max: math.MinInt64}
		if leaf.stats != nil {
			base.Limit, base.Exclude = leaf.stats.Limit, leaf.stats.Exclude
		}
		p.base = base
		err = p.run(c, read, func(ch *chunk) error {
			numInput += ch.rows
			if leaf.stats != nil {
				leaf.stats.Merge(ch.stats)
			}
			for name, n := range ch.metrics {
				c.Add(name, n)
			}
			out := ch.out
			ch.out = nil
			defer out.Release()
			return leaf.emit(out)
		})
		rows[0] = numInput
		return numInput, rows, p.busy.total, err
	}
	err = overlap(read, func(rec arrow.RecordBatch) error {
		pt := time.Now()
		defer func() { procTime += time.Since(pt) }()
		numInput += rec.NumRows()
		return leaf.op.Process(c, 0, rec, leaf.emit)
	})
	rows[0] = numInput
	return numInput, rows, procTime, err
}

// mergedStats are the event-time statistics of every watermark operator.
func (t *opTree) mergedStats() EventTimeStats {
	s := EventTimeStats{Min: math.MaxInt64, Max: math.MinInt64}
	for _, l := range t.wms {
		s.Merge(*l.stats)
	}
	return s
}

// evictsWithoutData reports whether a stateful operator would evict state
// in a batch without new rows.
func (t *opTree) evictsWithoutData() bool {
	for _, n := range t.stateful {
		if e, ok := n.op.(evicter); ok && e.evictsWithoutData() {
			return true
		}
	}
	return false
}

// watermarkWarning reports a batch that moved the watermark past its own
// processing time. Spark's rule (WatermarkTracker: max event time minus
// the delay, never backwards) is kept, so one row stamped far in the future
// (a bad clock, a parse of year 294247) makes every later row late; Atlas
// says so loudly instead of dropping rows without a word.
func watermarkWarning(b *batchRun, maxMicros int64) *progress.WatermarkWarning {
	if b.nextWatermark <= b.watermark || b.nextWatermark <= b.timestampMs {
		return nil
	}
	w := &progress.WatermarkWarning{
		MaxEventTime:   progress.FormatTime(time.UnixMicro(maxMicros)),
		OldWatermark:   progress.FormatTime(time.UnixMilli(b.watermark)),
		NewWatermark:   progress.FormatTime(time.UnixMilli(b.nextWatermark)),
		ProcessingTime: progress.FormatTime(time.UnixMilli(b.timestampMs)),
	}
	w.Message = fmt.Sprintf("batch %d: event time %s moved the watermark from %s to %s, ahead of processing time %s: every later row older than the new watermark is late; "+
		"set the writer option eventTimeMaxAheadOfProcessing (e.g. \"1 hour\") to keep rows that far ahead out of the watermark and in the lateRowsTable",
		b.id, w.MaxEventTime, w.OldWatermark, w.NewWatermark, w.ProcessingTime)
	return w
}

func outputSchema(q *Query) *arrow.Schema { return ShapeOutputSchema(q.cfg.Shape) }

// OutputSchema is the schema of the rows the sink receives.
func (q *Query) OutputSchema() *arrow.Schema { return outputSchema(q) }

func (b *batchRun) progress(numInput, numOutput int64, rows []int64, metrics map[string]int64) *progress.StreamingQueryProgress {
	q := b.q
	dur := b.durations["triggerExecution"]
	p := &progress.StreamingQueryProgress{
		ID: q.id, RunID: q.runID, Name: q.cfg.Name,
		Timestamp:     progress.FormatTime(b.trigStart),
		BatchID:       b.id,
		BatchDuration: dur,
		NumInputRows:  numInput,
		DurationMs:    b.durations,
		Sink:          progress.SinkProgress{Description: q.cfg.Sink.Description(), NumOutputRows: numOutput},
	}
	if m, ok := q.cfg.Sink.(sink.MetricsReporter); ok {
		p.Sink.Metrics = m.BatchMetrics(b.id)
	}
	if !b.prevTrigger.IsZero() {
		if el := b.trigStart.Sub(b.prevTrigger).Seconds(); el > 0 {
			p.InputRowsPerSecond = float64(numInput) / el
		}
	}
	if dur > 0 {
		p.ProcessedRowsPerSecond = float64(numInput) / (float64(dur) / 1000)
	} else if numInput > 0 {
		p.ProcessedRowsPerSecond = float64(numInput) * 1000
	}
	if q.tree.hasWatermark() {
		p.EventTime = map[string]string{"watermark": progress.FormatTime(time.UnixMilli(b.watermark))}
		if st := q.stats; st.Count > 0 {
			p.EventTime["min"] = progress.FormatTime(time.UnixMicro(st.Min))
			p.EventTime["max"] = progress.FormatTime(time.UnixMicro(st.Max))
			p.EventTime["avg"] = progress.FormatTime(time.UnixMilli(st.MeanMillis()))
		}
	}
	// One entry per stateful operator, from the bottom of the plan up.
	p.StateOperators = []progress.StateOperatorProgress{}
	if len(q.tree.stateful) > 0 && b.id > 0 {
		if q.stateLoaded {
			q.stateLoaded = false
		} else {
			q.stateHits++
		}
	}
	for _, n := range q.tree.stateful {
		if m := n.op.Metrics(); m != nil {
			custom := make(map[string]int64, len(m.CustomMetrics)+3)
			for k, v := range m.CustomMetrics {
				custom[k] = v
			}
			custom[progress.MetricLoadedMapCacheHit] = q.stateHits
			custom[progress.MetricLoadedMapCacheMiss] = q.stateMisses
			custom[progress.MetricStateOnCurrentVersionSize] = m.MemoryUsedBytes
			m.CustomMetrics = custom
			p.StateOperators = append(p.StateOperators, *m)
		}
	}
	shown := func(o source.Offset) source.Offset { return o }
	if po, ok := q.src.(source.ProgressOffsets); ok {
		shown = po.ProgressOffset
	}
	src := progress.SourceProgress{
		Description:  q.src.Description(),
		StartOffset:  jsonOrNull(shown(b.start)),
		EndOffset:    jsonOrNull(shown(b.end)),
		LatestOffset: jsonOrNull(shown(b.latest)),
		DataLoss:     b.loss,
		NumInputRows: numInput, InputRowsPerSecond: p.InputRowsPerSecond, ProcessedRowsPerSecond: p.ProcessedRowsPerSecond,
	}
	if pm, ok := q.src.(source.ProgressMetrics); ok {
		src.Metrics = pm.ProgressMetrics(b.end, b.latest)
	}
	p.Sources = []progress.SourceProgress{src}
	if m, ok := q.src.(*multiSource); ok {
		p.Sources = m.sourceProgress(b.start, b.end, b.latest, rows)
		p.Sources[0].DataLoss = b.loss
	}
	if len(metrics) > 0 {
		p.ObservedMetrics = metrics
	}
	p.WatermarkWarning = b.warning
	return p
}

func jsonOrNull(o source.Offset) []byte {
	if o == "" {
		return []byte("null")
	}
	return []byte(o)
}

// ShapeOutputSchema is the schema of the rows a validated plan hands its sink.
func ShapeOutputSchema(s *plan.Shape) *arrow.Schema {
	switch {
	case s.Root != nil:
		return s.Root.Schema()
	case len(s.Post) > 0:
		return s.Post[len(s.Post)-1].Schema()
	case s.Agg != nil:
		return s.Agg.Schema()
	case len(s.Pre) > 0:
		return s.Pre[len(s.Pre)-1].Schema()
	}
	return s.Leaf.Schema()
}
