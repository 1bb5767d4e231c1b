package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// bindOrdered resolves the aggregates that order their values: mode,
// the exact percentiles (percentile, median, percentile_cont,
// percentile_disc) and max_by/min_by. It reports false for another name.
func bindOrdered(a *AggFunc, out *BoundAgg, t arrow.DataType) (bool, error) {
	switch out.Fn {
	case "mode":
		if !keyEncodable(t) && t.ID() != arrow.NULL {
			return true, fmt.Errorf("mode(%s) is not supported for %s", a.Arg, types.Name(t))
		}
		out.Type = t
	case "percentile", "median", "percentile_cont", "percentile_disc":
		return true, bindPercentile(a, out, t)
	case "max_by", "min_by":
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 2 {
			return true, fmt.Errorf("%s takes two columns (x, y), got %s", out.Fn, types.Name(t))
		}
		x, y := st.Field(0).Type, st.Field(1).Type
		if !keyEncodable(x) && x.ID() != arrow.NULL {
			return true, fmt.Errorf("%s: values of %s are not supported", out.Fn, types.Name(x))
		}
		if !Orderable(y) && y.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] %s does not support ordering on type %s", out.Fn, types.Name(y))
		}
		out.Type = x
		if out.Opts.K > 0 {
			out.Type = arrow.ListOf(x)
		}
	case "histogram_numeric":
		return true, bindHistogram(a, out, t)
	case "bitmap_construct_agg":
		if !isSignedInteger(t) && t.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] bitmap_construct_agg(%s) needs a bit position (BIGINT), got %s", a.Arg, types.Name(t))
		}
		out.Type = arrow.BinaryTypes.Binary
	case "bitmap_or_agg", "bitmap_and_agg", "bitmap_xor_agg":
		if t.ID() != arrow.BINARY && t.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs a bitmap (BINARY), got %s", out.Fn, a.Arg, types.Name(t))
		}
		out.Type = arrow.BinaryTypes.Binary
	default:
		return false, nil
	}
	return true, nil
}

// bindHistogram is Spark's HistogramNumeric: an array of (x, y) bins, x
// of the input's type (spark.sql.legacy.histogramNumericPropagateInputType,
// on by default), y the bin's height as a DOUBLE.
func bindHistogram(a *AggFunc, out *BoundAgg, t arrow.DataType) error {
	switch {
	case isNumeric(t), t.ID() == arrow.DATE32, t.ID() == arrow.TIMESTAMP, t.ID() == arrow.DURATION:
	default:
		return fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] histogram_numeric(%s) needs a numeric, date, timestamp or day-time interval column, got %s (cast a DECIMAL to DOUBLE)", a.Arg, types.Name(t))
	}
	if out.Opts.Bins < 2 {
		return fmt.Errorf("[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] histogram_numeric(%s): the number of bins must be at least 2, got %d", a.Arg, out.Opts.Bins)
	}
	out.Type = arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "x", Type: t, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Float64, Nullable: true}))
	return nil
}

// Orderable reports whether the aggregates that compare values (mode's
// tie rule, max_by/min_by's ordering) can order values of t.
func Orderable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST:
		return false
	}
	return keyEncodable(t)
}

// bindPercentile is Spark's Percentile (percentile_cont and median are
// it, percentile_disc without interpolation): a DOUBLE for a numeric
// column, the interval type for a day-time interval, an array of them
// for an array of percentages.
func bindPercentile(a *AggFunc, out *BoundAgg, t arrow.DataType) error {
	switch {
	case isNumeric(t) || isDecimal(t) || t.ID() == arrow.NULL:
		out.Type = arrow.PrimitiveTypes.Float64
	case t.ID() == arrow.DURATION:
		out.Type = t
	default:
		return fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs a numeric or interval column, got %s", out.Fn, a.Arg, types.Name(t))
	}
	if len(out.Opts.Percentages) == 0 {
		return fmt.Errorf("%s(%s) needs a percentage, e.g. 0.5", out.Fn, a.Arg)
	}
	for _, p := range out.Opts.Percentages {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] %s(%s): the percentage must be between 0.0 and 1.0, got %v", out.Fn, a.Arg, p)
		}
	}
	if out.Opts.PercentArray {
		out.Type = arrow.ListOf(out.Type)
	}
	return nil
}
