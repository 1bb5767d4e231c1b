// Package exec runs logical plans: batch collection for DataFrames, and
// the micro-batch loop of a streaming query with its offsets log, commit
// log, state versions, watermarks and progress reports.
//
// A streaming query runs as a tree of physical operators (Operator,
// operator.go; the tree in optree.go), one file per operator: the
// stateless chain (projections, filters, the watermark, explode,
// stream-static joins; this file), aggregate.go (window and session
// aggregations), dedup.go, streamjoin.go, union.go, sortlimit.go. Rows are
// pushed from the sources at the leaves to the sink at the root; at the
// end of each batch every operator advances on its own watermark,
// children first (watermarks.go, Spark's WatermarkPropagator), so that
// one aggregation's closed windows reach the next in the same batch.
// Stateful operators are numbered from the root down, as Spark's
// operator ids, and keep their state at state/<id>/<kind>.
package exec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// op is a stateless operator: it maps one record to another. The caller
// keeps ownership of the input and receives ownership of the output.
type op interface {
	apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error)
}

type projectOp struct {
	bound  []expr.Bound
	schema *arrow.Schema
}

func (p *projectOp) apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(p.bound))
	for i, b := range p.bound {
		a, err := b.Eval(c, rec)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return nil, err
		}
		if a.DataType().ID() == arrow.NULL && p.schema.Field(i).Type.ID() != arrow.NULL {
			n := a.Len()
			a.Release()
			a = array.MakeArrayOfNull(c.Mem, p.schema.Field(i).Type, n)
		}
		cols[i] = a
	}
	out := array.NewRecordBatch(p.schema, cols, rec.NumRows())
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

type filterOp struct{ cond expr.Bound }

func (f *filterOp) apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	mask, err := f.cond.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer mask.Release()
	if mask.DataType().ID() == arrow.NULL {
		return rec.NewSlice(0, 0), nil
	}
	return compute.FilterRecordBatch(c.Context, rec, mask, compute.DefaultFilterOptions())
}

// EventTimeStats are the event-time statistics of one batch, in
// microseconds, over the rows that reached the watermark operator.
type EventTimeStats struct {
	Min, Max, Count int64
	// Sum adds each row's milliseconds minus Base (the first row's), as a
	// float: exact for rows hours apart, and no overflow where an int64
	// sum of epoch milliseconds overflows (about five million rows of
	// today, a thousand of year 294247). See MeanMillis.
	Base int64
	Sum  float64
	// Limit (µs, 0 for none) bounds event times ahead of the batch's
	// processing time: rows above it are counted in Ahead and, when
	// Exclude is set (eventTimeMaxAheadOfProcessing), left out of Min, Max,
	// Sum and Count, so they cannot move the watermark.
	Limit   int64
	Exclude bool
	Ahead   int64
}

// Merge folds o into s.
func (s *EventTimeStats) Merge(o EventTimeStats) {
	s.Ahead += o.Ahead
	if o.Count == 0 {
		return
	}
	if s.Count == 0 {
		s.Min, s.Max, s.Base, s.Sum, s.Count = o.Min, o.Max, o.Base, o.Sum, o.Count
		return
	}
	s.Min, s.Max = min(s.Min, o.Min), max(s.Max, o.Max)
	s.Sum += o.Sum + float64(o.Base-s.Base)*float64(o.Count)
	s.Count += o.Count
}

// MeanMillis is the mean event time in milliseconds (0 without rows).
func (s *EventTimeStats) MeanMillis() int64 {
	if s.Count == 0 {
		return 0
	}
	return s.Base + int64(math.Round(s.Sum/float64(s.Count)))
}

// watermarkOp passes rows through and records their event-time statistics,
// like Spark's EventTimeWatermarkExec. The rows leave with the node's
// schema, whose event-time column carries the watermark delay, so that
// every record after it has the schema the plan says (a sink's Batch.Schema).
type watermarkOp struct {
	index  int
	stats  *EventTimeStats
	schema *arrow.Schema
}

func (w *watermarkOp) apply(_ *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	ts, ok := rec.Column(w.index).(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("watermark column is %s, not a timestamp", rec.Column(w.index).DataType())
	}
	st := EventTimeStats{Min: math.MaxInt64, Max: math.MinInt64}
	limit, exclude := w.stats.Limit, w.stats.Exclude
	vals := ts.TimestampValues()
	for i, v := range vals {
		if ts.IsNull(i) {
			continue
		}
		x := int64(v)
		if limit != 0 && x > limit {
			st.Ahead++
			if exclude {
				continue
			}
		}
		if st.Count == 0 {
			st.Base = x / 1000
		}
		st.Min, st.Max = min(st.Min, x), max(st.Max, x)
		st.Sum += float64(x/1000 - st.Base)
		st.Count++
	}
	w.stats.Merge(st)
	return array.NewRecordBatch(w.schema, rec.Columns(), rec.NumRows()), nil
}

// compileOps turns Project/Filter/Watermark nodes into operators for one
// execution, binding the expressions afresh: bound expressions keep
// per-execution state (from_json's decoder), so two executions of one plan
// never share an operator.
func compileOps(nodes []plan.Node, stats *EventTimeStats) ([]op, error) {
	var ops []op
	for _, n := range nodes {
		switch x := n.(type) {
		case *plan.Project:
			bound, err := x.Bind()
			if err != nil {
				return nil, err
			}
			ops = append(ops, &projectOp{bound: bound, schema: x.Out})
		case *plan.Filter:
			cond, err := x.Bind()
			if err != nil {
				return nil, err
			}
			ops = append(ops, &filterOp{cond: cond})
		case *plan.Watermark:
			ops = append(ops, &watermarkOp{index: x.Index, stats: stats, schema: x.Out})
		case *plan.Join:
			j, err := newStreamStaticOp(x)
			if err != nil {
				return nil, err
			}
			ops = append(ops, j)
		case *plan.Generate:
			g, err := newGenerateOp(x)
			if err != nil {
				return nil, err
			}
			ops = append(ops, g)
		case *plan.SubqueryAlias:
			// Only names change: the rows pass as they are.
		case *plan.Deduplicate:
			ops = append(ops, newDedupOp(x))
		default:
			return nil, fmt.Errorf("cannot execute %s here", n.Describe())
		}
	}
	return ops, nil
}

// runOps applies ops in order; the caller keeps the input record.
func runOps(c *expr.Ctx, ops []op, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	rec.Retain()
	for _, o := range ops {
		out, err := o.apply(c, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = out
	}
	return rec, nil
}
