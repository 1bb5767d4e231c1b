package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// AggregateNames are the aggregate functions Atlas runs, as Spark names
// them.
var AggregateNames = []string{
	"count", "sum", "min", "max", "avg", "approx_count_distinct", "count(DISTINCT ...)",
	"collect_list", "collect_set", "first", "last", "percentile_approx",
	"stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
}

// AggOptions are the parameters of the aggregate functions that take some.
type AggOptions struct {
	// Distinct is count(DISTINCT x).
	Distinct bool
	// RSD is approx_count_distinct's maximum relative standard deviation
	// (Spark's default 0.05 when zero).
	RSD float64
	// Percentages are percentile_approx's percentages in [0, 1];
	// PercentArray says they were given as an array (the result is then an
	// array too).
	Percentages  []float64
	PercentArray bool
	// Accuracy is percentile_approx's accuracy (Spark's default 10000 when
	// zero): the rank error is at most 1/Accuracy of the row count.
	Accuracy int64
	// IgnoreNulls makes first and last skip nulls.
	IgnoreNulls bool
	// Separator is what string_agg and listagg put between values.
	Separator string
	// Sketch are the sketch aggregates' parameters (agg_sketch.go).
	Sketch SketchOptions
	// Ordered is an ordered-set aggregate's WITHIN GROUP (ORDER BY x)
	// (mode(x, true) too), OrderDesc its DESC: mode breaks ties by the
	// smallest value (the largest with DESC); percentile and
	// percentile_cont/disc count positions from the largest value with
	// DESC.
	Ordered, OrderDesc bool
	// OrderNullsFirst puts null keys first in listagg's WITHIN GROUP
	// order (Spark's default for ascending keys).
	OrderNullsFirst bool
	// K is max_by/min_by's third argument: the result is then the array
	// of the K values of the largest (smallest) orderings.
	K int64
	// Bins is histogram_numeric's number of bins.
	Bins int
}

// DefaultRSD and DefaultAccuracy are Spark's defaults.
const (
	DefaultRSD      = 0.05
	DefaultAccuracy = 10000
)

// HLLPrecision is the number of register-index bits HyperLogLog++ uses
// for a relative standard deviation, as Spark's HyperLogLogPlusPlusHelper
// computes it: p = ceil(2 * log2(1.106 / rsd)).
func HLLPrecision(rsd float64) int {
	return int(math.Ceil(2.0 * math.Log(1.106/rsd) / math.Log(2.0)))
}

func (a *AggFunc) paramString() (string, bool) {
	if a.Arg == nil {
		return "", false
	}
	switch {
	case a.Opts.Distinct:
		return a.Fn + "(DISTINCT " + a.Arg.String() + ")", true
	case strings.EqualFold(a.Fn, "percentile_approx"):
		ps := make([]string, len(a.Opts.Percentages))
		for i, p := range a.Opts.Percentages {
			ps[i] = strconv.FormatFloat(p, 'f', -1, 64)
		}
		pct := strings.Join(ps, ", ")
		if a.Opts.PercentArray {
			pct = "array(" + pct + ")"
		}
		acc := a.Opts.Accuracy
		if acc == 0 {
			acc = DefaultAccuracy
		}
		return fmt.Sprintf("percentile_approx(%s, %s, %d)", a.Arg, pct, acc), true
	}
	return "", false
}

// bindMore resolves the aggregate functions beyond count, sum, min, max
// and avg. It reports false for a name it does not know.
func bindMore(a *AggFunc, out *BoundAgg, t arrow.DataType) (bool, error) {
	switch out.Fn {
	case "approx_count_distinct":
		if out.Opts.RSD == 0 {
			out.Opts.RSD = DefaultRSD
		}
		if p := HLLPrecision(out.Opts.RSD); p < 4 {
			return true, fmt.Errorf("approx_count_distinct(%s): HLL++ requires at least 4 bits for addressing; use a lower error, at most 39%% (rsd %v)", a.Arg, out.Opts.RSD)
		} else if p > 18 {
			return true, fmt.Errorf("approx_count_distinct(%s): rsd %v needs precision %d; Atlas supports rsd >= 0.0022 (precision 18); use CountDistinct for an exact count in batch", a.Arg, out.Opts.RSD, p)
		}
		if !keyEncodable(t) {
			return true, fmt.Errorf("approx_count_distinct(%s) is not supported for %s", a.Arg, types.Name(t))
		}
		out.Type = arrow.PrimitiveTypes.Int64
	case "collect_list", "collect_set":
		if !keyEncodable(t) {
			return true, fmt.Errorf("%s(%s) is not supported for %s", out.Fn, a.Arg, types.Name(t))
		}
		out.Type = arrow.ListOf(t)
	case "first", "last", "first_value", "last_value", "any_value":
		if !keyEncodable(t) {
			return true, fmt.Errorf("%s(%s) is not supported for %s", out.Fn, a.Arg, types.Name(t))
		}
		switch out.Fn {
		case "first_value", "any_value":
			out.Fn = "first"
		case "last_value":
			out.Fn = "last"
		}
		out.Type = t
	case "percentile_approx", "approx_percentile":
		out.Fn = "percentile_approx"
		if !isNumeric(t) && t.ID() != arrow.TIMESTAMP && t.ID() != arrow.DATE32 {
			return true, fmt.Errorf("percentile_approx(%s) needs a numeric, date or timestamp column, got %s", a.Arg, types.Name(t))
		}
		if len(out.Opts.Percentages) == 0 {
			return true, fmt.Errorf("percentile_approx(%s) needs a percentage, e.g. 0.5", a.Arg)
		}
		for _, p := range out.Opts.Percentages {
			if !(p >= 0 && p <= 1) {
				return true, fmt.Errorf("percentile_approx(%s): all percentage values must be between 0.0 and 1.0 (current = %v)", a.Arg, p)
			}
		}
		if out.Opts.Accuracy == 0 {
			out.Opts.Accuracy = DefaultAccuracy
		}
		if out.Opts.Accuracy < 0 || out.Opts.Accuracy > math.MaxInt32 {
			return true, fmt.Errorf("percentile_approx(%s): the accuracy must be a positive integer literal up to %d (current = %d)", a.Arg, math.MaxInt32, out.Opts.Accuracy)
		}
		out.Type = t
		if isNumeric(t) && !isFloat(t) {
			out.Type = t
		} else if isFloat(t) {
			out.Type = arrow.PrimitiveTypes.Float64
		}
		if out.Opts.PercentArray {
			out.Type = arrow.ListOf(out.Type)
		}
	case "bool_and", "every", "bool_or", "some", "any":
		if t.ID() != arrow.BOOL && t.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs a boolean, got %s", out.Fn, a.Arg, types.Name(t))
		}
		if out.Fn == "every" {
			out.Fn = "bool_and"
		} else if out.Fn != "bool_and" {
			out.Fn = "bool_or"
		}
		out.Type = arrow.FixedWidthTypes.Boolean
	case "count_if":
		if t.ID() != arrow.BOOL && t.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] count_if(%s) needs a boolean, got %s", a.Arg, types.Name(t))
		}
		out.Type = arrow.PrimitiveTypes.Int64
	case "bit_and", "bit_or", "bit_xor":
		if !isSignedInteger(t) {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs an integer, got %s", out.Fn, a.Arg, types.Name(t))
		}
		out.Type = t
	case "skewness", "kurtosis":
		if !isNumeric(t) {
			return true, fmt.Errorf("%s(%s) needs a numeric column, got %s", out.Fn, a.Arg, types.Name(t))
		}
		out.Type = arrow.PrimitiveTypes.Float64
	case "string_agg", "listagg":
		if out.Opts.Ordered {
			st, ok := t.(*arrow.StructType)
			if !ok || st.NumFields() != 2 || !Orderable(st.Field(1).Type) && st.Field(1).Type.ID() != arrow.NULL {
				return true, fmt.Errorf("[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] %s WITHIN GROUP cannot order by %s", out.Fn, types.Name(t))
			}
			t = st.Field(0).Type
		}
		if t.ID() != arrow.STRING && t.ID() != arrow.NULL {
			return true, fmt.Errorf("%s(%s) needs a string column, got %s; cast it to STRING", out.Fn, a.Arg, types.Name(t))
		}
		out.Fn = "listagg"
		out.Type = arrow.BinaryTypes.String
	case "corr", "covar_pop", "covar_samp", "regr_count", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "regr_slope", "regr_intercept", "regr_r2":
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 2 {
			return true, fmt.Errorf("%s takes two columns (y, x), got %s", out.Fn, types.Name(t))
		}
		for _, f := range st.Fields() {
			if !isNumeric(f.Type) && f.Type.ID() != arrow.NULL {
				return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s needs numeric columns, got %s", out.Fn, types.Name(f.Type))
			}
		}
		out.Type = arrow.PrimitiveTypes.Float64
		if out.Fn == "regr_count" {
			out.Type = arrow.PrimitiveTypes.Int64
		}
	case "stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		if !isNumeric(t) {
			return true, fmt.Errorf("%s(%s) needs a numeric column, got %s", out.Fn, a.Arg, types.Name(t))
		}
		switch out.Fn {
		case "std", "stddev":
			out.Fn = "stddev_samp"
		case "variance":
			out.Fn = "var_samp"
		}
		out.Type = arrow.PrimitiveTypes.Float64
	default:
		return bindOrdered(a, out, t)
	}
	return true, nil
}

// keyEncodable reports whether values of t can be held in state (grouping
// keys, collected values, distinct sets).
func keyEncodable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DATE32, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL, arrow.DECIMAL128, arrow.DURATION:
		return true
	}
	return false
}

// IsDistinct reports whether a is count(DISTINCT ...), which streaming
// queries refuse as Spark does.
func (a *AggFunc) IsDistinct() bool { return a.Opts.Distinct }

// ParamName is Spark's column name for the functions whose name shows
// their parameters (percentile_approx, count(DISTINCT ...)).
func (a *AggFunc) ParamName() (string, bool) { return a.paramString() }
