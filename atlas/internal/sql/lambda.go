package sql

import (
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// lambdaExpr converts a lambda: inside its body, a one-part column
// reference naming a parameter becomes the lambda's variable (as Spark's
// ResolveLambdaVariables, before columns and enclosing lambdas' names).
func lambdaExpr(l *parser.Lambda, rw Rewrite) (expr.Expr, error) {
	inner := func(e parser.Expr) (expr.Expr, bool, error) {
		if ref, ok := e.(*parser.ColumnRef); ok && len(ref.Parts) == 1 {
			for _, p := range l.Params {
				if strings.EqualFold(p, ref.Parts[0]) {
					return &expr.LambdaVar{Name: p}, true, nil
				}
			}
		}
		if rw != nil {
			return rw(e)
		}
		return nil, false, nil
	}
	body, err := ExprWith(l.Body, inner)
	if err != nil {
		return nil, err
	}
	return &expr.LambdaFunction{Params: l.Params, Body: body}, nil
}
