package functions

import "github.com/atlas-lakehouse/atlas/atlas/internal/expr"

// castAliasDefs are date(x) and timestamp(x), Spark's cast aliases
// CAST(x AS DATE) and CAST(x AS TIMESTAMP) (ANSI under Spark 4's
// default), named as their argument.
func castAliasDefs() []*Def {
	alias := func(name string) *Def {
		return &Def{Name: name, Group: "datetime", MinArgs: 1, MaxArgs: 1,
			ColumnName: func(_ string, a []string) string { return a[0] },
			Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
				return &expr.Named{X: &expr.Cast{X: a[0], TypeName: name}, Name: a[0].String()}, nil
			}}
	}
	return []*Def{alias("date"), alias("timestamp")}
}
