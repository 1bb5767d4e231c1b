package state

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// refNum is the reference for sum/min/max of one group, computed with
// plain Go over the same values: nulls are skipped, a group of only nulls
// is null, and (Spark's rule) NaN is greater than every other double.
func refNum(op int, vals []float64, nulls []bool) (float64, bool) {
	var out float64
	has := false
	for i, v := range vals {
		if nulls[i] {
			continue
		}
		if !has {
			out, has = v, true
			continue
		}
		switch op {
		case opSum:
			out += v
		case opMin:
			if math.IsNaN(out) || (!math.IsNaN(v) && v < out) {
				out = v
			}
		case opMax:
			if math.IsNaN(v) || (!math.IsNaN(out) && v > out) {
				out = v
			}
		}
	}
	return out, has
}

// TestNumericAccumulatorsMatchReference feeds random values with nulls
// (and NaN for doubles) in several updates, saving and loading the state in
// between, and compares each group's result with refNum.
func TestNumericAccumulatorsMatchReference(t *testing.T) {
	const groups, rowsPerUpdate, updates = 7, 200, 4
	mem := memory.NewGoAllocator()
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64} {
		for _, op := range []int{opSum, opMin, opMax} {
			for _, withNulls := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(op), uint64(typ.ID())))
				acc, err := newAccumulator(boundAgg(op, typ))
				if err != nil {
					t.Fatal(err)
				}
				acc.grow(groups + 1) // group 'groups' never gets a value: null
				perGroup := make([][]float64, groups+1)
				perNull := make([][]bool, groups+1)
				for u := 0; u < updates; u++ {
					arg, vals, nulls := randomColumn(mem, typ, rng, rowsPerUpdate, withNulls)
					rows := make([]int32, rowsPerUpdate)
					gids := make([]int32, rowsPerUpdate)
					for i := range rows {
						rows[i], gids[i] = int32(i), int32(rng.IntN(groups))
						perGroup[gids[i]] = append(perGroup[gids[i]], vals[i])
						perNull[gids[i]] = append(perNull[gids[i]], nulls[i])
					}
					if err := acc.update(arg, rows, gids); err != nil {
						t.Fatal(err)
					}
					arg.Release()
					st := acc.save()
					acc, _ = newAccumulator(boundAgg(op, typ))
					acc.load(st)
				}
				b := array.NewBuilder(mem, resultType(op, typ))
				for g := int32(0); g <= groups; g++ {
					acc.appendResult(b, g)
				}
				res := b.NewArray()
				for g := 0; g <= groups; g++ {
					want, has := refNum(op, perGroup[g], perNull[g])
					got, gotHas := valueAt(res, g)
					same := got == want || (math.IsNaN(got) && math.IsNaN(want))
					if gotHas != has || (has && !same) {
						t.Errorf("%s op %d nulls %v group %d: got %v (valid %v), want %v (valid %v)", typ, op, withNulls, g, got, gotHas, want, has)
					}
				}
				res.Release()
				b.Release()
			}
		}
	}
}

func boundAgg(op int, typ arrow.DataType) *expr.BoundAgg {
	fn := map[int]string{opSum: "sum", opMin: "min", opMax: "max"}[op]
	return &expr.BoundAgg{Fn: fn, Type: resultType(op, typ)}
}

// resultType is Spark's: sum of integers is bigint, min/max keep the type
// (integers widened to bigint here, as the accumulator stores int64).
func resultType(op int, typ arrow.DataType) arrow.DataType {
	if typ.ID() == arrow.FLOAT64 {
		return arrow.PrimitiveTypes.Float64
	}
	return arrow.PrimitiveTypes.Int64
}

func randomColumn(mem memory.Allocator, typ arrow.DataType, rng *rand.Rand, n int, withNulls bool) (arrow.Array, []float64, []bool) {
	vals := make([]float64, n)
	nulls := make([]bool, n)
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for i := 0; i < n; i++ {
		nulls[i] = withNulls && rng.IntN(4) == 0
		x := float64(rng.IntN(2001) - 1000)
		switch bb := b.(type) {
		case *array.Int64Builder:
			vals[i] = x
			if nulls[i] {
				bb.AppendNull()
			} else {
				bb.Append(int64(x))
			}
		case *array.Int32Builder:
			vals[i] = x
			if nulls[i] {
				bb.AppendNull()
			} else {
				bb.Append(int32(x))
			}
		case *array.Float64Builder:
			x = x / 8
			if rng.IntN(50) == 0 {
				x = math.NaN()
			}
			vals[i] = x
			if nulls[i] {
				bb.AppendNull()
			} else {
				bb.Append(x)
			}
		}
	}
	return b.NewArray(), vals, nulls
}

func valueAt(a arrow.Array, i int) (float64, bool) {
	if a.IsNull(i) {
		return 0, false
	}
	switch c := a.(type) {
	case *array.Int64:
		return float64(c.Value(i)), true
	case *array.Float64:
		return c.Value(i), true
	}
	return 0, false
}
