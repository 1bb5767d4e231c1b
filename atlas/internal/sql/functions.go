package sql

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

func intArg(c *parser.Call, i int, what string) (int64, error) {
	if lit, ok := c.Args[i].(*parser.Literal); ok {
		if n, ok := lit.Value.(int64); ok {
			return n, nil
		}
	}
	if u, ok := c.Args[i].(*parser.Unary); ok && u.Op == "-" {
		if lit, ok := u.X.(*parser.Literal); ok {
			if n, ok := lit.Value.(int64); ok {
				return -n, nil
			}
		}
	}
	return 0, errAt(c.Args[i], "%s of %s must be an integer literal, got %s", what, c.Name, c.Args[i].SQL())
}

// SupportedFunctions lists the SQL functions Atlas knows, sorted: scalar
// functions, aggregates, window and CAST.
func SupportedFunctions() []string {
	names := []string{"window", "session_window", "CAST", "CASE"}
	for n := range sqlAggregates {
		names = append(names, n)
	}
	names = append(names, functions.Names()...)
	sort.Strings(names)
	return names
}

func callExpr(x *parser.Call, rw Rewrite) (expr.Expr, error) {
	name := strings.ToLower(x.Name)
	if isAggregateName(name) {
		return nil, errAt(x, "aggregate %s(...) is only allowed in the SELECT list of a query", name)
	}
	switch name {
	case "window":
		return windowCall(x, rw)
	case "session_window":
		return sessionWindowCall(x, rw)
	}
	if _, ok := functions.Lookup(name); !ok {
		return nil, errAt(x, "%v", &functions.UnresolvedRoutineError{Name: x.Name})
	}
	if x.Distinct || x.Star {
		return nil, errAt(x, "%s does not take DISTINCT or *", name)
	}
	args := make([]expr.Expr, len(x.Args))
	for i, a := range x.Args {
		if lit, ok := a.(*parser.Literal); ok && lit.Kind == parser.TimeLiteral {
			return nil, errAt(a, "%v", functions.TimeTypeError(name+"(...) of the literal "+lit.SQL()))
		}
		var err error
		if args[i], err = ExprWith(a, rw); err != nil {
			return nil, err
		}
	}
	if x.ArgNames != nil {
		var err error
		if args, err = functions.Arrange(name, args, x.ArgNames); err != nil {
			return nil, errAt(x, "%v", err)
		}
	}
	out, err := functions.Call(name, args)
	if err != nil {
		return nil, errAt(x, "%v", err)
	}
	return out, nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// caseExpr converts CASE: the simple form CASE x WHEN v THEN ... compares
// x = v in each branch, as Spark rewrites it.
func caseExpr(x *parser.Case, rw Rewrite) (expr.Expr, error) {
	var operand expr.Expr
	if x.Operand != nil {
		var err error
		if operand, err = ExprWith(x.Operand, rw); err != nil {
			return nil, err
		}
	}
	out := &expr.CaseWhen{}
	for _, w := range x.Whens {
		cond, err := ExprWith(w.Cond, rw)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			cond = expr.Bin("=", operand, cond)
		}
		val, err := ExprWith(w.Result, rw)
		if err != nil {
			return nil, err
		}
		out.Branches = append(out.Branches, expr.WhenBranch{Cond: cond, Value: val})
	}
	if x.Else != nil {
		e, err := ExprWith(x.Else, rw)
		if err != nil {
			return nil, err
		}
		out.Else = e
	}
	return out, nil
}

func windowCall(x *parser.Call, rw Rewrite) (expr.Expr, error) {
	if len(x.Args) < 2 {
		return nil, errAt(x, "window(timeColumn, '5 minutes'[, slide]) needs at least two arguments")
	}
	t, err := ExprWith(x.Args[0], rw)
	if err != nil {
		return nil, err
	}
	var ds []time.Duration
	for _, a := range x.Args[1:] {
		lit, ok := a.(*parser.Literal)
		if !ok {
			return nil, errAt(a, "window durations must be literals such as '5 minutes'")
		}
		var d time.Duration
		switch v := lit.Value.(type) {
		case string:
			if d, err = plan.ParseDuration(v); err != nil {
				return nil, errAt(a, "%v", err)
			}
		case time.Duration:
			d = v
		default:
			return nil, errAt(a, "window durations must be strings such as '5 minutes'")
		}
		ds = append(ds, d)
	}
	w := &expr.TimeWindow{Time: t, Size: ds[0], Slide: ds[0]}
	if len(ds) > 1 {
		w.Slide = ds[1]
	}
	if len(ds) > 2 {
		w.Offset = ds[2]
	}
	return w, nil
}
