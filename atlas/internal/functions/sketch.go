package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// sketchDefs are the scalar functions over the sketches that the sketch
// aggregates build (package sketch; the aggregates are planned in
// internal/sql's agg_sketch.go): estimates and set operations of theta
// and tuple sketches.
func sketchDefs() []*Def {
	defs := []*Def{
		row("theta_sketch_estimate", "sketch", 1, 1, &rowImpl{resolve: sig(tLong, tBinary), eval: func(v []any) (any, error) {
			k, err := decodeSketch("theta_sketch_estimate", "Theta", v[0], sketch.DecodeTheta)
			if err != nil {
				return nil, err
			}
			return int64(math.Round(k.Estimate())), nil
		}}),
		named(row("theta_union", "sketch", 2, 3, &rowImpl{resolve: sig(tBinary, tBinary, tBinary, tInt), eval: func(v []any) (any, error) {
			return thetaSetOp("theta_union", v, func(a, b *sketch.Theta, lgK uint8) *sketch.Theta {
				return sketch.Union(lgK, a, b, sketch.KeepFirst[struct{}])
			})
		}}), 3, strconv.Itoa(sketch.DefaultLgK)),
		row("theta_intersection", "sketch", 2, 2, &rowImpl{resolve: sig(tBinary, tBinary, tBinary), eval: func(v []any) (any, error) {
			return thetaSetOp("theta_intersection", v, func(a, b *sketch.Theta, _ uint8) *sketch.Theta {
				return sketch.Intersect(a, b, sketch.KeepFirst[struct{}])
			})
		}}),
		row("theta_difference", "sketch", 2, 2, &rowImpl{resolve: sig(tBinary, tBinary, tBinary), eval: func(v []any) (any, error) {
			return thetaSetOp("theta_difference", v, func(a, b *sketch.Theta, _ uint8) *sketch.Theta {
				return sketch.Difference(a, b)
			})
		}}),
	}
	defs = append(defs,
		row("hll_sketch_estimate", "sketch", 1, 1, &rowImpl{resolve: sig(tLong, tBinary), eval: func(v []any) (any, error) {
			h, err := decodeSketch("hll_sketch_estimate", "HLL", v[0], sketch.DecodeHLL)
			if err != nil {
				return nil, err
			}
			return h.Estimate(), nil
		}}),
		named(row("hll_union", "sketch", 2, 3, &rowImpl{resolve: sig(tBinary, tBinary, tBinary, tBool), eval: func(v []any) (any, error) {
			a, err := decodeSketch("hll_union", "HLL", v[0], sketch.DecodeHLL)
			if err != nil {
				return nil, err
			}
			b, err := decodeSketch("hll_union", "HLL", v[1], sketch.DecodeHLL)
			if err != nil {
				return nil, err
			}
			allow := len(v) > 2 && v[2].(bool)
			u, err := sketch.UnionHLL("hll_union", a, b, allow)
			if err != nil {
				return nil, err
			}
			return sketch.EncodeHLL(u), nil
		}}), 3, "false"),
	)
	return append(append(append(defs, tupleDefs()...), kllDefs()...), topKDefs()...)
}

// named sets d's result column name: Spark's shows the defaults of the
// optional trailing parameters, theta_union(a, b, 12).
func named(d *Def, total int, defaults ...string) *Def {
	d.ColumnName = withDefaults(total, defaults...)
	return d
}

// decodeSketch reads a sketch argument, with Spark's error for a buffer
// that is not a sketch of the kind the function reads.
func decodeSketch[S any](fn, kind string, v any, decode func([]byte) (*S, error)) (*S, error) {
	k, err := decode(v.([]byte))
	if err != nil {
		return nil, fmt.Errorf("[%s_INVALID_INPUT_SKETCH_BUFFER] Invalid call to %s; only valid %s sketch buffers are supported as inputs. SQLSTATE: 22546: %w", strings.ToUpper(kind), fn, kind, err)
	}
	return k, nil
}

// lgKArg reads an optional lgNomEntries argument at position i.
func lgKArg(fn string, v []any, i int) (uint8, error) {
	if len(v) <= i {
		return sketch.DefaultLgK, nil
	}
	n := v[i].(int64)
	if err := sketch.CheckLgK(fn, n); err != nil {
		return 0, err
	}
	return uint8(n), nil
}

func thetaSetOp(fn string, v []any, op func(a, b *sketch.Theta, lgK uint8) *sketch.Theta) (any, error) {
	a, err := decodeSketch(fn, "Theta", v[0], sketch.DecodeTheta)
	if err != nil {
		return nil, err
	}
	b, err := decodeSketch(fn, "Theta", v[1], sketch.DecodeTheta)
	if err != nil {
		return nil, err
	}
	lgK, err := lgKArg(fn, v, 2)
	if err != nil {
		return nil, err
	}
	return sketch.EncodeTheta(op(a, b, lgK)), nil
}
