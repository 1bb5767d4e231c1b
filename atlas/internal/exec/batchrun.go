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
	"github.com/atlas-lakehouse/atlas/atlas/progress"
	"github.com/atlas-lakehouse/atlas/atlas/sink"
	"github.com/atlas-lakehouse/atlas/atlas/source"
)

// batchRun is one micro-batch: planned (offsets logged), then executed.
type batchRun struct {
	q             *Query
	id            int64
	start, end    source.Offset
	latest        source.Offset
	watermark     int64 // ms, used by this batch
	nextWatermark int64 // ms, after this batch
	trigStart     time.Time
	prevTrigger   time.Time
	durations     map[string]int64
}

func since(t time.Time) int64 { return time.Since(t).Milliseconds() }

// plan decides whether a batch runs and writes its offsets entry first
// (the write-ahead log). A replayed entry is taken as recorded.
func (b *batchRun) plan(ctx context.Context, replay *checkpoint.OffsetSeq) (bool, error) {
	q := b.q
	if replay != nil {
		b.end = replay.Offsets[0]
		b.latest = b.end
		b.watermark = replay.Metadata.BatchWatermarkMs
		return true, nil
	}
	t := time.Now()
	q.setStatus("Getting offsets from "+q.src.Description(), false, true)
	end, err := q.src.LatestOffset(ctx, b.start)
	if err != nil {
		return false, fmt.Errorf("batch %d: latest offset of %s: %w", b.id, q.src.Description(), err)
	}
	b.durations["latestOffset"] = since(t)
	b.end = end
	hasData := end != b.start
	noDataBatch := !hasData && q.agg != nil && q.cfg.Mode != sink.Complete && q.agg.HasExpired(b.watermark*1000)
	if !hasData && !noDataBatch {
		return false, nil
	}
	if latest, err := q.src.AvailableOffset(ctx); err == nil {
		b.latest = latest
	}
	t = time.Now()
	err = q.cfg.Checkpoint.WriteOffsets(ctx, checkpoint.OffsetSeq{
		BatchID:  b.id,
		Metadata: checkpoint.OffsetSeqMetadata{BatchWatermarkMs: b.watermark, BatchTimestampMs: b.trigStart.UnixMilli()},
		Offsets:  []source.Offset{end},
	})
	if err != nil {
		return false, fmt.Errorf("batch %d: %w", b.id, err)
	}
	b.durations["walCommit"] = since(t)
	return true, nil
}

// execute runs the planned batch through the plan, the state and the sink,
// then writes the state version and the commit entry.
func (b *batchRun) execute(ctx context.Context) (*progress.StreamingQueryProgress, error) {
	q := b.q
	q.setStatus("Processing new data", true, true)
	q.stats = EventTimeStats{Min: math.MaxInt64, Max: math.MinInt64}
	c := expr.NewCtx(ctx)
	mode := q.cfg.Mode
	wmMicros := b.watermark * 1000
	var (
		numInput int64
		outputs  []arrow.RecordBatch
		late     []arrow.RecordBatch // rows dropped as late, for cfg.LateSink
		dropped  int64
		procTime time.Duration
	)
	defer func() { releaseAll(outputs); releaseAll(late) }()
	t := time.Now()
	read := func(yield func(arrow.RecordBatch) error) error {
		return q.src.GetBatch(ctx, b.start, b.end, yield)
	}
	err := overlap(read, func(rec arrow.RecordBatch) error {
		pt := time.Now()
		defer func() { procTime += time.Since(pt) }()
		numInput += rec.NumRows()
		out, err := runOps(c, q.ops, rec)
		if err != nil {
			return err
		}
		if q.agg != nil {
			st, err := q.agg.Update(c, out, b.id, wmMicros, mode != sink.Complete)
			dropped += st.Dropped
			if err == nil && q.cfg.LateSink != nil && len(st.LateRows) > 0 {
				var lr arrow.RecordBatch
				if lr, err = lateRecord(c, q.lateSchema, out, st.LateRows, b.id, wmMicros); err == nil {
					late = append(late, lr)
				}
			}
			out.Release()
			return err
		}
		res, err := runOps(c, q.post, out)
		out.Release()
		if err != nil {
			return err
		}
		outputs = append(outputs, res)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("batch %d: %w", b.id, err)
	}
	// Reading overlaps processing: getBatch is the wall time of the read
	// not covered by the operators' work.
	b.durations["getBatch"] = max(0, time.Since(t)-procTime).Milliseconds()
	t2 := time.Now()
	var removed int64
	if q.agg != nil {
		var rec arrow.RecordBatch
		switch mode {
		case sink.Append:
			r, n, err := q.agg.EvictExpired(c.Mem, wmMicros, true)
			if err != nil {
				return nil, err
			}
			rec, removed = r, int64(n)
		case sink.Update:
			r, err := q.agg.EmitUpdated(c.Mem, b.id)
			if err != nil {
				return nil, err
			}
			_, n, err := q.agg.EvictExpired(c.Mem, wmMicros, false)
			if err != nil {
				r.Release()
				return nil, err
			}
			rec, removed = r, int64(n)
		case sink.Complete:
			r, err := q.agg.Emit(c.Mem, nil)
			if err != nil {
				return nil, err
			}
			rec = r
		}
		res, err := runOps(c, q.post, rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("batch %d: %w", b.id, err)
		}
		outputs = append(outputs, res)
	}
	schema := outputSchema(q)
	out := &sink.Batch{QueryID: q.id, BatchID: b.id, Mode: mode, Schema: schema, Records: outputs}
	if err := q.cfg.Sink.AddBatch(ctx, out); err != nil {
		return nil, fmt.Errorf("batch %d: sink %s: %w", b.id, q.cfg.Sink.Description(), err)
	}
	if len(late) > 0 {
		lb := &sink.Batch{QueryID: q.id, BatchID: b.id, Mode: sink.Append, Schema: q.lateSchema, Records: late}
		if err := q.cfg.LateSink.AddBatch(ctx, lb); err != nil {
			return nil, fmt.Errorf("batch %d: late rows sink %s: %w", b.id, q.cfg.LateSink.Description(), err)
		}
	}
	b.durations["addBatch"] = since(t2) + procTime.Milliseconds()
	var stateCommit int64
	if q.agg != nil {
		ts := time.Now()
		data, err := q.agg.Save()
		if err != nil {
			return nil, err
		}
		if err := q.cfg.Checkpoint.WriteState(ctx, stateOp, b.id, data); err != nil {
			return nil, fmt.Errorf("batch %d: %w", b.id, err)
		}
		stateCommit = since(ts)
	}
	b.nextWatermark = b.watermark
	if q.cfg.Shape.Watermark != nil && q.stats.Count > 0 {
		if w := q.stats.Max/1000 - q.delay.Milliseconds(); w > b.nextWatermark {
			b.nextWatermark = w
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
	return b.progress(numInput, out.NumRows(), dropped, removed, stateCommit, c.Metrics), nil
}

func outputSchema(q *Query) *arrow.Schema { return ShapeOutputSchema(q.cfg.Shape) }

// OutputSchema is the schema of the rows the sink receives.
func (q *Query) OutputSchema() *arrow.Schema { return outputSchema(q) }

func (b *batchRun) progress(numInput, numOutput, dropped, removed, stateCommit int64, metrics map[string]int64) *progress.StreamingQueryProgress {
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
	if q.cfg.Shape.Watermark != nil {
		p.EventTime = map[string]string{"watermark": progress.FormatTime(time.UnixMilli(b.watermark))}
		if st := q.stats; st.Count > 0 {
			p.EventTime["min"] = progress.FormatTime(time.UnixMicro(st.Min))
			p.EventTime["max"] = progress.FormatTime(time.UnixMicro(st.Max))
			p.EventTime["avg"] = progress.FormatTime(time.UnixMilli(st.Sum / st.Count))
		}
	}
	if q.agg != nil {
		p.StateOperators = []progress.StateOperatorProgress{{
			OperatorName:              "stateStoreSave",
			NumRowsTotal:              int64(q.agg.NumGroups()),
			NumRowsUpdated:            q.agg.NumUpdated(b.id),
			NumRowsRemoved:            removed,
			CommitTimeMs:              stateCommit,
			MemoryUsedBytes:           q.agg.MemoryBytes(),
			NumRowsDroppedByWatermark: dropped,
			NumShufflePartitions:      1,
			NumStateStoreInstances:    1,
		}}
	} else {
		p.StateOperators = []progress.StateOperatorProgress{}
	}
	src := progress.SourceProgress{
		Description:  q.src.Description(),
		StartOffset:  jsonOrNull(b.start),
		EndOffset:    jsonOrNull(b.end),
		LatestOffset: jsonOrNull(b.latest),
		NumInputRows: numInput, InputRowsPerSecond: p.InputRowsPerSecond, ProcessedRowsPerSecond: p.ProcessedRowsPerSecond,
	}
	p.Sources = []progress.SourceProgress{src}
	if len(metrics) > 0 {
		p.ObservedMetrics = metrics
	}
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
	case len(s.Post) > 0:
		return s.Post[len(s.Post)-1].Schema()
	case s.Agg != nil:
		return s.Agg.Schema()
	case len(s.Pre) > 0:
		return s.Pre[len(s.Pre)-1].Schema()
	}
	return s.Leaf.Schema()
}
