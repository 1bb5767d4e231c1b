// Package sql plans Atlas's SQL subset onto the same logical plans and
// expressions the DataFrame API builds: parser.Expr trees become
// expr.Expr, SELECT becomes a plan, and MERGE INTO / CREATE TABLE run
// against the lakehouse. Window functions (f(...) OVER (...), window.go)
// become one plan.Window node between FROM/WHERE and the select list, in
// batch queries; a streaming query refuses them at Start, as Spark does.
package sql

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// Expr converts a parsed scalar expression. Aggregate calls are rejected
// here (see Agg).
func Expr(e parser.Expr) (expr.Expr, error) { return ExprWith(e, nil) }

// Rewrite is consulted by ExprWith on every node before the default
// conversion: when it returns ok (or an error), its result replaces the
// node and the node's children are not visited. The SQL planner uses it to
// resolve qualified column references of MERGE (t.col, s.col) and to
// substitute aggregate calls and GROUP BY keys by the columns computing them.
type Rewrite func(e parser.Expr) (out expr.Expr, ok bool, err error)

// ExprWith converts a parsed scalar expression as Expr does, letting rw
// replace any node (nil rw: none).
func ExprWith(e parser.Expr, rw Rewrite) (expr.Expr, error) {
	if rw != nil {
		if out, ok, err := rw(e); ok || err != nil {
			return out, err
		}
	}
	switch x := e.(type) {
	case *parser.ColumnRef:
		return &expr.ColumnRef{Parts: x.Parts}, nil
	case *parser.Star:
		return &expr.Star{Qualifier: strings.Join(x.Qualifier, ".")}, nil
	case *parser.Literal:
		if x.Kind == parser.YearMonthIntervalLiteral {
			return expr.Lit(expr.YearMonth{Months: int32(x.Value.(int64)), Fields: x.Text}), nil
		}
		if x.Kind == parser.TimeLiteral {
			return nil, errAt(e, "%v", functions.TimeTypeError("the literal "+x.SQL()))
		}
		switch v := x.Value.(type) {
		case time.Time:
			if x.Kind == parser.DateLiteral {
				return expr.Lit(arrow.Date32FromTime(v)), nil
			}
			if x.Kind == parser.TimestampNTZLiteral {
				return expr.Lit(expr.TimestampNTZ{Wall: v}), nil
			}
			return expr.Lit(v), nil
		case float64:
			if x.Kind == parser.DecimalLiteral {
				text := strings.TrimSuffix(strings.ToUpper(x.Text), "BD")
				if text == "" {
					text = strconv.FormatFloat(v, 'f', -1, 64)
				}
				d, err := expr.ParseDecimal(text)
				if err != nil {
					return nil, errAt(e, "%v", err)
				}
				return expr.Lit(d), nil
			}
			return expr.Lit(v), nil
		case time.Duration, nil, bool, string, []byte:
			return expr.Lit(v), nil
		case int64:
			if x.Kind == parser.IntLiteral {
				return expr.Lit(int32(v)), nil
			}
			return expr.Lit(v), nil
		}
		return nil, errAt(e, "unsupported literal %s", x.Text)
	case *parser.Binary:
		l, err := ExprWith(x.L, rw)
		if err != nil {
			return nil, err
		}
		r, err := ExprWith(x.R, rw)
		if err != nil {
			return nil, err
		}
		op := strings.ToUpper(x.Op)
		switch op {
		case "=", "==", "!=", "<>", "<", "<=", ">", ">=", "AND", "OR", "+", "-", "*", "/", "%":
			return expr.Bin(op, l, r), nil
		case "<=>", "&", "|", "^", "<<", ">>", ">>>", "DIV":
			out, err := functions.Call(operatorFunctions[op], []expr.Expr{l, r})
			if err != nil {
				return nil, errAt(e, "%v", err)
			}
			return out, nil
		}
		return nil, errAt(e, "operator %s is not supported yet", x.Op)
	case *parser.Unary:
		inner, err := ExprWith(x.X, rw)
		if err != nil {
			return nil, err
		}
		switch strings.ToUpper(x.Op) {
		case "NOT":
			return &expr.Not{X: inner}, nil
		case "-":
			neg := expr.Bin("-", expr.Lit(int32(0)), inner)
			neg.Unary = true
			return neg, nil
		case "+":
			return inner, nil
		case "~":
			out, err := functions.Call("~", []expr.Expr{inner})
			if err != nil {
				return nil, errAt(e, "%v", err)
			}
			return out, nil
		}
		return nil, errAt(e, "unary %s is not supported", x.Op)
	case *parser.IsNull:
		inner, err := ExprWith(x.X, rw)
		if err != nil {
			return nil, err
		}
		return &expr.IsNull{X: inner, Negate: x.Not}, nil
	case *parser.In:
		inner, err := ExprWith(x.X, rw)
		if err != nil {
			return nil, err
		}
		list := make([]expr.Expr, len(x.List))
		for i, it := range x.List {
			if list[i], err = ExprWith(it, rw); err != nil {
				return nil, err
			}
		}
		return &expr.In{X: inner, List: list, Negate: x.Not}, nil
	case *parser.Between:
		v, err := ExprWith(x.X, rw)
		if err != nil {
			return nil, err
		}
		lo, err := ExprWith(x.Low, rw)
		if err != nil {
			return nil, err
		}
		hi, err := ExprWith(x.High, rw)
		if err != nil {
			return nil, err
		}
		var out expr.Expr = expr.Bin("AND", expr.Bin(">=", v, lo), expr.Bin("<=", v, hi))
		if x.Not {
			out = &expr.Not{X: out}
		}
		return out, nil
	case *parser.Cast:
		inner, err := ExprWith(x.X, rw)
		if err != nil {
			return nil, err
		}
		c := &expr.Cast{X: inner, TypeName: x.Type}
		if x.Try {
			c.Mode = expr.EvalTry
		}
		return c, nil
	case *parser.Call:
		if x.Over == nil && windowOnly[strings.ToLower(x.Name)] {
			return nil, errAt(e, "[WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE] Window function %s requires an OVER clause", strings.ToLower(x.Name))
		}
		if x.Over != nil {
			return nil, errAt(e, "[UNSUPPORTED_EXPR_FOR_WINDOW] window function %s is only allowed in the select list (not in WHERE, GROUP BY, HAVING or ORDER BY)", x.Name)
		}
		if len(x.WithinGroup) > 0 {
			return nil, errAt(e, "[INVALID_WITHIN_GROUP_EXPRESSION.UNSUPPORTED_FUNC] The function %s does not support WITHIN GROUP, or is an aggregate used where it is not allowed. SQLSTATE: 42K0K", strings.ToLower(x.Name))
		}
		return callExpr(x, rw)
	case *parser.Like:
		out, err := callExpr(x.Call(), rw)
		if err != nil || !x.Not {
			return out, err
		}
		return &expr.Not{X: out}, nil
	case *parser.Case:
		return caseExpr(x, rw)
	case *parser.Lambda:
		return lambdaExpr(x, rw)
	}
	return nil, errAt(e, "%s is not supported yet", e.SQL())
}

// operatorFunctions are the registry's functions for the operators it
// defines: shifts as shiftleft, shiftright and shiftrightunsigned, DIV as
// div, the others under their own spelling.
var operatorFunctions = map[string]string{
	"<=>": "<=>", "&": "&", "|": "|", "^": "^",
	"<<": "shiftleft", ">>": "shiftright", ">>>": "shiftrightunsigned", "DIV": "div",
}

// sqlAggregates are the aggregate functions SQL accepts, with how many
// arguments each takes (the first is the column; the others literals).
var sqlAggregates = map[string][2]int{
	"count": {1, 1}, "sum": {1, 1}, "min": {1, 1}, "max": {1, 1}, "avg": {1, 1}, "mean": {1, 1},
	"approx_count_distinct": {1, 2}, "collect_list": {1, 1}, "collect_set": {1, 1},
	"first": {1, 2}, "last": {1, 2}, "first_value": {1, 2}, "last_value": {1, 2}, "any_value": {1, 2},
	"stddev": {1, 1}, "stddev_samp": {1, 1}, "stddev_pop": {1, 1}, "std": {1, 1},
	"variance": {1, 1}, "var_samp": {1, 1}, "var_pop": {1, 1},
	"percentile_approx": {2, 3}, "approx_percentile": {2, 3},
	"bool_and": {1, 1}, "every": {1, 1}, "bool_or": {1, 1}, "some": {1, 1}, "any": {1, 1},
	"bit_and": {1, 1}, "bit_or": {1, 1}, "bit_xor": {1, 1}, "count_if": {1, 1},
	"skewness": {1, 1}, "kurtosis": {1, 1}, "array_agg": {1, 1},
	"string_agg": {1, 2}, "listagg": {1, 2},
	"corr": {2, 2}, "covar_pop": {2, 2}, "covar_samp": {2, 2}, "regr_count": {2, 2},
	"regr_avgx": {2, 2}, "regr_avgy": {2, 2}, "regr_sxx": {2, 2}, "regr_syy": {2, 2},
	"regr_sxy": {2, 2}, "regr_slope": {2, 2}, "regr_intercept": {2, 2}, "regr_r2": {2, 2},
	"try_sum": {1, 1}, "try_avg": {1, 1},
	"bitmap_construct_agg": {1, 1}, "bitmap_or_agg": {1, 1}, "bitmap_and_agg": {1, 1}, "bitmap_xor_agg": {1, 1},
}

// isAggregateName reports whether name (lower case) is an aggregate.
func isAggregateName(name string) bool {
	_, ok := sqlAggregates[name]
	_, ordered := orderedAggregates[name]
	return ok || ordered
}

// Agg converts an aggregate call, or returns ok=false when e is not one.
// count(DISTINCT x) counts distinct non-null values (batch queries; a
// stream refuses it at Start, as Spark does).
func Agg(e parser.Expr, alias string) (*expr.AggFunc, bool, error) {
	c, ok := e.(*parser.Call)
	if !ok || c.Over != nil {
		return nil, false, nil
	}
	name := strings.ToLower(c.Name)
	if c.ArgNames != nil && isAggregateName(name) {
		return nil, true, errAt(c, "[NAMED_PARAMETERS_NOT_SUPPORTED] Named parameters are not supported for function `%s`; please retry the query with positional arguments to the function call instead. SQLSTATE: 4274K", name)
	}
	if a, ok, err := orderedAgg(c, name, alias); ok || err != nil {
		return a, true, err
	}
	nargs, ok := sqlAggregates[name]
	if !ok {
		return nil, false, nil
	}
	if len(c.WithinGroup) > 0 && !withinGroupAggregates[name] && name != "listagg" && name != "string_agg" {
		return nil, true, errAt(c, "[INVALID_WITHIN_GROUP_EXPRESSION.UNSUPPORTED_FUNC] The function %s does not support WITHIN GROUP. SQLSTATE: 42K0K", name)
	}
	if name == "std" {
		name = "stddev"
	}
	if a, ok, err := planSketchAgg(c, name, alias); ok || err != nil {
		return a, true, err
	}
	if a, ok, err := moreAgg(c, name, nargs, alias); ok || err != nil {
		return a, true, err
	}
	a := &expr.AggFunc{Fn: name, As: alias}
	if c.Distinct {
		if name != "count" {
			return nil, true, errAt(e, "%s(DISTINCT ...) is not supported: only count(DISTINCT ...)", name)
		}
		if len(c.Args) != 1 {
			return nil, true, errAt(e, "count(DISTINCT ...) of several columns is not supported yet: count one column")
		}
		a.Opts.Distinct = true
	}
	if c.Star || (!c.Distinct && len(c.Args) == 1 && isLiteralOne(c.Args[0])) {
		if name != "count" {
			return nil, true, errAt(e, "%s(*) is not valid", name)
		}
		if alias == "" {
			a.As = "count(1)"
		}
		return a, true, nil
	}
	if len(c.Args) < nargs[0] || len(c.Args) > nargs[1] {
		if nargs[0] == nargs[1] {
			return nil, true, errAt(e, "%s takes one argument", name)
		}
		return nil, true, errAt(e, "%s takes %d to %d arguments", name, nargs[0], nargs[1])
	}
	arg, err := Expr(c.Args[0])
	if err != nil {
		return nil, true, err
	}
	a.Arg = arg
	if name == "percentile_approx" || name == "approx_percentile" {
		if err := percentileArgs(c, a); err != nil {
			return nil, true, err
		}
		if alias == "" {
			a.As, _ = a.ParamName()
		}
		return a, true, nil
	}
	if len(c.Args) == 2 {
		lit, ok := c.Args[1].(*parser.Literal)
		switch v := literalValue(lit, ok).(type) {
		case float64:
			if name != "approx_count_distinct" {
				return nil, true, errAt(c.Args[1], "the second argument of %s must be a boolean (ignoreNulls)", name)
			}
			a.Opts.RSD = v
		case bool:
			if name == "approx_count_distinct" {
				return nil, true, errAt(c.Args[1], "the second argument of approx_count_distinct must be a number (rsd)")
			}
			a.Opts.IgnoreNulls = v
		default:
			return nil, true, errAt(c.Args[1], "the second argument of %s must be a literal", name)
		}
	}
	if alias == "" {
		// Spark's name: the argument as Spark names it (max(price) for
		// max(s.price), CAST(x AS STRING)), not its SQL text.
		if c.Distinct {
			a.As = name + "(DISTINCT " + c.Args[0].String() + ")"
		} else {
			a.As = name + "(" + c.Args[0].String() + ")"
		}
	}
	return a, true, nil
}

// literalValue reads a numeric or boolean literal (numbers as float64).
func literalValue(l *parser.Literal, ok bool) any {
	if !ok {
		return nil
	}
	switch v := l.Value.(type) {
	case int64:
		return float64(v)
	case float64, bool:
		return v
	}
	if n, err := strconv.ParseFloat(l.Text, 64); err == nil && l.Kind != parser.StringLiteral {
		return n
	}
	return nil
}

func isLiteralOne(e parser.Expr) bool {
	l, ok := e.(*parser.Literal)
	return ok && l.Value == int64(1)
}

// Error is a planning error at a position of the SQL text.
type Error struct {
	Line, Col int
	Msg       string
	// Cause is the error Msg quotes, if any: its Spark error class (an
	// unknown column or table) stays reachable through errors.As.
	Cause error
}

func (e *Error) Error() string {
	return fmt.Sprintf("error at line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// ErrorAt is an Error at line and column with a formatted message; its
// cause is the first error among args.
func ErrorAt(line, col int, format string, args ...any) *Error {
	e := &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Cause = err
			break
		}
	}
	return e
}

func errAt(n parser.Node, format string, args ...any) error {
	p := n.Pos()
	return ErrorAt(p.Line, p.Col, format, args...)
}
