package exec

import (
	"context"
	"fmt"

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
	b    *opBatch
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

// dedupKind names a deduplication's state directory.
const dedupKind = "dedupe"

// dedupSnapshotEvery is how often (in batches) the deduplication state
// version holds every key; the versions between hold the keys added and
// removed, so a large state does not cost a full copy each batch.
const dedupSnapshotEvery = 10

func (d *dedupOp) Kind() string { return dedupKind }

// setRetain makes full versions come every dedupSnapshotEvery batches, or
// every batch when fewer batches are retained, so the chain a restart
// reads is never purged.
func (d *dedupOp) setRetain(retain int64) {
	every := int64(dedupSnapshotEvery)
	if retain < every {
		every = 1
	}
	d.st.SetSnapshotEvery(every)
}

// Begin readies the deduplication for a batch: late rows are judged by
// its watermark for late rows when one reaches it.
func (d *dedupOp) Begin(b *opBatch) {
	d.b = b
	d.stats, d.removed, d.commit = state.DedupStats{}, 0, 0
	d.late = nil
	if b.hasWatermark && d.node.EventTime >= 0 {
		late := b.lateMs * 1000
		d.late = &late
	}
}

func (d *dedupOp) Process(c *expr.Ctx, _ int, rec arrow.RecordBatch, emit emitFunc) error {
	out, err := d.apply(c, rec)
	if err != nil {
		return err
	}
	defer out.Release()
	return emit(out)
}

// Advance evicts the keys the eviction watermark passed.
func (d *dedupOp) Advance(*expr.Ctx, emitFunc) error {
	if d.b.queryWatermark {
		d.removed = d.st.Evict(d.b.evictMs * 1000)
	}
	return nil
}

func (d *dedupOp) OutputWatermark(in int64) int64 { return in }

func (d *dedupOp) evictsWithoutData() bool { return d.st.Evicts() }

func (d *dedupOp) Snapshot(ctx context.Context, s opState) (err error) {
	d.commit, err = s.save(ctx, func() ([]byte, error) { return d.st.Save(s.version) })
	return err
}

// Restore loads the keys as they were after batch s.version (nothing for
// -1: the empty state), from the last full version and the changes after it.
func (d *dedupOp) Restore(ctx context.Context, s opState) error {
	return s.restore(ctx, "dropDuplicates", func(read func(int64) ([]byte, error)) error { return d.st.Load(s.version, read) })
}

// Metrics is the deduplication's state operator report.
func (d *dedupOp) Metrics() *progress.StateOperatorProgress {
	return &progress.StateOperatorProgress{
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
	}
}
