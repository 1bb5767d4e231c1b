package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Operator is one physical operator of a streaming query, as Spark's
// SparkPlan nodes are for one micro-batch (StateStoreSaveExec,
// StreamingDeduplicateExec, StreamingSymmetricHashJoinExec, ...), one file
// per operator as in Arroyo. A query's operators form a tree (opTree):
// rows flow from the sources at the leaves to the sink at the root.
//
// Every micro-batch calls Begin, then Process for each record of each
// input, then Advance once every input is exhausted (children before
// parents), then Snapshot. Records are borrowed: an operator never
// releases what it is given and releases what it emits once emit returns;
// one that keeps rows past the call retains them.
type Operator interface {
	// Kind names the operator: its state directory and its stateOperators
	// entry ("aggregate", "dedupe", "join", ...), or a stateless
	// operator's name.
	Kind() string
	// Begin readies the operator for a micro-batch: its watermark for late
	// rows and for eviction (per operator, see propagateWatermarks).
	Begin(b *opBatch)
	// Process takes one record from input child and emits what it makes
	// of it now (a stateless operator all of it; an aggregation nothing).
	Process(c *expr.Ctx, child int, rec arrow.RecordBatch, emit emitFunc) error
	// Advance runs when the batch's input is exhausted: the operator emits
	// what its eviction watermark closes (append mode), what changed
	// (update), or everything (complete), and evicts state.
	Advance(c *expr.Ctx, emit emitFunc) error
	// OutputWatermark is the watermark of the rows the operator emits,
	// given its input watermark (Spark's produceOutputWatermark).
	OutputWatermark(inputMs int64) int64
	// Snapshot writes the operator's state as of the batch (a stateless
	// operator writes nothing).
	Snapshot(ctx context.Context, st opState) error
	// Restore loads the state as of st.version; version -1 is the empty
	// state (before batch 0).
	Restore(ctx context.Context, st opState) error
	// Metrics is the operator's stateOperators entry for the last batch,
	// nil for a stateless operator.
	Metrics() *progress.StateOperatorProgress
}

// emitFunc hands a record to the operator's parent (borrowed).
type emitFunc func(arrow.RecordBatch) error

// opBatch is what an operator knows of the running micro-batch.
type opBatch struct {
	id int64
	// lateMs is the operator's watermark for late rows (the previous
	// batch's watermark, propagated to it), evictMs its watermark for
	// eviction (this batch's); hasWatermark is false when no watermark
	// reaches the operator (both are then 0, as Spark's).
	lateMs, evictMs int64
	hasWatermark    bool
	// queryWatermark is set when the query defines a watermark anywhere.
	queryWatermark bool
	// noData is set for a batch run only to evict state.
	noData bool
}

// stateless gives an operator without state the methods it does not need.
type stateless struct{}

func (stateless) Begin(*opBatch)                           {}
func (stateless) Advance(*expr.Ctx, emitFunc) error        { return nil }
func (stateless) OutputWatermark(in int64) int64           { return in }
func (stateless) Snapshot(context.Context, opState) error  { return nil }
func (stateless) Restore(context.Context, opState) error   { return nil }
func (stateless) Metrics() *progress.StateOperatorProgress { return nil }
func (stateless) evictsWithoutData() bool                  { return false }

// evicter is implemented by operators that can do work in a batch
// without new rows (Spark's shouldRunAnotherBatch): one runs when the
// watermark moved and one of them says so.
type evicter interface{ evictsWithoutData() bool }

// chainOp runs stateless operators (projections, filters, the watermark,
// explode, stream-static joins) in order over each record.
type chainOp struct {
	stateless
	ops []op
}

func (o *chainOp) Kind() string { return "project" }

func (o *chainOp) Process(c *expr.Ctx, _ int, rec arrow.RecordBatch, emit emitFunc) error {
	out, err := runOps(c, o.ops, rec)
	if err != nil {
		return err
	}
	defer out.Release()
	return emit(out)
}
