package sql

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// scalarFunc builds a scalar function from its converted arguments; raw
// are the parsed arguments, for those that must be literals.
type scalarFunc struct {
	minArgs, maxArgs int // maxArgs < 0: any number
	build            func(c *parser.Call, args []expr.Expr) (expr.Expr, error)
}

// scalarFuncs are the scalar SQL functions Atlas knows, by lower-case name.
var scalarFuncs = map[string]scalarFunc{
	"coalesce": {1, -1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Coalesce{Args: a}, nil }},
	"concat":   {0, -1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Concat{Args: a}, nil }},
	"concat_ws": {1, -1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) {
		return &expr.ConcatWs{Sep: a[0], Args: a[1:]}, nil
	}},
	"upper": {1, 1, stringFunc("upper")},
	"ucase": {1, 1, stringFunc("upper")},
	"lower": {1, 1, stringFunc("lower")},
	"lcase": {1, 1, stringFunc("lower")},
	"trim":  {1, 1, stringFunc("trim")},
	"ltrim": {1, 1, stringFunc("ltrim")},
	"rtrim": {1, 1, stringFunc("rtrim")},
	"split": {2, 3, func(c *parser.Call, a []expr.Expr) (expr.Expr, error) {
		re, err := stringArg(c, 1, "the regex")
		if err != nil {
			return nil, err
		}
		limit := int64(-1)
		if len(c.Args) == 3 {
			if limit, err = intArg(c, 2, "the limit"); err != nil {
				return nil, err
			}
		}
		return &expr.Split{X: a[0], Regex: re, Limit: int(limit)}, nil
	}},
	"array": {0, -1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.MakeArray{Args: a}, nil }},
	"element_at": {2, 2, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) {
		return &expr.ElementAt{X: a[0], Index: a[1]}, nil
	}},
	"try_element_at": {2, 2, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) {
		return &expr.ElementAt{X: a[0], Index: a[1], Try: true}, nil
	}},
	"size":        {1, 1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Size{X: a[0]}, nil }},
	"cardinality": {1, 1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Size{X: a[0]}, nil }},
	"window_time": {1, 1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.WindowTime{X: a[0]}, nil }},
	"explode":     {1, 1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Explode{X: a[0]}, nil }},
	"explode_outer": {1, 1, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) {
		return &expr.Explode{X: a[0], Outer: true}, nil
	}},
	"to_timestamp":     {1, 2, toTimestamp(false)},
	"try_to_timestamp": {1, 2, toTimestamp(true)},
	"date_format": {2, 2, func(c *parser.Call, a []expr.Expr) (expr.Expr, error) {
		f, err := stringArg(c, 1, "the format")
		if err != nil {
			return nil, err
		}
		return &expr.DateFormat{X: a[0], Format: f}, nil
	}},
	"current_timestamp": {0, 0, func(*parser.Call, []expr.Expr) (expr.Expr, error) { return expr.CurrentTimestamp{}, nil }},
	"now":               {0, 0, func(*parser.Call, []expr.Expr) (expr.Expr, error) { return expr.CurrentTimestamp{}, nil }},
	"nvl":               {2, 2, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Coalesce{Args: a}, nil }},
	"ifnull":            {2, 2, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.Coalesce{Args: a}, nil }},
	"if": {3, 3, func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) {
		return &expr.CaseWhen{Branches: []expr.WhenBranch{{Cond: a[0], Value: a[1]}}, Else: a[2]}, nil
	}},
}

func stringFunc(fn string) func(*parser.Call, []expr.Expr) (expr.Expr, error) {
	return func(_ *parser.Call, a []expr.Expr) (expr.Expr, error) { return &expr.StringFunc{Fn: fn, X: a[0]}, nil }
}

func toTimestamp(try bool) func(*parser.Call, []expr.Expr) (expr.Expr, error) {
	return func(c *parser.Call, a []expr.Expr) (expr.Expr, error) {
		f := ""
		if len(c.Args) == 2 {
			var err error
			if f, err = stringArg(c, 1, "the format"); err != nil {
				return nil, err
			}
		}
		return &expr.ToTimestamp{X: a[0], Format: f, Try: try}, nil
	}
}

func stringArg(c *parser.Call, i int, what string) (string, error) {
	if lit, ok := c.Args[i].(*parser.Literal); ok {
		if s, ok := lit.Value.(string); ok {
			return s, nil
		}
	}
	return "", errAt(c.Args[i], "%s of %s must be a string literal, got %s", what, c.Name, c.Args[i].SQL())
}

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
	for n := range scalarFuncs {
		names = append(names, n)
	}
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
	f, ok := scalarFuncs[name]
	if !ok {
		return nil, errAt(x, "function %s is not supported; supported: %s", x.Name, strings.Join(SupportedFunctions(), ", "))
	}
	if x.Distinct || x.Star {
		return nil, errAt(x, "%s does not take DISTINCT or *", name)
	}
	if len(x.Args) < f.minArgs || (f.maxArgs >= 0 && len(x.Args) > f.maxArgs) {
		want := ""
		switch {
		case f.maxArgs < 0:
			want = "at least " + itoa(f.minArgs)
		case f.minArgs == f.maxArgs:
			want = itoa(f.minArgs)
		default:
			want = itoa(f.minArgs) + " to " + itoa(f.maxArgs)
		}
		return nil, errAt(x, "[WRONG_NUM_ARGS] %s takes %s arguments, got %d", name, want, len(x.Args))
	}
	args := make([]expr.Expr, len(x.Args))
	for i, a := range x.Args {
		var err error
		if args[i], err = ExprWith(a, rw); err != nil {
			return nil, err
		}
	}
	out, err := f.build(x, args)
	if err != nil {
		return nil, err
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
