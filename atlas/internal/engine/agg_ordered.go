package engine

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Aggregate is the aggregate function fn over args with its parameters
// opts, named name (Spark's column name): one column is the argument,
// two (max_by/min_by's value and ordering) are passed as a struct (x, y),
// as SQL plans them. It serves the aggregates the Connect planner
// translates by name: mode, median, percentile, max_by, min_by, try_sum,
// try_avg, histogram_numeric.
func Aggregate(fn string, args []Column, opts expr.AggOptions, name string) Column {
	for _, a := range args {
		if a.err != nil {
			return errCol(a.err)
		}
	}
	var arg Column
	switch len(args) {
	case 1:
		arg = args[0]
	case 2:
		arg = newCol(&expr.MakeStruct{Names: []string{"x", "y"}, Args: []expr.Expr{args[0].e, args[1].e}})
	}
	col := aggWith(fn, arg, opts)
	col.agg.As = name
	return col
}
