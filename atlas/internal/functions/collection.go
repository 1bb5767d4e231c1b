package functions

import "github.com/atlas-lakehouse/atlas/atlas/internal/expr"

func collectionDefs() []*Def {
	return []*Def{
		{Name: "array", Group: "array", MinArgs: 0, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MakeArray{Args: a}, nil
		}},
		{Name: "element_at", Group: "collection", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.ElementAt{X: a[0], Index: a[1]}, nil
		}},
		{Name: "try_element_at", Group: "collection", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.ElementAt{X: a[0], Index: a[1], Try: true}, nil
		}},
		{Name: "size", Aliases: []string{"cardinality"}, Group: "collection", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Size{X: a[0]}, nil
		}},
	}
}
