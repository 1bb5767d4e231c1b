package state

import (
	"cmp"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// kllKind is what a KLL aggregate of one item type needs.
type kllKind[T cmp.Ordered] struct {
	encode func(*sketch.KLL[T]) []byte
	decode func([]byte) (*sketch.KLL[T], error)
	// items reads row i of a numeric column as an item; ok is false for
	// NaN, which DataSketches leaves out.
	items func(arrow.Array) (func(i int) (T, bool), error)
}

var (
	kllLongs   = kllKind[int64]{sketch.EncodeKLLLongs, sketch.DecodeKLLLongs, longItems}
	kllFloats  = kllKind[float32]{sketch.EncodeKLLFloats, sketch.DecodeKLLFloats, floatItems}
	kllDoubles = kllKind[float64]{sketch.EncodeKLLDoubles, sketch.DecodeKLLDoubles, doubleItems}
)

// newKLLAccumulator builds kll_sketch_agg_* and kll_merge_agg_*.
func newKLLAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	k := a.Opts.Sketch.K
	switch a.Fn {
	case "kll_sketch_agg_bigint":
		return kllLongs.agg(k), true, nil
	case "kll_sketch_agg_float":
		return kllFloats.agg(k), true, nil
	case "kll_sketch_agg_double":
		return kllDoubles.agg(k), true, nil
	case "kll_merge_agg_bigint":
		return kllLongs.mergeAgg(a.Fn, k), true, nil
	case "kll_merge_agg_float":
		return kllFloats.mergeAgg(a.Fn, k), true, nil
	case "kll_merge_agg_double":
		return kllDoubles.mergeAgg(a.Fn, k), true, nil
	}
	return nil, false, nil
}

func (c kllKind[T]) acc(fresh func() *sketch.KLL[T], reader func(arrow.Array) (func(s **sketch.KLL[T], i int), error)) accumulator {
	return &slotAcc[*sketch.KLL[T]]{
		fresh:    fresh,
		skipNull: true,
		reader:   reader,
		result: func(b array.Builder, s **sketch.KLL[T]) {
			k := *s
			if k == nil {
				k = sketch.NewKLL[T](sketch.DefaultKLLK)
			}
			b.(*array.BinaryBuilder).Append(c.encode(k))
		},
		encode: func(s **sketch.KLL[T]) []byte {
			if *s == nil {
				return nil
			}
			return c.encode(*s)
		},
		decode: func(b []byte) (*sketch.KLL[T], error) {
			if len(b) == 0 {
				return nil, nil
			}
			return c.decode(b)
		},
	}
}

// agg is kll_sketch_agg_*: a sketch of parameter k per group.
func (c kllKind[T]) agg(k int64) accumulator {
	return c.acc(func() *sketch.KLL[T] { return sketch.NewKLL[T](uint16(k)) },
		func(arg arrow.Array) (func(s **sketch.KLL[T], i int), error) {
			item, err := c.items(arg)
			if err != nil {
				return nil, err
			}
			return func(s **sketch.KLL[T], i int) {
				if v, ok := item(i); ok {
					(*s).Update(v)
				}
			}, nil
		})
}

// mergeAgg is kll_merge_agg_*: the merge of a column of sketches, with
// the k given, or else the first sketch's.
func (c kllKind[T]) mergeAgg(fn string, k int64) accumulator {
	return c.acc(func() *sketch.KLL[T] {
		if k == 0 {
			return nil
		}
		return sketch.NewKLL[T](uint16(k))
	}, func(arg arrow.Array) (func(s **sketch.KLL[T], i int), error) {
		in, err := decodeColumn(fn, arg, c.decode)
		if err != nil {
			return nil, err
		}
		return func(s **sketch.KLL[T], i int) {
			if *s == nil {
				*s = sketch.NewKLL[T](in[i].K)
			}
			(*s).Merge(in[i])
		}, nil
	})
}

func longItems(arg arrow.Array) (func(i int) (int64, bool), error) {
	switch a := arg.(type) {
	case *array.Int64:
		return func(i int) (int64, bool) { return a.Value(i), true }, nil
	case *array.Int32:
		return func(i int) (int64, bool) { return int64(a.Value(i)), true }, nil
	case *array.Int16:
		return func(i int) (int64, bool) { return int64(a.Value(i)), true }, nil
	case *array.Int8:
		return func(i int) (int64, bool) { return int64(a.Value(i)), true }, nil
	case *array.Null:
		return func(int) (int64, bool) { return 0, false }, nil
	}
	return nil, fmt.Errorf("a bigint KLL sketch cannot take %s", arg.DataType())
}

func doubleItems(arg arrow.Array) (func(i int) (float64, bool), error) {
	switch a := arg.(type) {
	case *array.Float64:
		return func(i int) (float64, bool) { v := a.Value(i); return v, !math.IsNaN(v) }, nil
	case *array.Float32:
		return func(i int) (float64, bool) { v := float64(a.Value(i)); return v, !math.IsNaN(v) }, nil
	}
	longs, err := longItems(arg)
	if err != nil {
		return nil, fmt.Errorf("a double KLL sketch cannot take %s", arg.DataType())
	}
	return func(i int) (float64, bool) { v, ok := longs(i); return float64(v), ok }, nil
}

func floatItems(arg arrow.Array) (func(i int) (float32, bool), error) {
	if a, ok := arg.(*array.Float32); ok {
		return func(i int) (float32, bool) { v := a.Value(i); return v, !math.IsNaN(float64(v)) }, nil
	}
	if _, ok := arg.(*array.Float64); ok {
		return nil, fmt.Errorf("a float KLL sketch cannot take a DOUBLE column; use kll_sketch_agg_double")
	}
	longs, err := longItems(arg)
	if err != nil {
		return nil, fmt.Errorf("a float KLL sketch cannot take %s", arg.DataType())
	}
	return func(i int) (float32, bool) { v, ok := longs(i); return float32(v), ok }, nil
}
