package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// The sketch aggregates (theta_*, tuple_*): one sketch per group, held in
// a slotAcc and saved with the sketch's own encoding (package sketch), so
// streaming state checkpoints and restores them. Each returns its sketch
// as a BINARY value, which the scalar sketch functions read.

// newSketchAccumulator builds the sketch aggregates' accumulators; ok is
// false for another function.
func newSketchAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	lgK := uint8(a.Opts.Sketch.LgK)
	switch a.Fn {
	case "theta_sketch_agg":
		return thetaAcc(lgK, func(arg arrow.Array) (func(s **sketch.Theta, i int), error) {
			hash, err := keyHasher(arg)
			if err != nil {
				return nil, err
			}
			return func(s **sketch.Theta, i int) {
				if h, ok := hash(i); ok {
					(*s).Update(h, struct{}{}, nil)
				}
			}, nil
		}), true, nil
	case "theta_union_agg":
		return thetaAcc(lgK, mergeReader(a.Fn, sketch.DecodeTheta, func(s *sketch.Theta, in *sketch.Theta) *sketch.Theta {
			return sketch.Union(s.LgK, s, in, sketch.KeepFirst[struct{}])
		})), true, nil
	case "theta_intersection_agg":
		return intersectionAcc(a.Fn, sketch.DecodeTheta, sketch.EncodeTheta, sketch.KeepFirst[struct{}]), true, nil
	}
	if acc, ok, err := newCountMinAccumulator(a); ok || err != nil {
		return acc, ok, err
	}
	if acc, ok, err := newTopKAccumulator(a); ok || err != nil {
		return acc, ok, err
	}
	if acc, ok, err := newKLLAccumulator(a); ok || err != nil {
		return acc, ok, err
	}
	if acc, ok, err := newHLLSketchAccumulator(a); ok || err != nil {
		return acc, ok, err
	}
	return newTupleAccumulator(a)
}

func thetaAcc(lgK uint8, reader func(arrow.Array) (func(s **sketch.Theta, i int), error)) accumulator {
	return kmvAcc(lgK, reader, sketch.EncodeTheta, sketch.DecodeTheta)
}

// kmvAcc is an accumulator of one theta or tuple sketch per group.
func kmvAcc[S any](lgK uint8, reader func(arrow.Array) (func(s **sketch.KMV[S], i int), error),
	encode func(*sketch.KMV[S]) []byte, decode func([]byte) (*sketch.KMV[S], error)) accumulator {
	return &slotAcc[*sketch.KMV[S]]{
		fresh:    func() *sketch.KMV[S] { return sketch.NewKMV[S](lgK) },
		skipNull: true,
		reader:   reader,
		result: func(b array.Builder, s **sketch.KMV[S]) {
			b.(*array.BinaryBuilder).Append(encode(*s))
		},
		encode: func(s **sketch.KMV[S]) []byte { return encode(*s) },
		decode: decode,
	}
}

// mergeReader folds sketches read from a BINARY column into the group's
// with merge.
func mergeReader[S any](fn string, decode func([]byte) (*S, error), merge func(s, in *S) *S) func(arrow.Array) (func(s **S, i int), error) {
	return func(arg arrow.Array) (func(s **S, i int), error) {
		in, err := decodeColumn(fn, arg, decode)
		if err != nil {
			return nil, err
		}
		return func(s **S, i int) { *s = merge(*s, in[i]) }, nil
	}
}

// decodeColumn decodes every non-null sketch of a BINARY column first, so
// a buffer that is not a sketch fails the batch instead of being skipped.
func decodeColumn[S any](fn string, arg arrow.Array, decode func([]byte) (*S, error)) ([]*S, error) {
	if arg.DataType().ID() == arrow.NULL {
		return make([]*S, arg.Len()), nil
	}
	bin, ok := arg.(*array.Binary)
	if !ok {
		return nil, fmt.Errorf("%s needs a BINARY sketch column, got %s", fn, arg.DataType())
	}
	out := make([]*S, bin.Len())
	for i := range out {
		if bin.IsNull(i) {
			continue
		}
		k, err := decode(bin.Value(i))
		if err != nil {
			return nil, fmt.Errorf("[SKETCH_INVALID_INPUT] %s: row %d: %w", fn, i, err)
		}
		out[i] = k
	}
	return out, nil
}

// intersection is the state of an intersection aggregate: nil until the
// first sketch, since the intersection of no sketches is not empty but
// undefined (Spark then returns an empty sketch).
type intersection[S any] struct{ k *sketch.KMV[S] }

func intersectionAcc[S any](fn string, decode func([]byte) (*sketch.KMV[S], error), encode func(*sketch.KMV[S]) []byte, combine func(x, y S) S) accumulator {
	return &slotAcc[intersection[S]]{
		fresh:    func() intersection[S] { return intersection[S]{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *intersection[S], i int), error) {
			in, err := decodeColumn(fn, arg, decode)
			if err != nil {
				return nil, err
			}
			return func(s *intersection[S], i int) {
				if s.k == nil {
					s.k = in[i]
					return
				}
				s.k = sketch.Intersect(s.k, in[i], combine)
			}, nil
		},
		result: func(b array.Builder, s *intersection[S]) {
			k := s.k
			if k == nil {
				k = sketch.NewKMV[S](sketch.DefaultLgK)
			}
			b.(*array.BinaryBuilder).Append(encode(k))
		},
		encode: func(s *intersection[S]) []byte {
			if s.k == nil {
				return nil
			}
			return encode(s.k)
		},
		decode: func(b []byte) (intersection[S], error) {
			if len(b) == 0 {
				return intersection[S]{}, nil
			}
			k, err := decode(b)
			return intersection[S]{k: k}, err
		},
	}
}

// keyHasher hashes row i of a column of integers, floats, strings or
// binary values (package sketch's hashes); ok is false for a null, an
// empty string or an empty binary value, which DataSketches leaves out.
func keyHasher(arg arrow.Array) (func(i int) (uint64, bool), error) {
	switch a := arg.(type) {
	case *array.Int8:
		return func(i int) (uint64, bool) { return sketch.HashInt64(int64(a.Value(i))), a.IsValid(i) }, nil
	case *array.Int16:
		return func(i int) (uint64, bool) { return sketch.HashInt64(int64(a.Value(i))), a.IsValid(i) }, nil
	case *array.Int32:
		return func(i int) (uint64, bool) { return sketch.HashInt64(int64(a.Value(i))), a.IsValid(i) }, nil
	case *array.Int64:
		return func(i int) (uint64, bool) { return sketch.HashInt64(a.Value(i)), a.IsValid(i) }, nil
	case *array.Float32:
		return func(i int) (uint64, bool) { return sketch.HashFloat64(float64(a.Value(i))), a.IsValid(i) }, nil
	case *array.Float64:
		return func(i int) (uint64, bool) { return sketch.HashFloat64(a.Value(i)), a.IsValid(i) }, nil
	case *array.String:
		return func(i int) (uint64, bool) {
			v := a.Value(i)
			return sketch.HashBytes([]byte(v)), a.IsValid(i) && v != ""
		}, nil
	case *array.Binary:
		return func(i int) (uint64, bool) {
			v := a.Value(i)
			return sketch.HashBytes(v), a.IsValid(i) && len(v) > 0
		}, nil
	case *array.Null:
		return func(int) (uint64, bool) { return 0, false }, nil
	}
	return nil, fmt.Errorf("a sketch cannot count values of type %s", arg.DataType())
}
