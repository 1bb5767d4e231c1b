package functions

import (
	"fmt"

	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// arrayDefs are Spark's array functions, evaluated a row at a time over
// the array's values ([]any, nil for a null element).
func arrayDefs() []*Def {
	return []*Def{
		elemFn("array_append", withElem(sameArray), func(a []any, v []any) (any, error) {
			return append(append([]any{}, a...), v[1]), nil
		}),
		elemFn("array_prepend", withElem(sameArray), func(a []any, v []any) (any, error) {
			return append([]any{v[1]}, a...), nil
		}),
		arrayFn("array_compact", 1, 1, arrayOnly(sameArray), func(a []any, _ []any) (any, error) {
			out := []any{}
			for _, x := range a {
				if x != nil {
					out = append(out, x)
				}
			}
			return out, nil
		}),
		nullableArrayFn("array_contains", 2, 2, withElem(fixedOut(tBool)), func(a []any, v []any) (any, error) {
			if v[1] == nil {
				return nil, nil
			}
			sawNull := false
			for _, x := range a {
				if x == nil {
					sawNull = true
				} else if equalValues(x, v[1]) {
					return true, nil
				}
			}
			if sawNull {
				return nil, nil
			}
			return false, nil
		}),
		nullableArrayFn("array_position", 2, 2, withElem(fixedOut(tLong)), func(a []any, v []any) (any, error) {
			if v[1] == nil {
				return nil, nil
			}
			for i, x := range a {
				if x != nil && equalValues(x, v[1]) {
					return int64(i + 1), nil
				}
			}
			return int64(0), nil
		}),
		nullableArrayFn("array_remove", 2, 2, withElem(sameArray), func(a []any, v []any) (any, error) {
			if v[1] == nil {
				return nil, nil
			}
			out := []any{}
			for _, x := range a {
				if x == nil || !equalValues(x, v[1]) {
					out = append(out, x)
				}
			}
			return out, nil
		}),
		arrayFn("array_distinct", 1, 1, arrayOnly(sameArray), func(a []any, _ []any) (any, error) {
			return distinct(a), nil
		}),
		arrayFn("array_union", 2, 2, twoArrays, func(a []any, v []any) (any, error) {
			return distinct(append(append([]any{}, a...), v[1].([]any)...)), nil
		}),
		arrayFn("array_intersect", 2, 2, twoArrays, func(a []any, v []any) (any, error) {
			out := []any{}
			for _, x := range distinct(a) {
				if contains(v[1].([]any), x) {
					out = append(out, x)
				}
			}
			return out, nil
		}),
		arrayFn("array_except", 2, 2, twoArrays, func(a []any, v []any) (any, error) {
			out := []any{}
			for _, x := range distinct(a) {
				if !contains(v[1].([]any), x) {
					out = append(out, x)
				}
			}
			return out, nil
		}),
		nullableArrayFn("arrays_overlap", 2, 2, func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			want, _, err := twoArrays(in)
			return want, tBool, err
		}, func(a []any, v []any) (any, error) {
			b := v[1].([]any)
			sawNull := false
			for _, x := range a {
				if x == nil {
					sawNull = true
					continue
				}
				for _, y := range b {
					if y == nil {
						sawNull = true
					} else if equalValues(x, y) {
						return true, nil
					}
				}
			}
			if sawNull && len(a) > 0 && len(b) > 0 {
				return nil, nil
			}
			return false, nil
		}),
		nullableArrayFn("array_join", 2, 3, func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			if _, err := listElem(in[0]); err != nil {
				return nil, nil, err
			}
			want := []arrow.DataType{arrow.ListOf(tString), tString, tString}
			return want[:len(in)], tString, nil
		}, func(a []any, v []any) (any, error) {
			parts := make([]string, 0, len(a))
			for _, x := range a {
				switch {
				case x != nil:
					parts = append(parts, x.(string))
				case len(v) == 3 && v[2] != nil:
					parts = append(parts, v[2].(string))
				}
			}
			return strings.Join(parts, v[1].(string)), nil
		}),
		nullableArrayFn("array_max", 1, 1, arrayOnly(elemOut), func(a []any, _ []any) (any, error) {
			return extreme(a, 1), nil
		}),
		nullableArrayFn("array_min", 1, 1, arrayOnly(elemOut), func(a []any, _ []any) (any, error) {
			return extreme(a, -1), nil
		}),
		arrayFn("array_size", 1, 1, arrayOnly(fixedOut(tInt)), func(a []any, _ []any) (any, error) {
			return int32(len(a)), nil
		}),
		nullableArrayFn("get", 2, 2, func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			e, err := listElem(in[0])
			return []arrow.DataType{nil, tInt}, e, err
		}, func(a []any, v []any) (any, error) {
			i := v[1].(int64)
			if i < 0 || i >= int64(len(a)) {
				return nil, nil
			}
			return a[i], nil
		}),
		arrayFn("slice", 3, 3, func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			_, err := listElem(in[0])
			return []arrow.DataType{nil, tInt, tInt}, in[0], err
		}, func(a []any, v []any) (any, error) {
			start, n := v[1].(int64), v[2].(int64)
			switch {
			case start == 0:
				return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.START] The value of parameter(s) `start` in `slice` is invalid: Expects a positive or a negative value for `start`, but got 0. SQLSTATE: 22023")
			case n < 0:
				return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.LENGTH] The value of parameter(s) `length` in `slice` is invalid: Expects `length` greater than or equal to 0, but got %d. SQLSTATE: 22023", n)
			}
			from := start - 1
			if start < 0 {
				from = int64(len(a)) + start
			}
			if from < 0 || from >= int64(len(a)) {
				return []any{}, nil
			}
			to := min(from+n, int64(len(a)))
			return append([]any{}, a[from:to]...), nil
		}),
		{Name: "sort_array", Group: "array", MinArgs: 1, MaxArgs: 2, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			if len(a) == 1 {
				a = append(a, expr.Lit(true)) // Spark names the default order
			}
			return &rowCall{name: called, args: a, impl: &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
				_, err := listElem(in[0])
				return []arrow.DataType{nil, tBool}, in[0], err
			}, eval: func(v []any) (any, error) {
				out := append([]any{}, v[0].([]any)...)
				asc := v[1].(bool)
				sort.SliceStable(out, func(i, j int) bool {
					x, y := out[i], out[j]
					if x == nil || y == nil {
						// NULLs first ascending, last descending.
						if asc {
							return x == nil && y != nil
						}
						return y == nil && x != nil
					}
					if asc {
						return compareValues(x, y) < 0
					}
					return compareValues(x, y) > 0
				})
				return out, nil
			}}}, nil
		}},
		row("reverse", "collection", 1, 1, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			switch in[0].ID() {
			case arrow.LIST, arrow.BINARY:
				return []arrow.DataType{nil}, in[0], nil
			}
			return []arrow.DataType{tString}, tString, nil
		}, eval: func(v []any) (any, error) {
			switch x := v[0].(type) {
			case []any:
				out := make([]any, len(x))
				for i, e := range x {
					out[len(x)-1-i] = e
				}
				return out, nil
			case []byte:
				out := make([]byte, len(x))
				for i, e := range x {
					out[len(x)-1-i] = e
				}
				return out, nil
			}
			r := []rune(v[0].(string))
			for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
				r[i], r[j] = r[j], r[i]
			}
			return string(r), nil
		}}),
		arrayFn("flatten", 1, 1, arrayOnly(func(in arrow.DataType) (arrow.DataType, error) {
			inner, err := listElem(in)
			if err != nil {
				return nil, err
			}
			if _, err := listElem(inner); err != nil {
				return nil, fmt.Errorf("flatten needs an array of arrays, got %s", in)
			}
			return inner, nil
		}), func(a []any, _ []any) (any, error) {
			out := []any{}
			for _, x := range a {
				if x == nil {
					return nil, nil
				}
				out = append(out, x.([]any)...)
			}
			return out, nil
		}),
		arrayFn("array_insert", 3, 3, func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			e, err := listElem(in[0])
			return []arrow.DataType{nil, tInt, e}, in[0], err
		}, func(a []any, v []any) (any, error) {
			if v[1] == nil {
				return nil, nil
			}
			pos := v[1].(int64)
			if pos == 0 {
				return nil, fmt.Errorf("[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1). SQLSTATE: 22003")
			}
			n := int64(len(a))
			if pos > 0 {
				out := append([]any{}, a...)
				for int64(len(out)) < pos-1 {
					out = append(out, nil)
				}
				i := pos - 1
				return append(out[:i], append([]any{v[2]}, out[i:]...)...), nil
			}
			i := n + pos + 1 // -1 appends after the last element
			if i < 0 {
				out := []any{v[2]}
				for k := int64(0); k < -i; k++ {
					out = append(out, nil)
				}
				return append(out, a...), nil
			}
			out := append([]any{}, a[:i]...)
			return append(append(out, v[2]), a[i:]...), nil
		}),
		row("array_repeat", "array", 2, 2, &rowImpl{nullSafe: true, mayBeNull: true, resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			e := in[0]
			if e.ID() == arrow.NULL {
				e = tString
			}
			return []arrow.DataType{e, tInt}, arrow.ListOf(e), nil
		}, eval: func(v []any) (any, error) {
			if v[1] == nil {
				return nil, nil
			}
			out := []any{}
			for i := int64(0); i < v[1].(int64); i++ {
				out = append(out, v[0])
			}
			return out, nil
		}}),
		row("sequence", "array", 2, 3, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			for _, t := range in {
				if !isIntegral(t) && t.ID() != arrow.NULL {
					return nil, nil, fmt.Errorf("sequence over %s is not supported: Atlas builds integer sequences only", t)
				}
			}
			t := tInt
			for _, x := range in {
				if x.ID() == arrow.INT64 {
					t = tLong
				}
			}
			return []arrow.DataType{t, t, t}[:len(in)], arrow.ListOf(t), nil
		}, eval: func(v []any) (any, error) {
			start, stop := v[0].(int64), v[1].(int64)
			step := int64(1)
			if stop < start {
				step = -1
			}
			if len(v) == 3 {
				step = v[2].(int64)
			}
			if step == 0 || (step > 0) != (stop >= start) && start != stop {
				return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE] Illegal sequence boundaries: %d to %d by %d", start, stop, step)
			}
			if n := (stop-start)/step + 1; n > 1<<20 {
				return nil, fmt.Errorf("[COLLECTION_SIZE_LIMIT_EXCEEDED] sequence of %d elements is too long", n)
			}
			out := []any{}
			for x := start; (step > 0 && x <= stop) || (step < 0 && x >= stop); x += step {
				out = append(out, x)
			}
			return out, nil
		}}),
	}
}

// elemFn defines fn(array, value) where a NULL value is an element like
// any other: array_append(array(1), NULL) is [1,null]; a NULL array makes
// the result NULL.
func elemFn(name string, resolve func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error), f func(a []any, v []any) (any, error)) *Def {
	return row(name, "array", 2, 2, &rowImpl{resolve: resolve, nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
		if v[0] == nil {
			return nil, nil
		}
		return f(v[0].([]any), v)
	}})
}

// arrayFn defines fn(array, more...) evaluated by f over the array's
// values; a NULL array (or argument) makes the result NULL.
func arrayFn(name string, minArgs, maxArgs int, resolve func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error), f func(a []any, v []any) (any, error)) *Def {
	return row(name, "array", minArgs, maxArgs, &rowImpl{resolve: resolve, eval: func(v []any) (any, error) {
		return f(v[0].([]any), v)
	}})
}

// nullableArrayFn is arrayFn for functions that may return NULL for
// non-NULL arguments (array_contains of an array holding a NULL, get out
// of range); a NULL argument still makes the result NULL.
func nullableArrayFn(name string, minArgs, maxArgs int, resolve func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error), f func(a []any, v []any) (any, error)) *Def {
	return row(name, "array", minArgs, maxArgs, &rowImpl{resolve: resolve, nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
		for _, x := range v {
			if x == nil {
				return nil, nil
			}
		}
		return f(v[0].([]any), v)
	}})
}

// listElem is the element type of an array type.
func listElem(t arrow.DataType) (arrow.DataType, error) {
	if l, ok := t.(*arrow.ListType); ok {
		return l.Elem(), nil
	}
	return nil, fmt.Errorf("requires an array, got %s", t)
}

// sameArray keeps the array's type as the result's.
func sameArray(in arrow.DataType) (arrow.DataType, error) { return in, nil }

// elemOut makes the element type the result's.
func elemOut(in arrow.DataType) (arrow.DataType, error) { return listElem(in) }

func fixedOut(t arrow.DataType) func(arrow.DataType) (arrow.DataType, error) {
	return func(arrow.DataType) (arrow.DataType, error) { return t, nil }
}

// arrayOnly resolves fn(array) with out deciding the result type.
func arrayOnly(out func(arrow.DataType) (arrow.DataType, error)) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if _, err := listElem(in[0]); err != nil {
			return nil, nil, err
		}
		t, err := out(in[0])
		return []arrow.DataType{nil}, t, err
	}
}

// withElem resolves fn(array, value): the array's elements and the value
// are widened to one type, as Spark's coercion for array_append and
// array_contains.
func withElem(out func(arrow.DataType) (arrow.DataType, error)) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		e, err := listElem(in[0])
		if err != nil {
			return nil, nil, err
		}
		common, err := expr.CommonType([]arrow.DataType{e, in[1]})
		if err != nil {
			return nil, nil, err
		}
		if common.ID() == arrow.NULL {
			common = e
		}
		arr := arrow.ListOf(common)
		t, err := out(arr)
		return []arrow.DataType{arr, common}, t, err
	}
}

// twoArrays widens two arrays to one element type.
func twoArrays(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	a, err := listElem(in[0])
	if err != nil {
		return nil, nil, err
	}
	b, err := listElem(in[1])
	if err != nil {
		return nil, nil, err
	}
	common, err := expr.CommonType([]arrow.DataType{a, b})
	if err != nil {
		return nil, nil, err
	}
	t := arrow.ListOf(common)
	return []arrow.DataType{t, t}, t, nil
}

// distinct keeps the first of equal values (one NULL at most), in order.
func distinct(a []any) []any {
	out := []any{}
	for _, x := range a {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func contains(a []any, x any) bool {
	for _, y := range a {
		if (x == nil && y == nil) || (x != nil && y != nil && equalValues(x, y)) {
			return true
		}
	}
	return false
}

// extreme is the largest (sign 1) or smallest (-1) non-null value; NaN is
// the largest double, as Spark orders them.
func extreme(a []any, sign int) any {
	var best any
	for _, x := range a {
		if x != nil && (best == nil || sign*compareValues(x, best) > 0) {
			best = x
		}
	}
	return best
}

// compareValues orders two non-null values of one type.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case float64:
		return expr.CompareFloats(x, b.(float64))
	case expr.Decimal:
		y := b.(expr.Decimal)
		return expr.CompareDecimals(x.Unscaled, x.Scale, y.Unscaled, y.Scale)
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case time.Time:
		return x.Compare(b.(time.Time))
	case []byte:
		return strings.Compare(string(x), string(b.([]byte)))
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}
