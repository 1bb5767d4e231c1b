package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// SketchOptions are the parameters of the sketch aggregates (theta_*,
// tuple_*; package sketch holds the sketches).
type SketchOptions struct {
	// LgK is lgNomEntries (theta, tuple) or lgConfigK (hll).
	LgK int64
	// Mode is a tuple sketch's summary mode: sum, min, max or alwaysone.
	Mode string
	// AllowDifferentLgK lets hll_union_agg merge sketches of different
	// lgConfigK.
	AllowDifferentLgK bool
	// K is a KLL sketch's k (0: kll_merge_agg takes its inputs' k).
	K int64
	// TopK and MaxItems are approx_top_k's k and maxItemsTracked (0:
	// approx_top_k_combine takes its inputs').
	TopK, MaxItems int64
	// Eps, Confidence and Seed are count_min_sketch's parameters.
	Eps, Confidence float64
	Seed            int64
}

// sketchKeyTypes reports whether a sketch can count values of type t:
// integers, floats, strings and binary values, as Spark's theta and tuple
// sketch aggregates take.
func sketchKeyType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.BINARY, arrow.NULL:
		return true
	}
	return false
}

// bindSketch resolves the sketch aggregates; it reports false for another
// name.
func bindSketch(a *AggFunc, out *BoundAgg, t arrow.DataType) (bool, error) {
	switch out.Fn {
	case "theta_sketch_agg":
		if !sketchKeyType(t) {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs an integer, floating-point, string or binary column, got %s (arrays are not supported by Atlas yet)", out.Fn, a.Arg, types.Name(t))
		}
	case "hll_sketch_agg":
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.STRING, arrow.BINARY, arrow.NULL:
		default:
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs an INT, BIGINT, STRING or BINARY column, got %s", out.Fn, a.Arg, types.Name(t))
		}
	case "approx_top_k", "approx_top_k_accumulate":
		if !sketch.TopKItemType(t) {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT] %s(%s): %s columns are not supported", out.Fn, a.Arg, types.Name(t))
		}
		out.Type = sketch.TopKResultType(t)
		if out.Fn == "approx_top_k_accumulate" {
			out.Type = sketch.TopKStateType(t)
		}
		return true, nil
	case "count_min_sketch":
		if !isSignedInteger(t) && t.ID() != arrow.NULL {
			return true, fmt.Errorf("count_min_sketch(%s) of %s is not supported by Atlas: it counts integral columns (Spark hashes strings and binary values with its own Murmur3 variant, not reproduced here)", a.Arg, types.Name(t))
		}
	case "approx_top_k_combine":
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 4 || st.Field(0).Type.ID() != arrow.BINARY || !sketch.TopKItemType(st.Field(2).Type) {
			return true, fmt.Errorf("[DATATYPE_MISMATCH] %s(%s) needs the state approx_top_k_accumulate returns, got %s", out.Fn, a.Arg, types.Name(t))
		}
		out.Type = sketch.TopKStateType(st.Field(2).Type)
		return true, nil
	case "kll_sketch_agg_bigint", "kll_sketch_agg_float", "kll_sketch_agg_double":
		ok := isSignedInteger(t) || t.ID() == arrow.NULL
		switch out.Fn {
		case "kll_sketch_agg_float":
			ok = ok || t.ID() == arrow.FLOAT32
		case "kll_sketch_agg_double":
			ok = ok || isFloat(t)
		}
		if !ok {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) does not take %s", out.Fn, a.Arg, types.Name(t))
		}
	case "kll_merge_agg_bigint", "kll_merge_agg_float", "kll_merge_agg_double",
		"hll_union_agg", "theta_union_agg", "theta_intersection_agg", "tuple_union_agg_double", "tuple_union_agg_integer",
		"tuple_intersection_agg_double", "tuple_intersection_agg_integer":
		if t.ID() != arrow.BINARY && t.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s(%s) needs a BINARY sketch column, got %s", out.Fn, a.Arg, types.Name(t))
		}
	case "tuple_sketch_agg_double", "tuple_sketch_agg_integer":
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 2 {
			return true, fmt.Errorf("%s takes a key and a summary column, got %s", out.Fn, types.Name(t))
		}
		if k := st.Field(0).Type; !sketchKeyType(k) {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s: the key needs an integer, floating-point, string or binary column, got %s", out.Fn, types.Name(k))
		}
		v := st.Field(1).Type
		if out.Fn == "tuple_sketch_agg_double" && !isNumeric(v) && v.ID() != arrow.NULL {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s: the summary needs a DOUBLE, got %s", out.Fn, types.Name(v))
		}
		if out.Fn == "tuple_sketch_agg_integer" && !isInt32Compatible(v) {
			return true, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s: the summary needs an INT, got %s", out.Fn, types.Name(v))
		}
	default:
		return false, nil
	}
	out.Type = arrow.BinaryTypes.Binary
	return true, nil
}

func isInt32Compatible(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.NULL:
		return true
	}
	return false
}
