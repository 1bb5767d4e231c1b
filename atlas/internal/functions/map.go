package functions

import "github.com/atlas-lakehouse/atlas/atlas/internal/expr"

// mapDefs defines the map group: map, map_keys, map_values, map_entries,
// map_from_arrays, map_from_entries, map_contains_key, map_concat and
// str_to_map (package expr's map*.go evaluate them). element_at and size
// take maps too (collection.go); the higher-order map functions are in
// lambda.go.
func mapDefs() []*Def {
	part := func(p string) *Def {
		return &Def{Name: "map_" + p, Group: "map", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MapPart{X: a[0], Part: p}, nil
		}}
	}
	return []*Def{
		{Name: "map", Group: "map", MinArgs: 0, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MakeMap{Args: a}, nil
		}},
		part("keys"), part("values"), part("entries"),
		{Name: "map_from_arrays", Group: "map", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MapFromArrays{Keys: a[0], Values: a[1]}, nil
		}},
		{Name: "map_from_entries", Group: "map", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MapFromEntries{X: a[0]}, nil
		}},
		{Name: "map_contains_key", Group: "map", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MapContainsKey{X: a[0], Key: a[1]}, nil
		}},
		{Name: "map_concat", Group: "map", MinArgs: 0, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MapConcat{Args: a}, nil
		}},
		{Name: "str_to_map", Group: "map", MinArgs: 1, MaxArgs: 3, ColumnName: withDefaults(3, ",", ":"),
			Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
				e := &expr.StrToMap{Text: a[0], PairDelim: expr.Lit(","), KeyValueDelim: expr.Lit(":")}
				if len(a) > 1 {
					e.PairDelim = a[1]
				}
				if len(a) > 2 {
					e.KeyValueDelim = a[2]
				}
				return e, nil
			}},
	}
}
