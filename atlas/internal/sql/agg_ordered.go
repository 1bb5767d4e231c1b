package sql

import (
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// orderedAggregates are the aggregates orderedAgg plans, with how many
// arguments each takes.
var orderedAggregates = map[string][2]int{
	"mode": {0, 2}, "median": {1, 1}, "percentile": {2, 3},
	"percentile_cont": {1, 1}, "percentile_disc": {1, 1},
	"max_by": {2, 3}, "min_by": {2, 3}, "histogram_numeric": {2, 2},
}

// withinGroupAggregates take (or, for percentile_cont/disc, need)
// WITHIN GROUP (ORDER BY x).
var withinGroupAggregates = map[string]bool{"mode": true, "percentile_cont": true, "percentile_disc": true}

// orderedAgg plans mode, the exact percentiles and max_by/min_by, named
// as Spark names them. It reports ok=false for another name.
func orderedAgg(c *parser.Call, name, alias string) (*expr.AggFunc, bool, error) {
	nargs, ok := orderedAggregates[name]
	if !ok {
		return nil, false, nil
	}
	if c.Star || len(c.Args) < nargs[0] || len(c.Args) > nargs[1] {
		return nil, true, errAt(c, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %s parameters but the actual number is %d. SQLSTATE: 42605", name, argCount(nargs), len(c.Args))
	}
	if c.Distinct {
		return nil, true, errAt(c, "%s(DISTINCT ...) is not supported", name)
	}
	if len(c.WithinGroup) > 0 && !withinGroupAggregates[name] {
		return nil, true, errAt(c, "[INVALID_WITHIN_GROUP_EXPRESSION.UNSUPPORTED_FUNC] The function %s does not support WITHIN GROUP. SQLSTATE: 42K0K", name)
	}
	if alias == c.String() {
		alias = "" // the parser's default name; Spark's is set below
	}
	a := &expr.AggFunc{Fn: name, As: alias}
	var spark string
	var err error
	switch name {
	case "mode":
		spark, err = modeAgg(c, a)
	case "median":
		a.Fn, a.Opts.Percentages = "median", []float64{0.5}
		a.Arg, err = Expr(c.Args[0])
		spark = "median(" + c.Args[0].String() + ")"
	case "percentile":
		spark, err = percentileAgg(c, a)
	case "percentile_cont", "percentile_disc":
		spark, err = percentileContDisc(c, a)
	case "histogram_numeric":
		spark, err = histogramAgg(c, a)
	default:
		spark, err = maxByAgg(c, a)
	}
	if err != nil {
		return nil, true, err
	}
	if a.As == "" {
		a.As = spark
	}
	return a, true, nil
}

// withinGroupKey returns the single key of WITHIN GROUP (ORDER BY key).
func withinGroupKey(c *parser.Call, name string) (*parser.OrderItem, error) {
	if len(c.WithinGroup) != 1 {
		return nil, errAt(c, "[INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS] The function %s requires 1 orderings in WITHIN GROUP but got %d. SQLSTATE: 42K0K", name, len(c.WithinGroup))
	}
	return c.WithinGroup[0], nil
}

// modeAgg is mode(x), mode(x, deterministic) or mode() WITHIN GROUP
// (ORDER BY x [DESC]). Spark names the ordered forms after their tie rule
// inverted: ascending (smallest first) prints as ORDER BY x DESC.
func modeAgg(c *parser.Call, a *expr.AggFunc) (string, error) {
	var col parser.Expr
	switch {
	case len(c.WithinGroup) > 0:
		if len(c.Args) > 0 {
			return "", errAt(c, "[INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ARGS] mode() WITHIN GROUP takes no arguments, got %d. SQLSTATE: 42K0K", len(c.Args))
		}
		key, err := withinGroupKey(c, "mode")
		if err != nil {
			return "", err
		}
		col = key.Expr
		a.Opts.Ordered, a.Opts.OrderDesc = true, key.Desc
	case len(c.Args) == 0:
		return "", errAt(c, "[INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS] mode() needs WITHIN GROUP (ORDER BY ...) or an argument. SQLSTATE: 42K0K")
	default:
		col = c.Args[0]
		if len(c.Args) == 2 {
			lit, ok := c.Args[1].(*parser.Literal)
			det, isBool := literalValue(lit, ok).(bool)
			if !isBool {
				return "", errAt(c.Args[1], "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the second argument of mode (deterministic) must be a boolean literal, got %s", c.Args[1].SQL())
			}
			a.Opts.Ordered = det
		}
	}
	var err error
	if a.Arg, err = Expr(col); err != nil {
		return "", err
	}
	switch {
	case !a.Opts.Ordered:
		return "mode(" + col.String() + ")", nil
	case a.Opts.OrderDesc:
		return "mode() WITHIN GROUP (ORDER BY " + col.String() + ")", nil
	}
	return "mode() WITHIN GROUP (ORDER BY " + col.String() + " DESC)", nil
}

// percentagesArg reads a percentage literal or array(...) of them.
func percentagesArg(e parser.Expr, name string) ([]float64, bool, error) {
	if p, ok := numberLit(e); ok {
		return []float64{p}, false, nil
	}
	arr, ok := e.(*parser.Call)
	if !ok || !strings.EqualFold(arr.Name, "array") || len(arr.Args) == 0 {
		return nil, false, errAt(e, "the percentage of %s must be a number or array(...) of numbers, got %s", name, e.SQL())
	}
	var out []float64
	for _, x := range arr.Args {
		p, ok := numberLit(x)
		if !ok {
			return nil, false, errAt(x, "the percentages of %s must be number literals, got %s", name, x.SQL())
		}
		out = append(out, p)
	}
	return out, true, nil
}

// percentileAgg is percentile(x, percentage [, frequency]); Spark's name
// shows the default frequency 1.
func percentileAgg(c *parser.Call, a *expr.AggFunc) (string, error) {
	var err error
	if a.Opts.Percentages, a.Opts.PercentArray, err = percentagesArg(c.Args[1], "percentile"); err != nil {
		return "", err
	}
	if len(c.Args) == 3 {
		if f, ok := numberLit(c.Args[2]); !ok || f != 1 {
			return "", errAt(c.Args[2], "percentile with a frequency other than 1 is not supported yet, got %s", c.Args[2].SQL())
		}
	}
	if a.Arg, err = Expr(c.Args[0]); err != nil {
		return "", err
	}
	return "percentile(" + c.Args[0].String() + ", " + c.Args[1].String() + ", 1)", nil
}

// percentileContDisc is percentile_cont(p) / percentile_disc(p) WITHIN
// GROUP (ORDER BY x [DESC]).
func percentileContDisc(c *parser.Call, a *expr.AggFunc) (string, error) {
	name := a.Fn
	if len(c.WithinGroup) == 0 {
		return "", errAt(c, "[INVALID_INVERSE_DISTRIBUTION_FUNCTION.WITHIN_GROUP_MISSING] %s needs WITHIN GROUP (ORDER BY ...). SQLSTATE: 42K0K", name)
	}
	key, err := withinGroupKey(c, name)
	if err != nil {
		return "", err
	}
	if a.Opts.Percentages, a.Opts.PercentArray, err = percentagesArg(c.Args[0], name); err != nil {
		return "", err
	}
	if a.Arg, err = Expr(key.Expr); err != nil {
		return "", err
	}
	a.Opts.Ordered, a.Opts.OrderDesc = true, key.Desc
	desc := ""
	if key.Desc {
		desc = " DESC"
	}
	return name + "(" + c.Args[0].String() + ") WITHIN GROUP (ORDER BY " + key.Expr.String() + desc + ")", nil
}

// maxByAgg is max_by/min_by(x, y [, k]): x and y passed as one struct.
func maxByAgg(c *parser.Call, a *expr.AggFunc) (string, error) {
	x, err := Expr(c.Args[0])
	if err != nil {
		return "", err
	}
	y, err := Expr(c.Args[1])
	if err != nil {
		return "", err
	}
	a.Arg = &expr.MakeStruct{Names: []string{"x", "y"}, Args: []expr.Expr{x, y}}
	names := []string{c.Args[0].String(), c.Args[1].String()}
	if len(c.Args) == 3 {
		k, ok := numberLit(c.Args[2])
		if !ok || k != float64(int64(k)) || k < 1 || k > 100000 {
			return "", errAt(c.Args[2], "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the third argument of %s (k) must be an integer literal in [1, 100000], got %s", a.Fn, c.Args[2].SQL())
		}
		a.Opts.K = int64(k)
		names = append(names, c.Args[2].String())
	}
	return a.Fn + "(" + strings.Join(names, ", ") + ")", nil
}

// orderedAggName is Spark's column name for mode, percentile and the
// WITHIN GROUP aggregates, given the call's name and its arguments' names
// (for "<fn> within group": then "WITHIN GROUP" and the keys' names, see
// parser.CallNamer).
func orderedAggName(name string, args []string) (string, bool) {
	fn, within := strings.CutSuffix(name, " within group")
	if within {
		var keys []string
		for i, a := range args {
			if a == "WITHIN GROUP" {
				args, keys = args[:i], args[i+1:]
				break
			}
		}
		if fn == "listagg" || fn == "string_agg" {
			return listAggName(args, keys), true
		}
		if len(keys) != 1 {
			return "", false
		}
		keys[0] = strings.TrimSuffix(strings.TrimSuffix(keys[0], " NULLS FIRST"), " NULLS LAST")
		switch fn {
		case "mode":
			// Mode.sql prints its tie rule, the inverse of the ordering.
			if k, desc := strings.CutSuffix(keys[0], " DESC"); desc {
				return "mode() WITHIN GROUP (ORDER BY " + k + ")", true
			}
			return "mode() WITHIN GROUP (ORDER BY " + keys[0] + " DESC)", true
		case "percentile_cont", "percentile_disc":
			return fn + "(" + strings.Join(args, ", ") + ") WITHIN GROUP (ORDER BY " + keys[0] + ")", true
		}
		return "", false
	}
	switch {
	case name == "mode" && len(args) == 2 && args[1] == "true":
		return "mode() WITHIN GROUP (ORDER BY " + args[0] + " DESC)", true
	case name == "mode" && len(args) == 2:
		return "mode(" + args[0] + ")", true
	case name == "percentile" && len(args) == 2:
		return "percentile(" + args[0] + ", " + args[1] + ", 1)", true
	}
	return "", false
}

// listAggName is Spark's name of listagg and string_agg WITHIN GROUP:
// listagg(x, NULL) WITHIN GROUP (ORDER BY k ASC NULLS FIRST, ...), each
// key with its direction and null order spelled out.
func listAggName(args, keys []string) string {
	if len(args) == 1 {
		args = append(args, "NULL")
	}
	spelled := make([]string, len(keys))
	for i, k := range keys {
		nulls := ""
		if k2, ok := strings.CutSuffix(k, " NULLS FIRST"); ok {
			k, nulls = k2, " NULLS FIRST"
		} else if k2, ok := strings.CutSuffix(k, " NULLS LAST"); ok {
			k, nulls = k2, " NULLS LAST"
		}
		dir := " ASC"
		if k2, ok := strings.CutSuffix(k, " DESC"); ok {
			k, dir = k2, " DESC"
		}
		if nulls == "" {
			nulls = " NULLS FIRST"
			if dir == " DESC" {
				nulls = " NULLS LAST"
			}
		}
		spelled[i] = k + dir + nulls
	}
	return "listagg(" + strings.Join(args, ", ") + ") WITHIN GROUP (ORDER BY " + strings.Join(spelled, ", ") + ")"
}

// listAggWithinGroup orders listagg's values: the value and the key go to
// the aggregate as one struct (v, k). One key is supported; with DISTINCT
// it must be the value, as Spark requires.
func listAggWithinGroup(c *parser.Call, a *expr.AggFunc) error {
	if len(c.WithinGroup) != 1 {
		return errAt(c, "%s WITHIN GROUP with %d ordering keys is not supported yet: order by one key", strings.ToLower(c.Name), len(c.WithinGroup))
	}
	key := c.WithinGroup[0]
	if c.Distinct && !sameExpr(key.Expr, c.Args[0]) {
		return errAt(key, "[INVALID_WITHIN_GROUP_EXPRESSION.MISMATCH_WITH_DISTINCT_INPUT] The function %s with DISTINCT must be ordered by its argument %s. SQLSTATE: 42K0K", strings.ToLower(c.Name), c.Args[0].String())
	}
	k, err := Expr(key.Expr)
	if err != nil {
		return err
	}
	a.Arg = &expr.MakeStruct{Names: []string{"v", "k"}, Args: []expr.Expr{a.Arg, k}}
	a.Opts.Ordered, a.Opts.OrderDesc = true, key.Desc
	a.Opts.OrderNullsFirst = key.Nulls == parser.NullsFirst || (key.Nulls == parser.NullsDefault && !key.Desc)
	return nil
}

// histogramAgg is histogram_numeric(x, nb), nb an integer literal.
func histogramAgg(c *parser.Call, a *expr.AggFunc) (string, error) {
	nb, ok := numberLit(c.Args[1])
	if !ok || nb != float64(int32(nb)) {
		return "", errAt(c.Args[1], "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the number of bins of histogram_numeric must be an integer literal, got %s", c.Args[1].SQL())
	}
	a.Opts.Bins = int(nb)
	var err error
	if a.Arg, err = Expr(c.Args[0]); err != nil {
		return "", err
	}
	return "histogram_numeric(" + c.Args[0].String() + ", " + c.Args[1].String() + ")", nil
}
