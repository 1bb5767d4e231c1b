package functions

import (
	"cmp"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// kllFuncs is what the KLL functions of one item type need: the sketch
// codec, the SQL type of an item and how a Go value of it reads and
// writes (appendValue takes float64 for FLOAT).
type kllFuncs[T cmp.Ordered] struct {
	suffix  string
	decode  func([]byte) (*sketch.KLL[T], error)
	encode  func(*sketch.KLL[T]) []byte
	item    arrow.DataType
	fromAny func(any) T
	toAny   func(T) any
}

func kllDefs() []*Def {
	longs := kllFuncs[int64]{"bigint", sketch.DecodeKLLLongs, sketch.EncodeKLLLongs, tLong,
		func(v any) int64 { return v.(int64) }, func(v int64) any { return v }}
	floats := kllFuncs[float32]{"float", sketch.DecodeKLLFloats, sketch.EncodeKLLFloats, arrow.PrimitiveTypes.Float32,
		func(v any) float32 { return float32(v.(float64)) }, func(v float32) any { return float64(v) }}
	doubles := kllFuncs[float64]{"double", sketch.DecodeKLLDoubles, sketch.EncodeKLLDoubles, tDouble,
		func(v any) float64 { return v.(float64) }, func(v float64) any { return v }}
	return append(append(longs.defs(), floats.defs()...), doubles.defs()...)
}

func (f kllFuncs[T]) read(fn string, v any) (*sketch.KLL[T], error) {
	k, err := f.decode(v.([]byte))
	if err != nil {
		return nil, fmt.Errorf("[KLL_SKETCH_INVALID_INPUT] Invalid call to %s; only valid KLL sketch buffers are supported as inputs: %w. SQLSTATE: 22000", fn, err)
	}
	return k, nil
}

// scalarOrArray resolves (sketch, x) where x is one value of type in or
// an array of them: the result is out, or an array of out.
func scalarOrArray(in, out arrow.DataType) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(got []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if got[1].ID() == arrow.LIST {
			return []arrow.DataType{tBinary, arrow.ListOf(in)}, arrow.ListOf(out), nil
		}
		if err := castable(got[1], in); err != nil {
			return nil, nil, fmt.Errorf("argument 2: %w", err)
		}
		return []arrow.DataType{tBinary, in}, out, nil
	}
}

// eachValue applies f to x, or to every element of x when it is a list.
func eachValue(x any, f func(any) (any, error)) (any, error) {
	list, ok := x.([]any)
	if !ok {
		return f(x)
	}
	out := make([]any, len(list))
	for i, v := range list {
		if v == nil {
			return nil, fmt.Errorf("the array must not contain NULL")
		}
		r, err := f(v)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func (f kllFuncs[T]) defs() []*Def {
	s := f.suffix
	toString, getN, merge := "kll_sketch_to_string_"+s, "kll_sketch_get_n_"+s, "kll_sketch_merge_"+s
	quantile, rank := "kll_sketch_get_quantile_"+s, "kll_sketch_get_rank_"+s
	return []*Def{
		row(toString, "sketch", 1, 1, &rowImpl{resolve: sig(tString, tBinary), eval: func(v []any) (any, error) {
			k, err := f.read(toString, v[0])
			if err != nil {
				return nil, err
			}
			return k.String(), nil
		}}),
		row(getN, "sketch", 1, 1, &rowImpl{resolve: sig(tLong, tBinary), eval: func(v []any) (any, error) {
			k, err := f.read(getN, v[0])
			if err != nil {
				return nil, err
			}
			return int64(k.N), nil
		}}),
		row(merge, "sketch", 2, 2, &rowImpl{resolve: sig(tBinary, tBinary, tBinary), eval: func(v []any) (any, error) {
			a, err := f.read(merge, v[0])
			if err != nil {
				return nil, err
			}
			b, err := f.read(merge, v[1])
			if err != nil {
				return nil, err
			}
			a.Merge(b)
			return f.encode(a), nil
		}}),
		row(quantile, "sketch", 2, 2, &rowImpl{resolve: scalarOrArray(tDouble, f.item), eval: func(v []any) (any, error) {
			k, err := f.read(quantile, v[0])
			if err != nil {
				return nil, err
			}
			return eachValue(v[1], func(r any) (any, error) {
				q, err := k.Quantile(r.(float64))
				if err != nil {
					return nil, fmt.Errorf("[KLL_SKETCH_INVALID_QUANTILE_RANGE] %s: %w", quantile, err)
				}
				return f.toAny(q), nil
			})
		}}),
		row(rank, "sketch", 2, 2, &rowImpl{resolve: scalarOrArray(f.item, tDouble), eval: func(v []any) (any, error) {
			k, err := f.read(rank, v[0])
			if err != nil {
				return nil, err
			}
			return eachValue(v[1], func(q any) (any, error) {
				r, err := k.Rank(f.fromAny(q))
				if err != nil {
					return nil, fmt.Errorf("[KLL_SKETCH_INVALID_INPUT] %s: %w", rank, err)
				}
				return r, nil
			})
		}}),
	}
}
