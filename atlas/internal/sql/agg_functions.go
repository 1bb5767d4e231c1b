package sql

import (
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// percentileArgs converts percentile_approx's percentage (a number or
// array(...) of numbers) and accuracy (default 10000).
func percentileArgs(c *parser.Call, a *expr.AggFunc) error {
	if p, ok := numberLit(c.Args[1]); ok {
		a.Opts.Percentages = []float64{p}
	} else if arr, ok := c.Args[1].(*parser.Call); ok && strings.EqualFold(arr.Name, "array") && len(arr.Args) > 0 {
		for _, x := range arr.Args {
			p, ok := numberLit(x)
			if !ok {
				return errAt(x, "the percentages of percentile_approx must be number literals, got %s", x.SQL())
			}
			a.Opts.Percentages = append(a.Opts.Percentages, p)
		}
		a.Opts.PercentArray = true
	} else {
		return errAt(c.Args[1], "the percentage of percentile_approx must be a number or array(...) of numbers, got %s", c.Args[1].SQL())
	}
	a.Opts.Accuracy = expr.DefaultAccuracy
	if len(c.Args) == 3 {
		acc, err := intArg(c, 2, "the accuracy")
		if err != nil {
			return err
		}
		a.Opts.Accuracy = acc
	}
	return nil
}

func numberLit(e parser.Expr) (float64, bool) {
	lit, ok := e.(*parser.Literal)
	if !ok {
		return 0, false
	}
	switch v := lit.Value.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// sessionWindowCall is session_window(timeColumn, gap): the gap a
// duration literal or an expression per row (Spark's dynamic gap).
func sessionWindowCall(x *parser.Call, rw Rewrite) (expr.Expr, error) {
	if len(x.Args) != 2 {
		return nil, errAt(x, "[WRONG_NUM_ARGS] session_window takes 2 arguments (timeColumn, gapDuration), got %d", len(x.Args))
	}
	t, err := ExprWith(x.Args[0], rw)
	if err != nil {
		return nil, err
	}
	sw := &expr.SessionWindow{Time: t, ParseGap: plan.ParseDuration}
	if lit, ok := x.Args[1].(*parser.Literal); ok {
		if s, ok := lit.Value.(string); ok {
			d, err := plan.ParseDuration(s)
			if err != nil {
				return nil, errAt(x.Args[1], "%v", err)
			}
			sw.Gap = d
			return sw, nil
		}
	}
	if sw.GapExpr, err = ExprWith(x.Args[1], rw); err != nil {
		return nil, err
	}
	return sw, nil
}

// timeWindowField resolves window.start or session_window.end in an
// aggregation query to the field of the GROUP BY key window(...) or
// session_window(...), as Spark names the key after the function.
func timeWindowField(c *parser.ColumnRef, groupBy []parser.Expr, key func(i int) string) (expr.Expr, bool) {
	if len(c.Parts) < 1 {
		return nil, false
	}
	name := strings.ToLower(c.Parts[0])
	if name != "window" && name != "session_window" {
		return nil, false
	}
	for i, g := range groupBy {
		if call, ok := g.(*parser.Call); ok && strings.ToLower(call.Name) == name {
			return expr.Col(strings.Join(append([]string{key(i)}, c.Parts[1:]...), ".")), true
		}
	}
	return nil, false
}
