package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/state"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// dedupStateOp names the deduplication's state versions in the checkpoint.
const dedupStateOp = "1/dedupe"

// MetricDroppedDuplicates is the deduplication's custom state metric, as
// Spark names it.
const MetricDroppedDuplicates = "numDroppedDuplicateRows"

// dedupOp is Spark's StreamingDeduplicateExec (or
// StreamingDeduplicateWithinWatermarkExec): it keeps the first row of each
// key, across batches in a streaming query.
type dedupOp struct {
	node *plan.Deduplicate
	st   *state.Deduper
	// late is the watermark for late events (µs) of the running batch, nil
	// in batch queries and streams without a watermark.
	late *int64
	// per batch
	stats   state.DedupStats
	removed int64
	commit  int64
}

func newDedupOp(d *plan.Deduplicate) *dedupOp {
	mode := state.DedupForever
	switch {
	case d.WithinWatermark:
		mode = state.DedupWithinWatermark
	case d.EventTimeIsKey:
		mode = state.DedupKeyTime
	}
	return &dedupOp{node: d, st: state.NewDeduper(state.DedupConfig{
		Keys: d.KeyIndex, EventTime: d.EventTime, Mode: mode, DelayMicros: d.DelayMs * 1000,
		Shape: fmt.Sprintf("%s mode %d", d.Describe(), mode),
	})}
}

func (d *dedupOp) apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	keep, st, err := d.st.Filter(rec, d.late)
	if err != nil {
		return nil, err
	}
	d.stats.Duplicates += st.Duplicates
	d.stats.Late += st.Late
	if int64(len(keep)) == rec.NumRows() {
		rec.Retain()
		return rec, nil
	}
	mask := array.NewBooleanBuilder(c.Mem)
	defer mask.Release()
	mask.Reserve(int(rec.NumRows()))
	next := 0
	for i := range int(rec.NumRows()) {
		in := next < len(keep) && int(keep[next]) == i
		if in {
			next++
		}
		mask.UnsafeAppend(in)
	}
	m := mask.NewArray()
	defer m.Release()
	return compute.FilterRecordBatch(c.Context, rec, m, compute.DefaultFilterOptions())
}

// findDedup returns the deduplication among ops, or nil.
func findDedup(ops []op) *dedupOp {
	for _, o := range ops {
		if d, ok := o.(*dedupOp); ok {
			return d
		}
	}
	return nil
}

// dedupSnapshotEvery is how often (in batches) the deduplication state
// version holds every key; the versions between hold the keys added and
// removed, so a large state does not cost a full copy each batch.
const dedupSnapshotEvery = 10

// prepareDedup finds the query's deduplication. Full versions come every
// dedupSnapshotEvery batches, or every batch when fewer batches are
// retained, so the chain a restart reads is never purged.
func (q *Query) prepareDedup() error {
	q.dedup = findDedup(q.ops)
	if q.dedup == nil {
		return nil
	}
	every := int64(dedupSnapshotEvery)
	if q.cfg.RetainBatches < every {
		every = 1
	}
	q.dedup.st.SetSnapshotEvery(every)
	return nil
}

// loadDedup restores the deduplication keys as they were after batch id
// (nothing for id < 0: the empty state).
func (q *Query) loadDedup(ctx context.Context, id int64) error {
	if q.dedup == nil {
		return nil
	}
	read := func(v int64) ([]byte, error) {
		d, ok, err := q.cfg.Checkpoint.ReadState(ctx, dedupStateOp, v)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("checkpoint %s: deduplication state version %d is missing; the checkpoint was written by a query without dropDuplicates: use a new checkpointLocation", q.cfg.Checkpoint.Location(), v)
		}
		return d, nil
	}
	if err := q.dedup.st.Load(id, read); err != nil {
		return fmt.Errorf("checkpoint %s: %w", q.cfg.Checkpoint.Location(), err)
	}
	return nil
}

// beginDedup readies the deduplication for batch b: late rows are judged
// by the previous batch's watermark when the stream has one.
func (q *Query) beginDedup(b *batchRun) {
	d := q.dedup
	if d == nil {
		return
	}
	d.stats, d.removed, d.commit = state.DedupStats{}, 0, 0
	d.late = nil
	if q.cfg.Shape.Watermark != nil && d.node.EventTime >= 0 {
		late := b.lateWatermark * 1000
		d.late = &late
	}
}

// finishDedup evicts keys the batch's watermark passed and writes the
// state version of batch b.
func (q *Query) finishDedup(ctx context.Context, b *batchRun) error {
	d := q.dedup
	if d == nil {
		return nil
	}
	if q.cfg.Shape.Watermark != nil {
		d.removed = d.st.Evict(b.watermark * 1000)
	}
	t := time.Now()
	data, err := d.st.Save(b.id)
	if err != nil {
		return err
	}
	if err := q.cfg.Checkpoint.WriteState(ctx, dedupStateOp, b.id, data); err != nil {
		return fmt.Errorf("batch %d: %w", b.id, err)
	}
	d.commit = since(t)
	return nil
}

// dedupEvicts reports whether a batch without data would evict keys.
func (q *Query) dedupEvicts() bool {
	return q.dedup != nil && q.cfg.Shape.Watermark != nil && q.dedup.st.Evicts()
}

// dedupProgress is the deduplication's state operator report.
func (q *Query) dedupProgress() []progress.StateOperatorProgress {
	d := q.dedup
	if d == nil {
		return nil
	}
	return []progress.StateOperatorProgress{{
		OperatorName:              d.node.OperatorName(),
		NumRowsTotal:              d.st.NumKeys(),
		NumRowsUpdated:            d.st.TakeUpdated(),
		NumRowsRemoved:            d.removed,
		CommitTimeMs:              d.commit,
		MemoryUsedBytes:           d.st.MemoryBytes(),
		NumRowsDroppedByWatermark: d.stats.Late,
		NumShufflePartitions:      1,
		NumStateStoreInstances:    1,
		CustomMetrics:             map[string]int64{MetricDroppedDuplicates: d.stats.Duplicates},
	}}
}
