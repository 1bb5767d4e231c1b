package merge

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// LatestRows returns the positions (ascending) of the rows of rec that
// LatestPerKey keeps: for each distinct combination of the key columns
// keyIdx, the row with the greatest value of column ord, ties going to the
// later row. Null key values form a group of their own; a null order
// value loses to any other. The engine's DataFrame.LatestPerKey is
// Spark's row_number() over (partition by keys order by ord desc) = 1
// through it.
func LatestRows(rec arrow.RecordBatch, keyIdx []int, ord int) ([]int32, error) {
	less, err := orderLess(rec.Column(ord))
	if err != nil {
		return nil, err
	}
	keyCols := make([]arrow.Array, len(keyIdx))
	for i, k := range keyIdx {
		keyCols[i] = rec.Column(k)
	}
	best := make(map[string]int, rec.NumRows())
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		buf = buf[:0]
		for _, col := range keyCols {
			if col.IsNull(i) {
				buf = append(buf, 0)
				continue
			}
			buf = append(buf, 1)
			buf, _ = appendKey(buf, []arrow.Array{col}, i)
		}
		if j, ok := best[string(buf)]; !ok || !less(i, j) {
			best[string(buf)] = i
		}
	}
	keep := make([]int32, 0, len(best))
	for _, i := range best {
		keep = append(keep, int32(i))
	}
	slices.Sort(keep)
	return keep, nil
}

// orderLess returns a "row i orders before row j" function for a column;
// nulls order first.
func orderLess(col arrow.Array) (func(i, j int) bool, error) {
	nulls := func(i, j int) (bool, bool) {
		ni, nj := col.IsNull(i), col.IsNull(j)
		if ni || nj {
			return ni && !nj, true
		}
		return false, false
	}
	wrap := func(cmpFn func(i, j int) int) func(i, j int) bool {
		return func(i, j int) bool {
			if r, done := nulls(i, j); done {
				return r
			}
			return cmpFn(i, j) < 0
		}
	}
	switch a := col.(type) {
	case *array.Int64:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Int32:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Int16:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Int8:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Float64:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Float32:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Timestamp:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Date32:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.String:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	}
	return nil, fmt.Errorf("cannot order by %s; use a number, a timestamp or a string", col.DataType())
}
