package functions

import "github.com/atlas-lakehouse/atlas/atlas/internal/expr"

func generatorDefs() []*Def {
	return []*Def{
		{Name: "explode", Group: "generator", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Explode{X: a[0]}, nil
		}},
		{Name: "explode_outer", Group: "generator", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Explode{X: a[0], Outer: true}, nil
		}},
	}
}
