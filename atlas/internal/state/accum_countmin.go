package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// newCountMinAccumulator builds count_min_sketch (Spark's own count-min
// sketch, package sketch), over integral columns.
func newCountMinAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	if a.Fn != "count_min_sketch" {
		return nil, false, nil
	}
	o := a.Opts.Sketch
	if _, err := sketch.NewCountMin(o.Eps, o.Confidence, int32(o.Seed)); err != nil {
		return nil, true, err
	}
	return &slotAcc[*sketch.CountMin]{
		fresh: func() *sketch.CountMin {
			c, _ := sketch.NewCountMin(o.Eps, o.Confidence, int32(o.Seed))
			return c
		},
		skipNull: true,
		reader: func(arg arrow.Array) (func(s **sketch.CountMin, i int), error) {
			items, err := longItems(arg)
			if err != nil {
				return nil, fmt.Errorf("count_min_sketch: %w", err)
			}
			return func(s **sketch.CountMin, i int) {
				if v, ok := items(i); ok {
					(*s).AddLong(v)
				}
			}, nil
		},
		result: func(b array.Builder, s **sketch.CountMin) { b.(*array.BinaryBuilder).Append((*s).Encode()) },
		encode: func(s **sketch.CountMin) []byte { return (*s).Encode() },
		decode: sketch.DecodeCountMin,
	}, true, nil
}
