package exec

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// limitKind names the streaming limit's state directory.
const limitKind = "limit"

// sortLimitOp is a Sort or a Limit of a streaming query, where Spark
// allows them: in complete mode (after an aggregation) each batch's whole
// result is sorted and cut, as a batch query's; in append mode a limit
// is Spark's StreamingGlobalLimitExec, which keeps in its state how many
// rows it let through so far and lets through no more than N over the
// whole stream.
type sortLimitOp struct {
	stateless
	sort  *plan.Sort
	bound []expr.Bound
	limit int64 // -1 for a sort
	mode  sink.OutputMode
	// complete mode: the batch's rows
	rows []arrow.RecordBatch
	// append mode: rows let through so far
	emitted, before int64
	commitMs        int64
	schema          *arrow.Schema
}

func newSortLimitOp(n plan.Node, mode sink.OutputMode) (*sortLimitOp, error) {
	o := &sortLimitOp{limit: -1, mode: mode, schema: n.Schema()}
	switch x := n.(type) {
	case *plan.Sort:
		if mode != sink.Complete {
			return nil, fmt.Errorf("sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode")
		}
		b, err := x.Bind()
		if err != nil {
			return nil, err
		}
		o.sort, o.bound = x, b
	case *plan.Limit:
		if mode == sink.Update {
			return nil, fmt.Errorf("limits are not supported on streaming DataFrames/Datasets in Update output mode: use OutputMode(\"append\") or \"complete\"")
		}
		o.limit = x.N
	}
	return o, nil
}

func (o *sortLimitOp) Kind() string {
	if o.sort != nil {
		return "sort"
	}
	return limitKind
}

// stateful reports whether the operator keeps state: a limit outside
// complete mode.
func (o *sortLimitOp) stateful() bool { return o.sort == nil && o.mode != sink.Complete }

func (o *sortLimitOp) Begin(*opBatch) {
	releaseAll(o.rows)
	o.rows, o.before, o.commitMs = nil, o.emitted, 0
}

func (o *sortLimitOp) Process(_ *expr.Ctx, _ int, rec arrow.RecordBatch, emit emitFunc) error {
	if o.mode == sink.Complete {
		rec.Retain()
		o.rows = append(o.rows, rec)
		return nil
	}
	left := o.limit - o.emitted
	if left <= 0 || rec.NumRows() == 0 {
		return nil
	}
	if rec.NumRows() > left {
		cut := rec.NewSlice(0, left)
		defer cut.Release()
		rec = cut
	}
	o.emitted += rec.NumRows()
	return emit(rec)
}

// Advance sorts and cuts the batch's result (complete mode).
func (o *sortLimitOp) Advance(c *expr.Ctx, emit emitFunc) error {
	if o.mode != sink.Complete {
		return nil
	}
	recs := o.rows
	o.rows = nil
	if o.sort != nil && len(recs) > 0 {
		sorted, err := sortRecords(c, o.schema, recs, o.sort.Keys, o.bound)
		releaseAll(recs)
		if err != nil {
			return err
		}
		recs = []arrow.RecordBatch{sorted}
	}
	if o.limit >= 0 {
		recs = limitRecords(recs, o.limit)
	}
	defer releaseAll(recs)
	for _, r := range recs {
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

func (o *sortLimitOp) Snapshot(ctx context.Context, s opState) (err error) {
	if !o.stateful() {
		return nil
	}
	o.commitMs, err = s.save(ctx, func() ([]byte, error) { return binary.AppendVarint([]byte(limitMagic), o.emitted), nil })
	return err
}

// limitMagic begins every version of a limit's state.
const limitMagic = "limit1"

func (o *sortLimitOp) Restore(ctx context.Context, s opState) error {
	if !o.stateful() {
		return nil
	}
	o.emitted = 0
	if s.version < 0 {
		return nil
	}
	return s.restore(ctx, "this limit", func(read func(int64) ([]byte, error)) error {
		data, err := read(s.version)
		if err != nil {
			return err
		}
		n, k := int64(0), 0
		if len(data) > len(limitMagic) && string(data[:len(limitMagic)]) == limitMagic {
			n, k = binary.Varint(data[len(limitMagic):])
		}
		if k <= 0 {
			return fmt.Errorf("limit state version %d of %s is corrupt", s.version, s.dir)
		}
		o.emitted = n
		return nil
	})
}

func (o *sortLimitOp) Metrics() *progress.StateOperatorProgress {
	if !o.stateful() {
		return nil
	}
	return &progress.StateOperatorProgress{
		OperatorName:           "globalLimit",
		NumRowsTotal:           1,
		NumRowsUpdated:         boolInt(o.emitted != o.before),
		CommitTimeMs:           o.commitMs,
		MemoryUsedBytes:        8,
		NumShufflePartitions:   1,
		NumStateStoreInstances: 1,
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
