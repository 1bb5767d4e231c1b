package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// newTupleAccumulator builds the tuple sketch aggregates (double and
// integer summaries); ok is false for another function.
func newTupleAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	lgK := uint8(a.Opts.Sketch.LgK)
	mode, err := sketch.ParseMode(a.Fn, a.Opts.Sketch.Mode)
	if err != nil && isTupleAgg(a.Fn) {
		return nil, true, err
	}
	switch a.Fn {
	case "tuple_sketch_agg_double":
		return kmvAcc(lgK, tupleUpdater(mode.CombineDouble, mode.InitialDouble(), doubleSummaries), sketch.EncodeTupleDouble, sketch.DecodeTupleDouble), true, nil
	case "tuple_sketch_agg_integer":
		return kmvAcc(lgK, tupleUpdater(mode.CombineInteger, mode.InitialInteger(), integerSummaries), sketch.EncodeTupleInteger, sketch.DecodeTupleInteger), true, nil
	case "tuple_union_agg_double":
		return kmvAcc(lgK, mergeReader(a.Fn, sketch.DecodeTupleDouble, func(s, in *sketch.TupleDouble) *sketch.TupleDouble {
			return sketch.Union(s.LgK, s, in, mode.CombineDouble)
		}), sketch.EncodeTupleDouble, sketch.DecodeTupleDouble), true, nil
	case "tuple_union_agg_integer":
		return kmvAcc(lgK, mergeReader(a.Fn, sketch.DecodeTupleInteger, func(s, in *sketch.TupleInteger) *sketch.TupleInteger {
			return sketch.Union(s.LgK, s, in, mode.CombineInteger)
		}), sketch.EncodeTupleInteger, sketch.DecodeTupleInteger), true, nil
	case "tuple_intersection_agg_double":
		return intersectionAcc(a.Fn, sketch.DecodeTupleDouble, sketch.EncodeTupleDouble, mode.CombineDouble), true, nil
	case "tuple_intersection_agg_integer":
		return intersectionAcc(a.Fn, sketch.DecodeTupleInteger, sketch.EncodeTupleInteger, mode.CombineInteger), true, nil
	}
	return nil, false, nil
}

func isTupleAgg(fn string) bool {
	switch fn {
	case "tuple_sketch_agg_double", "tuple_sketch_agg_integer", "tuple_union_agg_double", "tuple_union_agg_integer",
		"tuple_intersection_agg_double", "tuple_intersection_agg_integer":
		return true
	}
	return false
}

// tupleUpdater folds (key, summary) rows of a struct column into a tuple
// sketch; a row whose key or summary is null is left out. A value enters
// as combine(initial, v), as DataSketches updates a new summary (so
// alwaysone makes every summary 1); for a key already present that equals
// combine(old, v) in every mode.
func tupleUpdater[S any](combine func(a, b S) S, initial S, summaries func(arrow.Array) (func(i int) S, error)) func(arrow.Array) (func(s **sketch.KMV[S], i int), error) {
	return func(arg arrow.Array) (func(s **sketch.KMV[S], i int), error) {
		st, ok := arg.(*array.Struct)
		if !ok || st.NumField() != 2 {
			return nil, fmt.Errorf("a tuple sketch needs a (key, summary) struct column, got %s", arg.DataType())
		}
		hash, err := keyHasher(st.Field(0))
		if err != nil {
			return nil, err
		}
		sum, err := summaries(st.Field(1))
		if err != nil {
			return nil, err
		}
		vals := st.Field(1)
		return func(s **sketch.KMV[S], i int) {
			h, ok := hash(i)
			if !ok || vals.IsNull(i) {
				return
			}
			(*s).Update(h, combine(initial, sum(i)), combine)
		}, nil
	}
}

func doubleSummaries(arg arrow.Array) (func(i int) float64, error) {
	switch a := arg.(type) {
	case *array.Float64:
		return a.Value, nil
	case *array.Float32:
		return func(i int) float64 { return float64(a.Value(i)) }, nil
	case *array.Int64:
		return func(i int) float64 { return float64(a.Value(i)) }, nil
	case *array.Int32:
		return func(i int) float64 { return float64(a.Value(i)) }, nil
	case *array.Int16:
		return func(i int) float64 { return float64(a.Value(i)) }, nil
	case *array.Int8:
		return func(i int) float64 { return float64(a.Value(i)) }, nil
	case *array.Null:
		return func(int) float64 { return 0 }, nil
	}
	return nil, fmt.Errorf("a tuple sketch's double summary cannot be %s", arg.DataType())
}

func integerSummaries(arg arrow.Array) (func(i int) int32, error) {
	switch a := arg.(type) {
	case *array.Int32:
		return a.Value, nil
	case *array.Int16:
		return func(i int) int32 { return int32(a.Value(i)) }, nil
	case *array.Int8:
		return func(i int) int32 { return int32(a.Value(i)) }, nil
	case *array.Null:
		return func(int) int32 { return 0 }, nil
	}
	return nil, fmt.Errorf("a tuple sketch's integer summary cannot be %s", arg.DataType())
}
