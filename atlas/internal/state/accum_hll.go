package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// checkedAcc is a slotAcc whose fold can fail: the fold records the first
// error and update returns it (a union of HLL sketches of different
// lgConfigK).
type checkedAcc[S any] struct {
	slotAcc[S]
	err error
}

func (c *checkedAcc[S]) update(arg arrow.Array, rows, gids []int32) error {
	c.err = nil
	if err := c.slotAcc.update(arg, rows, gids); err != nil {
		return err
	}
	return c.err
}

// newHLLSketchAccumulator builds hll_sketch_agg and hll_union_agg.
func newHLLSketchAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	switch a.Fn {
	case "hll_sketch_agg":
		lgK := a.Opts.Sketch.LgK
		if _, err := sketch.NewHLL(a.Fn, lgK); err != nil {
			return nil, true, err
		}
		return &slotAcc[*sketch.HLL]{
			fresh: func() *sketch.HLL {
				h, _ := sketch.NewHLL(a.Fn, lgK)
				return h
			},
			skipNull: true,
			reader: func(arg arrow.Array) (func(s **sketch.HLL, i int), error) {
				hash, err := keyHasher(arg)
				if err != nil {
					return nil, err
				}
				return func(s **sketch.HLL, i int) {
					if h, ok := hash(i); ok {
						(*s).S.InsertHash(h)
					}
				}, nil
			},
			result: func(b array.Builder, s **sketch.HLL) { b.(*array.BinaryBuilder).Append(sketch.EncodeHLL(*s)) },
			encode: func(s **sketch.HLL) []byte { return sketch.EncodeHLL(*s) },
			decode: sketch.DecodeHLL,
		}, true, nil
	case "hll_union_agg":
		return newHLLUnionAcc(a.Fn, a.Opts.Sketch.AllowDifferentLgK), true, nil
	}
	return nil, false, nil
}

// newHLLUnionAcc is hll_union_agg: nil until the first sketch, whose
// lgConfigK the union keeps; no rows give an empty sketch of lgConfigK 12.
func newHLLUnionAcc(fn string, allow bool) accumulator {
	c := &checkedAcc[*sketch.HLL]{}
	c.slotAcc = slotAcc[*sketch.HLL]{
		fresh:    func() *sketch.HLL { return nil },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s **sketch.HLL, i int), error) {
			in, err := decodeColumn(fn, arg, sketch.DecodeHLL)
			if err != nil {
				return nil, err
			}
			return func(s **sketch.HLL, i int) {
				if *s == nil {
					*s = in[i]
					return
				}
				u, err := sketch.UnionHLL(fn, *s, in[i], allow)
				if err != nil {
					if c.err == nil {
						c.err = err
					}
					return
				}
				*s = u
			}, nil
		},
		result: func(b array.Builder, s **sketch.HLL) {
			h := *s
			if h == nil {
				h, _ = sketch.NewHLL(fn, sketch.DefaultHLLLgK)
			}
			b.(*array.BinaryBuilder).Append(sketch.EncodeHLL(h))
		},
		encode: func(s **sketch.HLL) []byte {
			if *s == nil {
				return nil
			}
			return sketch.EncodeHLL(*s)
		},
		decode: func(b []byte) (*sketch.HLL, error) {
			if len(b) == 0 {
				return nil, nil
			}
			h, err := sketch.DecodeHLL(b)
			if err != nil {
				return nil, fmt.Errorf("%s state: %w", fn, err)
			}
			return h, nil
		},
	}
	return c
}
