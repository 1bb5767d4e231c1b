package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/state"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// aggregateKind names the aggregation's state directory.
const aggregateKind = "aggregate"

// aggregateOp is Spark's StateStoreRestoreExec, HashAggregateExec and
// StateStoreSaveExec (SessionWindowStateStoreSaveExec for a session
// window) in one: the partial aggregates of every open group live in
// state across batches. In append mode a group is emitted once, when the
// eviction watermark passes its window's end; in update mode every batch
// emits the groups it changed; in complete mode every group.
type aggregateOp struct {
	node *plan.Aggregate
	mode sink.OutputMode
	st   state.GroupState
	// empty is the state before any batch.
	empty []byte
	b     *opBatch
	// late collects, when set (a query with a lateRowsTable), the rows the
	// aggregation kept out, as late-rows records of schema lateSchema.
	late       *[]arrow.RecordBatch
	lateSchema *arrow.Schema
	// this batch's figures
	dropped, nullTime, removed, commitMs int64
}

func newAggregateOp(a *plan.Aggregate, mode sink.OutputMode) (*aggregateOp, error) {
	evict := a.EvictKey
	if mode == sink.Complete {
		evict = -1 // complete mode keeps every group, as Spark does
	}
	keys, aggs, err := a.Bind()
	if err != nil {
		return nil, err
	}
	st, err := state.NewGroupState(state.Config{Keys: keys, KeyNames: a.KeyNames, Aggs: aggs, EvictKey: evict})
	if err != nil {
		return nil, err
	}
	o := &aggregateOp{node: a, mode: mode, st: st}
	if o.empty, err = st.Save(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *aggregateOp) Kind() string { return aggregateKind }

func (o *aggregateOp) Begin(b *opBatch) {
	o.b = b
	o.dropped, o.nullTime, o.removed, o.commitMs = 0, 0, 0, 0
}

// Process folds rec into the groups; rows older than the watermark for
// late rows are dropped (append and update modes).
func (o *aggregateOp) Process(c *expr.Ctx, _ int, rec arrow.RecordBatch, _ emitFunc) error {
	b := o.b
	st, err := o.st.Update(c, rec, b.id, b.lateMs*1000, o.mode != sink.Complete)
	o.dropped += st.Dropped
	o.nullTime += st.NullTime
	if err != nil || o.late == nil {
		return err
	}
	for _, kept := range []struct {
		rows   []int32
		reason string
	}{{st.LateRows, LateReasonLate}, {st.NullTimeRows, LateReasonNullEventTime}, {st.AheadRows, LateReasonFutureEventTime}} {
		if len(kept.rows) == 0 {
			continue
		}
		lr, err := lateRecord(c, o.lateSchema, rec, kept.rows, b.id, b.lateMs*1000, kept.reason)
		if err != nil {
			return err
		}
		*o.late = append(*o.late, lr)
	}
	return nil
}

// Advance emits the batch's rows for the output mode and evicts the
// groups the eviction watermark closed.
func (o *aggregateOp) Advance(c *expr.Ctx, emit emitFunc) error {
	wm := o.b.evictMs * 1000
	var rec arrow.RecordBatch
	switch o.mode {
	case sink.Append:
		r, n, err := o.st.EvictExpired(c.Mem, wm, true)
		if err != nil {
			return err
		}
		rec, o.removed = r, int64(n)
	case sink.Update:
		r, err := o.st.EmitUpdated(c.Mem, o.b.id)
		if err != nil {
			return err
		}
		_, n, err := o.st.EvictExpired(c.Mem, wm, false)
		if err != nil {
			r.Release()
			return err
		}
		rec, o.removed = r, int64(n)
	default:
		r, err := o.st.Emit(c.Mem, nil)
		if err != nil {
			return err
		}
		rec = r
	}
	if rec == nil {
		return nil
	}
	defer rec.Release()
	if out := o.node.Out; hasFieldMetadata(out) && out.NumFields() == int(rec.NumCols()) {
		// The plan's schema carries the event-time tags the state's lacks
		// (a window key's watermark delay, for an aggregation after it).
		rec = array.NewRecordBatch(out, rec.Columns(), rec.NumRows())
		defer rec.Release()
	}
	return emit(rec)
}

// OutputWatermark passes the input watermark on: an emitted group's
// window ended at or before it (Spark's StateStoreSaveExec).
func (o *aggregateOp) OutputWatermark(in int64) int64 { return in }

func (o *aggregateOp) evictsWithoutData() bool { return true }

func (o *aggregateOp) Snapshot(ctx context.Context, s opState) (err error) {
	o.commitMs, err = s.save(ctx, o.st.Save)
	return err
}

func (o *aggregateOp) Restore(ctx context.Context, s opState) error {
	return s.restoreWhole(ctx, o.empty, "this aggregation", o.st.Load)
}

func (o *aggregateOp) Metrics() *progress.StateOperatorProgress {
	id := int64(0)
	if o.b != nil {
		id = o.b.id
	}
	return &progress.StateOperatorProgress{
		OperatorName:              "stateStoreSave",
		NumRowsTotal:              int64(o.st.NumGroups()),
		NumRowsUpdated:            o.st.NumUpdated(id),
		NumRowsRemoved:            o.removed,
		CommitTimeMs:              o.commitMs,
		MemoryUsedBytes:           o.st.MemoryBytes(),
		NumRowsDroppedByWatermark: o.dropped,
		NumShufflePartitions:      1,
		NumStateStoreInstances:    1,
	}
}

// hasFieldMetadata reports whether a field of s carries metadata.
func hasFieldMetadata(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		if f.HasMetadata() {
			return true
		}
	}
	return false
}
