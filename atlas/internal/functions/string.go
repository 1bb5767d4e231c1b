package functions

import (
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

func stringDefs() []*Def {
	return []*Def{
		{Name: "concat", Group: "string", MinArgs: 0, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Concat{Args: a}, nil
		}},
		{Name: "concat_ws", Group: "string", MinArgs: 1, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.ConcatWs{Sep: a[0], Args: a[1:]}, nil
		}},
		stringFn("upper", "ucase"),
		stringFn("lower", "lcase"),
		{Name: "split", Group: "string", MinArgs: 2, MaxArgs: 3, Build: split, ColumnName: func(name string, a []string) string {
			if len(a) == 2 {
				a = append(a, "-1") // Spark names the default limit
			}
			return name + "(" + strings.Join(a, ", ") + ")"
		}},
	}
}

// stringFn is a one-argument string function evaluated by expr.StringFunc.
func stringFn(name string, aliases ...string) *Def {
	d := &Def{Name: name, Aliases: aliases, Group: "string"}
	d.MinArgs, d.MaxArgs = fixed(1)
	d.Build = func(_ string, a []expr.Expr) (expr.Expr, error) {
		return &expr.StringFunc{Fn: name, X: a[0]}, nil
	}
	return d
}

// split is split(str, regex[, limit]).
func split(name string, a []expr.Expr) (expr.Expr, error) {
	re, err := stringLit(name, a, 1, "the regex")
	if err != nil {
		return nil, err
	}
	limit := int64(-1)
	if len(a) == 3 {
		if limit, err = intLit(name, a, 2, "the limit"); err != nil {
			return nil, err
		}
	}
	return &expr.Split{X: a[0], Regex: re, Limit: int(limit)}, nil
}
