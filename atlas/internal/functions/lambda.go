package functions

import (
	"fmt"
	"sort"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// lambdaDefs defines the higher-order functions: transform, filter,
// exists, forall, aggregate (reduce), zip_with, array_sort with a
// comparator, map_filter, transform_keys, transform_values and
// map_zip_with. Their lambdas are evaluated over all the elements of a
// batch at once (package expr's lambda*.go).
func lambdaDefs() []*Def {
	arrayHOF := func(name string) *Def {
		return &Def{Name: name, Group: "lambda", MinArgs: 2, MaxArgs: 2, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			fn, err := lambdaAt(called, a, 1)
			if err != nil {
				return nil, err
			}
			return &expr.ArrayHOF{Name: name, X: a[0], Fn: fn}, nil
		}}
	}
	mapHOF := func(name string) *Def {
		return &Def{Name: name, Group: "lambda", MinArgs: 2, MaxArgs: 2, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			fn, err := lambdaAt(called, a, 1)
			if err != nil {
				return nil, err
			}
			return &expr.MapHOF{Name: name, X: a[0], Fn: fn}, nil
		}}
	}
	return []*Def{
		arrayHOF("transform"), arrayHOF("filter"), arrayHOF("exists"), arrayHOF("forall"),
		mapHOF("map_filter"), mapHOF("transform_keys"), mapHOF("transform_values"),
		{Name: "aggregate", Aliases: []string{"reduce"}, Group: "lambda", MinArgs: 3, MaxArgs: 4,
			ColumnName: withDefaults(4, "lambdafunction(namedlambdavariable(), namedlambdavariable())"),
			Build: func(called string, a []expr.Expr) (expr.Expr, error) {
				merge, err := lambdaAt(called, a, 2)
				if err != nil {
					return nil, err
				}
				e := &expr.ArrayAggregate{Name: called, X: a[0], Zero: a[1], Merge: merge}
				if len(a) > 3 {
					if e.Finish, err = lambdaAt(called, a, 3); err != nil {
						return nil, err
					}
				}
				return e, nil
			}},
		{Name: "zip_with", Group: "lambda", MinArgs: 3, MaxArgs: 3, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			fn, err := lambdaAt(called, a, 2)
			if err != nil {
				return nil, err
			}
			return &expr.ZipWith{L: a[0], R: a[1], Fn: fn}, nil
		}},
		{Name: "map_zip_with", Group: "lambda", MinArgs: 3, MaxArgs: 3, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			fn, err := lambdaAt(called, a, 2)
			if err != nil {
				return nil, err
			}
			return &expr.MapZipWith{L: a[0], R: a[1], Fn: fn}, nil
		}},
		{Name: "array_sort", Group: "lambda", MinArgs: 1, MaxArgs: 2, ColumnName: withDefaults(2, defaultComparator),
			Build: func(called string, a []expr.Expr) (expr.Expr, error) {
				if len(a) == 1 {
					return arraySortNatural.Build(called, a)
				}
				fn, err := lambdaAt(called, a, 1)
				if err != nil {
					return nil, err
				}
				return &expr.ArraySortBy{X: a[0], Fn: fn}, nil
			}},
	}
}

// defaultComparator is how Spark names array_sort's default comparator
// (ascending, NULLs last) in the result column of array_sort(array).
const defaultComparator = "lambdafunction((IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), 0, (IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1, (IF((namedlambdavariable() < namedlambdavariable()), -1, (IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), namedlambdavariable())"

// arraySortNatural is array_sort(array) with the default comparator:
// ascending, NULLs last.
var arraySortNatural = arrayFn("array_sort", 1, 1, arrayOnly(sameArray), func(a []any, _ []any) (any, error) {
	out := append([]any{}, a...)
	sort.SliceStable(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x == nil || y == nil {
			return y == nil && x != nil // NULLs last
		}
		return compareValues(x, y) < 0
	})
	return out, nil
})

// lambdaAt returns argument i of a higher-order function, which must be
// a lambda function.
func lambdaAt(fn string, a []expr.Expr, i int) (*expr.LambdaFunction, error) {
	if l, ok := expr.AsLambda(a[i]); ok {
		return l, nil
	}
	return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve %s: its argument %d must be a lambda function (x -> ...), got %s", fn, i+1, a[i])
}
