package expr

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// maxSortWithComparator bounds the length of an array array_sort orders
// with a comparator: the comparator is evaluated once over every ordered
// pair of an array's elements, so a longer array is refused rather than
// sorted slowly.
const maxSortWithComparator = 2048

// ArraySortBy is Spark's array_sort(array, (left, right) -> cmp): the
// elements in the order the comparator gives (negative: left first,
// positive: right first, 0: equal, kept in input order as Java's sort
// keeps them). A NULL comparison is Spark's COMPARATOR_RETURNS_NULL.
type ArraySortBy struct {
	X  Expr
	Fn *LambdaFunction
}

func (e *ArraySortBy) String() string {
	return "array_sort(" + e.X.String() + ", " + e.Fn.String() + ")"
}

// Bind binds the comparator over two elements.
func (e *ArraySortBy) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	lt, ok := x.Type().(*arrow.ListType)
	if !ok {
		return nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: its first argument must be an array, got %s.", e, x.Type())
	}
	v := lambdaVar{typ: lt.Elem(), nullable: true}
	fn, err := bindLambda("array_sort", e.Fn, s, []lambdaVar{v, v}, 2)
	if err != nil {
		return nil, err
	}
	if !isInteger(fn.Type()) {
		return nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_RETURN_TYPE", "Cannot resolve %s: the comparator %s must return an integer, not %s.", e, e.Fn, fn.Type())
	}
	return &sortByBound{x: x, fn: fn, typ: lt}, nil
}

type sortByBound struct {
	x   Bound
	fn  *boundLambda
	typ *arrow.ListType
}

func (b *sortByBound) Type() arrow.DataType { return b.typ }
func (b *sortByBound) Nullable() bool       { return b.x.Nullable() }
func (b *sortByBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	xa, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	list := xa.(*array.List)
	el := flatten(list)
	// Every ordered pair (l, r) of distinct elements of a row.
	var left, right, parent []int32
	for i := range el.valid {
		s, e := el.offsets[i], el.offsets[i+1]
		if e-s > maxSortWithComparator {
			return nil, fmt.Errorf("array_sort with a comparator: an array of %d elements is longer than the %d Atlas sorts this way; sort it with array_sort(array) or sort_array", e-s, maxSortWithComparator)
		}
		for l := s; l < e; l++ {
			for r := s; r < e; r++ {
				if l != r {
					left, right, parent = append(left, el.src[l]), append(right, el.src[r]), append(parent, int32(i))
				}
			}
		}
	}
	lv, err := takeInts(c, list.ListValues(), left)
	if err != nil {
		return nil, err
	}
	defer lv.Release()
	rv, err := takeInts(c, list.ListValues(), right)
	if err != nil {
		return nil, err
	}
	defer rv.Release()
	res, err := b.fn.eval(c, rec, parent, []arrow.Array{lv, rv})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	cmp, err := comparisons(res, lv, rv)
	if err != nil {
		return nil, err
	}
	order := make([]int32, 0, len(el.src))
	at := 0 // the first comparison of the current row
	for i := range el.valid {
		s, e := int(el.offsets[i]), int(el.offsets[i+1])
		m := e - s
		pos := make([]int, m)
		for k := range pos {
			pos[k] = k
		}
		// The comparison of elements a and b (a != b) of the row.
		compare := func(a, b int) int64 {
			k := a*(m-1) + b
			if b > a {
				k--
			}
			return cmp[at+k]
		}
		sort.SliceStable(pos, func(x, y int) bool { return compare(pos[x], pos[y]) < 0 })
		for _, k := range pos {
			order = append(order, el.src[s+k])
		}
		at += m * (m - 1)
	}
	sorted, err := takeInts(c, list.ListValues(), order)
	if err != nil {
		return nil, err
	}
	defer sorted.Release()
	return newList(c, b.typ, el.offsets, el.valid, sorted), nil
}

// comparisons reads the comparator's results, refusing a NULL one.
func comparisons(res, lv, rv arrow.Array) ([]int64, error) {
	out := make([]int64, res.Len())
	for j := range out {
		if res.IsNull(j) {
			return nil, &sparkerr.Error{Class: "COMPARATOR_RETURNS_NULL", SQLState: "22004", Params: map[string]string{"firstValue": lv.ValueStr(j), "secondValue": rv.ValueStr(j)},
				Message: fmt.Sprintf(`The comparator has returned a NULL for a comparison between %s and %s. It should return a positive integer for "greater than", 0 for "equal" and a negative integer for "less than". To revert to deprecated behavior where NULL is treated as 0 (equal), you must set "spark.sql.legacy.allowNullComparisonResultInArraySort" to "true".`, lv.ValueStr(j), rv.ValueStr(j))}
		}
		switch a := res.(type) {
		case *array.Int8:
			out[j] = int64(a.Value(j))
		case *array.Int16:
			out[j] = int64(a.Value(j))
		case *array.Int32:
			out[j] = int64(a.Value(j))
		case *array.Int64:
			out[j] = a.Value(j)
		default:
			return nil, fmt.Errorf("array_sort: the comparator returned %s", res.DataType())
		}
	}
	return out, nil
}
