package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// The exact percentiles (percentile, median, percentile_cont,
// percentile_disc) keep, as Spark's PercentileBase does, how often each
// distinct value came: map[value bits]count, values as doubles (Spark
// converts them with toDoubleValue before it interpolates).

// newExactPercentileAcc is Spark's Percentile (interpolating) or, for
// percentile_disc, PercentileDisc.
func newExactPercentileAcc(a *expr.BoundAgg) accumulator {
	interpolate := a.Fn != "percentile_disc"
	return &slotAcc[map[uint64]int64]{
		fresh:    func() map[uint64]int64 { return nil },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *map[uint64]int64, i int), error) {
			val, err := exactPercentileValues(arg)
			if err != nil {
				return nil, err
			}
			return func(s *map[uint64]int64, i int) {
				if *s == nil {
					*s = map[uint64]int64{}
				}
				(*s)[expr.NormalFloatBits(val(i))]++
			}, nil
		},
		result: func(b array.Builder, s *map[uint64]int64) {
			if len(*s) == 0 {
				b.AppendNull()
				return
			}
			ps := exactPercentiles(*s, a.Opts.Percentages, a.Opts.OrderDesc, interpolate)
			if !a.Opts.PercentArray {
				appendPercentile(b, ps[0])
				return
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			for _, p := range ps {
				appendPercentile(lb.ValueBuilder(), p)
			}
		},
		encode: func(s *map[uint64]int64) []byte {
			out := make([]byte, 0, 16*len(*s))
			for v, n := range *s {
				out = binary.LittleEndian.AppendUint64(out, v)
				out = binary.LittleEndian.AppendUint64(out, uint64(n))
			}
			return out
		},
		decode: func(b []byte) (map[uint64]int64, error) {
			if len(b)%16 != 0 {
				return nil, errors.New("percentile: corrupt state")
			}
			out := make(map[uint64]int64, len(b)/16)
			for i := 0; i < len(b); i += 16 {
				out[binary.LittleEndian.Uint64(b[i:])] = int64(binary.LittleEndian.Uint64(b[i+8:]))
			}
			return out, nil
		},
	}
}

// exactPercentileValues reads a numeric, decimal or day-time interval column
// as doubles (an interval as its count of microseconds).
func exactPercentileValues(arg arrow.Array) (func(int) float64, error) {
	switch c := arg.(type) {
	case *array.Null:
		return func(int) float64 { return 0 }, nil
	case *array.Duration:
		return func(i int) float64 { return float64(c.Value(i)) }, nil
	case *array.Decimal128:
		scale := c.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) float64 { return c.Value(i).ToFloat64(scale) }, nil
	}
	val, err := float64Values(arg)
	if err != nil {
		return nil, fmt.Errorf("percentile: %w", err)
	}
	return val, nil
}

// exactPercentiles is PercentileBase.getPercentiles: the values sorted
// (descending with reverse), their accumulated counts, and for each
// percentage p the value at position (count-1)*p, interpolated between
// its neighbours as (higher-pos)*lower + (pos-lower)*higher (Spark's
// expression, so the last digits agree) or, without interpolation, the
// lower one.
func exactPercentiles(counts map[uint64]int64, percentages []float64, reverse, interpolate bool) []float64 {
	keys := make([]float64, 0, len(counts))
	for bits := range counts {
		keys = append(keys, math.Float64frombits(bits))
	}
	slices.SortFunc(keys, expr.CompareFloats)
	if reverse {
		slices.Reverse(keys)
	}
	acc := make([]int64, len(keys))
	var total int64
	for i, k := range keys {
		total += counts[expr.NormalFloatBits(k)]
		acc[i] = total
	}
	maxPos := total - 1
	at := func(pos int64) float64 {
		return keys[sort.Search(len(acc), func(i int) bool { return acc[i] >= pos+1 })]
	}
	out := make([]float64, len(percentages))
	for i, p := range percentages {
		pos := float64(maxPos) * p
		lower, higher := int64(math.Floor(pos)), int64(math.Ceil(pos))
		lo, hi := at(lower), at(higher)
		switch {
		case lower == higher, lo == hi, !interpolate:
			out[i] = lo
		default:
			out[i] = (float64(higher)-pos)*lo + (pos-float64(lower))*hi
		}
	}
	return out
}

// appendPercentile appends a double, or the interval it stands for
// (truncated to whole microseconds, Spark's toLong).
func appendPercentile(b array.Builder, v float64) {
	switch x := b.(type) {
	case *array.DurationBuilder:
		x.Append(arrow.Duration(int64(v)))
	default:
		b.(*array.Float64Builder).Append(v)
	}
}
