package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// AggFunc is an aggregate function call in a GroupBy: count, sum, min, max
// or avg over an argument (nil Arg means count(*), which counts rows).
type AggFunc struct {
	Fn  string
	Arg Expr
	// As is the output column name; empty means Spark's default
	// ("count" for GroupBy().Count(), else "fn(arg)").
	As string
	// Opts are the parameters of the functions that take some
	// (approx_count_distinct, percentile_approx, first/last, count
	// DISTINCT); see agg_params.go.
	Opts AggOptions
}

// Name returns the output column name.
func (a *AggFunc) Name() string {
	if a.As != "" {
		return a.As
	}
	return a.String()
}

func (a *AggFunc) String() string {
	if s, ok := a.paramString(); ok {
		return s
	}
	if a.Arg == nil {
		return a.Fn + "(1)"
	}
	return a.Fn + "(" + a.Arg.String() + ")"
}

// Bind resolves the argument and checks it suits the function.
func (a *AggFunc) Bind(s *arrow.Schema) (*BoundAgg, error) {
	fn := strings.ToLower(a.Fn)
	out := &BoundAgg{Fn: fn, Name: a.Name(), Opts: a.Opts}
	if a.Arg == nil {
		if fn != "count" {
			return nil, fmt.Errorf("%s needs an argument", fn)
		}
		out.Type = arrow.PrimitiveTypes.Int64
		return out, nil
	}
	arg, err := a.Arg.Bind(s)
	if err != nil {
		return nil, err
	}
	out.Arg = arg
	t := arg.Type()
	switch fn {
	case "count":
		out.Type = arrow.PrimitiveTypes.Int64
	case "sum", "try_sum":
		switch d, isDec := t.(*arrow.Decimal128Type); {
		case t.ID() == arrow.NULL:
			// Spark casts an untyped NULL column to its default numeric
			// type: sum(NULL) is a DOUBLE.
			out.Type = arrow.PrimitiveTypes.Float64
		case isDec:
			// Spark's Sum of DECIMAL(p,s): DECIMAL(p+10,s), at most 38 digits.
			out.Type = types.DecimalBounded(d.Precision+10, d.Scale)
		case isFloat(t):
			out.Type = arrow.PrimitiveTypes.Float64
		case isNumeric(t):
			out.Type = arrow.PrimitiveTypes.Int64
		default:
			return nil, fmt.Errorf("%s(%s) needs a numeric column, got %s", fn, a.Arg, types.Name(t))
		}
	case "avg", "mean", "try_avg":
		if fn == "mean" {
			out.Fn = "avg"
		}
		if d, isDec := t.(*arrow.Decimal128Type); isDec {
			// Spark's Average of DECIMAL(p,s): DECIMAL(p+4,s+4), bounded.
			out.Type = types.DecimalBounded(d.Precision+4, d.Scale+4)
			break
		}
		if !isNumeric(t) && t.ID() != arrow.NULL {
			return nil, fmt.Errorf("%s(%s) needs a numeric column, got %s", out.Fn, a.Arg, types.Name(t))
		}
		if fn == "try_avg" {
			// An average of integers or doubles sums doubles, which do
			// not overflow: try_avg is avg.
			out.Fn = "avg"
		}
		out.Type = arrow.PrimitiveTypes.Float64
	case "min", "max":
		// Spark's Min and Max keep the input's type: max of an INT column
		// is an INT, of a DATE column a DATE.
		switch {
		case isSignedInteger(t) || isFloat(t) || isDecimal(t) || t.ID() == arrow.TIMESTAMP || t.ID() == arrow.STRING || t.ID() == arrow.DATE32:
			out.Type = t
		default:
			return nil, fmt.Errorf("%s(%s) is not supported for %s", fn, a.Arg, types.Name(t))
		}
	default:
		if ok, err := bindMore(a, out, t); ok || err != nil {
			return out, err
		}
		if ok, err := bindSketch(a, out, t); ok || err != nil {
			return out, err
		}
		return nil, fmt.Errorf("unknown aggregate function %q: use %s", a.Fn, strings.Join(AggregateNames, ", "))
	}
	if a.Opts.Distinct {
		if fn != "count" {
			return nil, fmt.Errorf("%s(DISTINCT ...) is not supported: only count(DISTINCT ...)", fn)
		}
		out.Fn = "count_distinct"
		if !keyEncodable(t) {
			return nil, fmt.Errorf("count(DISTINCT %s) is not supported for %s", a.Arg, types.Name(t))
		}
	}
	return out, nil
}

// BoundAgg is a resolved aggregate function.
type BoundAgg struct {
	Fn   string
	Arg  Bound // nil for count(*)
	Type arrow.DataType
	Name string
	// Opts are the function's parameters, checked by Bind.
	Opts AggOptions
}

// Nullable reports whether the aggregate's result can be null, as the
// nullable of Spark's aggregate functions: count (also DISTINCT) and
// approx_count_distinct (HyperLogLogPlusPlus) are 0 for no rows, never null.
func (b *BoundAgg) Nullable() bool {
	switch b.Fn {
	case "count", "count_distinct", "approx_count_distinct", "count_if", "regr_count",
		"bitmap_construct_agg", "bitmap_or_agg", "bitmap_and_agg", "bitmap_xor_agg":
		return false
	}
	return true
}
