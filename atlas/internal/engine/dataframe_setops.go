package engine

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// Union returns the rows of df followed by those of other, matched by
// column position, keeping duplicates, as DataFrame.union (SQL's UNION
// ALL). Names come from df; types widen as in Spark (int and bigint make
// bigint). Both must be batch DataFrames.
func (df *DataFrame) Union(other *DataFrame) *DataFrame {
	if df.failed() {
		return df
	}
	if other.failed() {
		return df.with(nil, fmt.Errorf("union: %w", other.Err()))
	}
	in := []plan.Node{df.node, other.node}
	for i, n := range in {
		if plan.NeedsSubquery(n) {
			in[i] = plan.NewSubquery(n)
		}
	}
	u, err := plan.NewUnion(in)
	if err != nil {
		return df.with(nil, fmt.Errorf("union: %w", err))
	}
	return df.with(u, nil)
}

// UnionAll is Union, as DataFrame.unionAll.
func (df *DataFrame) UnionAll(other *DataFrame) *DataFrame { return df.Union(other) }

// Distinct keeps one of each set of identical rows, as DataFrame.distinct.
// On a stream it is DropDuplicates() over every column, as Spark's
// Dataset.distinct is, so it runs in append mode without a watermark.
func (df *DataFrame) Distinct() *DataFrame {
	if df.failed() {
		return df
	}
	if df.IsStreaming() {
		return df.DropDuplicates()
	}
	n := df.node
	if plan.NeedsSubquery(n) {
		n = plan.NewSubquery(n)
	}
	var keys []expr.Expr
	for _, f := range n.Schema().Fields() {
		keys = append(keys, &expr.ColumnRef{Parts: []string{f.Name}})
	}
	agg, err := plan.NewAggregate(n, keys, []*expr.AggFunc{{Fn: "count", As: "__distinct"}})
	if err != nil {
		return df.with(nil, fmt.Errorf("distinct: %w", err))
	}
	p, err := plan.NewProject(agg, keys)
	if err != nil {
		return df.with(nil, fmt.Errorf("distinct: %w", err))
	}
	return df.with(p, nil)
}
