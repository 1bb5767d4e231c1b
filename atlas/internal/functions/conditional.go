package functions

import (
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

func conditionalDefs() []*Def {
	return []*Def{
		{Name: "coalesce", Group: "conditional", MinArgs: 1, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Coalesce{Args: a}, nil
		}},
		{Name: "nvl", Aliases: []string{"ifnull"}, Group: "conditional", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Coalesce{Args: a}, nil
		}},
		{Name: "if", Group: "conditional", MinArgs: 3, MaxArgs: 3, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.CaseWhen{Branches: []expr.WhenBranch{{Cond: a[0], Value: a[1]}}, Else: a[2]}, nil
		}, ColumnName: func(_ string, a []string) string {
			return "(IF(" + strings.Join(a, ", ") + "))"
		}},
	}
}
