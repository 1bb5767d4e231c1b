package functions

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// tupleKind is what the tuple sketch functions of one summary type need.
type tupleKind[S any] struct {
	suffix    string // "double" or "integer"
	decode    func([]byte) (*sketch.KMV[S], error)
	encode    func(*sketch.KMV[S]) []byte
	combine   func(m sketch.Mode) func(a, b S) S
	initial   func(m sketch.Mode) S
	aggregate func(k *sketch.KMV[S], m sketch.Mode) any
	sumType   arrow.DataType
}

func tupleDefs() []*Def {
	d := tupleKind[float64]{
		suffix: "double", decode: sketch.DecodeTupleDouble, encode: sketch.EncodeTupleDouble,
		combine:   func(m sketch.Mode) func(a, b float64) float64 { return m.CombineDouble },
		initial:   sketch.Mode.InitialDouble,
		aggregate: func(k *sketch.TupleDouble, m sketch.Mode) any { return sketch.AggregateDouble(k, m) },
		sumType:   tDouble,
	}
	i := tupleKind[int32]{
		suffix: "integer", decode: sketch.DecodeTupleInteger, encode: sketch.EncodeTupleInteger,
		combine:   func(m sketch.Mode) func(a, b int32) int32 { return m.CombineInteger },
		initial:   sketch.Mode.InitialInteger,
		aggregate: func(k *sketch.TupleInteger, m sketch.Mode) any { return sketch.AggregateInteger(k, m) },
		sumType:   tLong,
	}
	return append(d.defs(), i.defs()...)
}

func (t tupleKind[S]) read(fn string, v any) (*sketch.KMV[S], error) {
	return decodeSketch(fn, "Tuple", v, t.decode)
}

// modeArg reads an optional mode argument at position i.
func modeArg(fn string, v []any, i int) (sketch.Mode, error) {
	if len(v) <= i {
		return sketch.ModeSum, nil
	}
	return sketch.ParseMode(fn, v[i].(string))
}

// pair reads the two sketch arguments: tuple and tuple, or tuple and
// theta (the theta sketch's keys then get the mode's initial summary).
func (t tupleKind[S]) pair(fn string, v []any, theta bool, m sketch.Mode) (a, b *sketch.KMV[S], err error) {
	if a, err = t.read(fn, v[0]); err != nil {
		return nil, nil, err
	}
	if !theta {
		b, err = t.read(fn, v[1])
		return a, b, err
	}
	th, err := decodeSketch(fn, "Theta", v[1], sketch.DecodeTheta)
	if err != nil {
		return nil, nil, err
	}
	return a, sketch.WithSummary(th, t.initial(m)), nil
}

func (t tupleKind[S]) defs() []*Def {
	s := t.suffix
	lgK := strconv.Itoa(sketch.DefaultLgK)
	out := []*Def{
		row("tuple_sketch_estimate_"+s, "sketch", 1, 1, &rowImpl{resolve: sig(tDouble, tBinary), eval: func(v []any) (any, error) {
			k, err := t.read("tuple_sketch_estimate_"+s, v[0])
			if err != nil {
				return nil, err
			}
			return k.Estimate(), nil
		}}),
		row("tuple_sketch_theta_"+s, "sketch", 1, 1, &rowImpl{resolve: sig(tDouble, tBinary), eval: func(v []any) (any, error) {
			k, err := t.read("tuple_sketch_theta_"+s, v[0])
			if err != nil {
				return nil, err
			}
			return k.ThetaFraction(), nil
		}}),
		named(row("tuple_sketch_summary_"+s, "sketch", 1, 2, &rowImpl{resolve: sig(t.sumType, tBinary, tString), eval: func(v []any) (any, error) {
			fn := "tuple_sketch_summary_" + s
			m, err := modeArg(fn, v, 1)
			if err != nil {
				return nil, err
			}
			k, err := t.read(fn, v[0])
			if err != nil {
				return nil, err
			}
			return t.aggregate(k, m), nil
		}}), 2, "sum"),
	}
	for _, theta := range []bool{false, true} {
		infix := ""
		if theta {
			infix = "theta_"
		}
		union, inter, diff := "tuple_union_"+infix+s, "tuple_intersection_"+infix+s, "tuple_difference_"+infix+s
		out = append(out,
			named(row(union, "sketch", 2, 4, &rowImpl{resolve: sig(tBinary, tBinary, tBinary, tInt, tString), eval: func(v []any) (any, error) {
				m, err := modeArg(union, v, 3)
				if err != nil {
					return nil, err
				}
				n, err := lgKArg(union, v, 2)
				if err != nil {
					return nil, err
				}
				a, b, err := t.pair(union, v, theta, m)
				if err != nil {
					return nil, err
				}
				return t.encode(sketch.Union(n, a, b, t.combine(m))), nil
			}}), 4, lgK, "sum"),
			named(row(inter, "sketch", 2, 3, &rowImpl{resolve: sig(tBinary, tBinary, tBinary, tString), eval: func(v []any) (any, error) {
				m, err := modeArg(inter, v, 2)
				if err != nil {
					return nil, err
				}
				a, b, err := t.pair(inter, v, theta, m)
				if err != nil {
					return nil, err
				}
				return t.encode(sketch.Intersect(a, b, t.combine(m))), nil
			}}), 3, "sum"),
			row(diff, "sketch", 2, 2, &rowImpl{resolve: sig(tBinary, tBinary, tBinary), eval: func(v []any) (any, error) {
				a, b, err := t.pair(diff, v, theta, sketch.ModeSum)
				if err != nil {
					return nil, err
				}
				return t.encode(sketch.Difference(a, b)), nil
			}}),
		)
	}
	return out
}
