package sql

import (
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// pairAggregates take two columns (y, x), passed to the aggregate as one
// struct column with fields y and x.
var pairAggregates = map[string]bool{
	"corr": true, "covar_pop": true, "covar_samp": true, "regr_count": true,
	"regr_avgx": true, "regr_avgy": true, "regr_sxx": true, "regr_syy": true,
	"regr_sxy": true, "regr_slope": true, "regr_intercept": true, "regr_r2": true,
}

// moreAgg plans the aggregates beyond Agg's own: the boolean and bitwise
// aggregates, count_if, skewness and kurtosis, array_agg, string_agg and
// listagg, and the two-column statistics (corr, covar_*, regr_*). It
// reports ok=false for another name.
func moreAgg(c *parser.Call, name string, nargs [2]int, alias string) (*expr.AggFunc, bool, error) {
	switch name {
	case "bool_and", "every", "bool_or", "some", "any", "bit_and", "bit_or", "bit_xor",
		"count_if", "skewness", "kurtosis", "array_agg", "string_agg", "listagg":
	default:
		if !pairAggregates[name] {
			return nil, false, nil
		}
	}
	if c.Star || len(c.Args) < nargs[0] || len(c.Args) > nargs[1] {
		return nil, true, errAt(c, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %s parameters but the actual number is %d. SQLSTATE: 42605", name, argCount(nargs), len(c.Args))
	}
	listAgg := name == "string_agg" || name == "listagg"
	if c.Distinct && !listAgg {
		return nil, true, errAt(c, "%s(DISTINCT ...) is not supported: only count, string_agg and listagg take DISTINCT", name)
	}
	args := make([]expr.Expr, len(c.Args))
	for i, x := range c.Args {
		var err error
		if args[i], err = Expr(x); err != nil {
			return nil, true, err
		}
	}
	if alias == c.String() {
		alias = "" // the parser's default name; Spark's is set below
	}
	a := &expr.AggFunc{Fn: name, Arg: args[0], As: alias}
	names := make([]string, len(c.Args))
	for i, x := range c.Args {
		names[i] = x.String()
	}
	switch {
	case pairAggregates[name]:
		a.Arg = &expr.MakeStruct{Names: []string{"y", "x"}, Args: args}
	case name == "array_agg":
		a.Fn, name = "collect_list", "collect_list"
	case listAgg:
		a.Opts.Distinct = c.Distinct
		sep := "NULL"
		if len(c.Args) == 2 {
			lit, ok := c.Args[1].(*parser.Literal)
			switch {
			case ok && lit.Kind == parser.StringLiteral:
				a.Opts.Separator = lit.Value.(string)
				sep = a.Opts.Separator
			case ok && lit.Kind == parser.NullLiteral:
			default:
				return nil, true, errAt(c.Args[1], "the delimiter of %s must be a string literal, got %s", name, c.Args[1].SQL())
			}
		}
		// Spark names the default delimiter: listagg(col, NULL).
		names = []string{names[0], sep}
		if len(c.WithinGroup) > 0 {
			if err := listAggWithinGroup(c, a); err != nil {
				return nil, true, err
			}
		}
	}
	if a.As == "" {
		distinct := ""
		if c.Distinct {
			distinct = "DISTINCT "
		}
		a.As = name + "(" + distinct + strings.Join(names, ", ") + ")"
	}
	return a, true, nil
}

func argCount(n [2]int) string {
	if n[0] == n[1] {
		return itoa(n[0])
	}
	return "[" + itoa(n[0]) + ", " + itoa(n[1]) + "]"
}
