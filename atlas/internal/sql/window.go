package sql

import (
	"fmt"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// Window functions: f(...) OVER (PARTITION BY ... ORDER BY ... frame) in
// a select list becomes a column of one plan.Window node between FROM /
// WHERE (or GROUP BY / HAVING: rank() OVER (ORDER BY sum(x)) ranks the
// groups) and the select list's Project, as Spark's
// ExtractWindowExpressions does. The ranking functions (row_number, rank, dense_rank,
// percent_rank, cume_dist, ntile), lag and lead, first_value, last_value
// and nth_value are window functions; every aggregate SQL knows is
// evaluated over the frame with the accumulators of GROUP BY. Spark's
// default frame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with
// an ORDER BY (peers included) and the whole partition without one; the
// ranking functions and lag/lead have their own fixed frames, which their
// column names show.

// windowOnly are the functions that exist only over a window.
var windowOnly = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true,
	"ntile": true, "lag": true, "lead": true, "nth_value": true,
}

// isWindowCall reports whether e is a call with OVER.
func isWindowCall(e parser.Expr) (*parser.Call, bool) {
	c, ok := e.(*parser.Call)
	return c, ok && c.Over != nil
}

// hasWindow reports whether a select item holds a window function call.
func hasWindow(items []*parser.SelectItem) bool {
	found := false
	for _, it := range items {
		parser.Inspect(it.Expr, func(e parser.Expr) bool {
			if _, ok := isWindowCall(e); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

// windowCalls collects the window function calls of a select list: rw
// replaces each by the column __wN of the plan.Window computing it; base
// converts the calls' arguments (nil outside an aggregation).
type windowCalls struct {
	funcs []*plan.WindowFunc
	cols  map[string]string
	base  Rewrite
}

func (w *windowCalls) rw(e parser.Expr) (expr.Expr, bool, error) {
	c, ok := isWindowCall(e)
	if !ok {
		if c, ok := e.(*parser.Call); ok && windowOnly[strings.ToLower(c.Name)] {
			return nil, true, errAt(e, "[WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE] Window function %s requires an OVER clause", strings.ToLower(c.Name))
		}
		if w.base != nil {
			return w.base(e)
		}
		return nil, false, nil
	}
	key := e.SQL()
	if name, ok := w.cols[key]; ok {
		return expr.Col(name), true, nil
	}
	f, err := windowFunc(c, w.base)
	if err != nil {
		return nil, true, err
	}
	f.Name = fmt.Sprintf("__w%d", len(w.funcs))
	if f.Call, err = windowCallName(c); err != nil {
		return nil, true, err
	}
	w.cols[key] = f.Name
	w.funcs = append(w.funcs, f)
	return expr.Col(f.Name), true, nil
}

// item converts one select item, naming the window calls' column.
func (w *windowCalls) item(it *parser.SelectItem) (expr.Expr, error) {
	first := len(w.funcs)
	e, err := ExprWith(it.Expr, w.rw)
	if err != nil {
		return nil, err
	}
	for _, f := range w.funcs[first:] {
		f.Column = windowItemName(it)
	}
	return e, nil
}

// planWindow plans a select list with window functions over in.
func planWindow(sel *parser.Select, in plan.Node) (plan.Node, error) {
	w := &windowCalls{cols: map[string]string{}}
	var items []expr.Expr
	for _, it := range sel.Items {
		if st, ok := it.Expr.(*parser.Star); ok {
			if len(st.Qualifier) > 0 {
				items = append(items, &expr.Star{Qualifier: strings.Join(st.Qualifier, ".")})
				continue
			}
			for _, f := range in.Schema().Fields() {
				items = append(items, expr.Col(f.Name))
			}
			continue
		}
		e, err := w.item(it)
		if err != nil {
			return nil, err
		}
		if _, plain := it.Expr.(*parser.ColumnRef); plain && it.Alias == "" {
			items = append(items, e)
			continue
		}
		items = append(items, &expr.Alias{Expr: e, Name: windowItemName(it)})
	}
	wn, err := plan.NewWindow(in, w.funcs)
	if err != nil {
		return nil, errAt(sel, "%v", err)
	}
	p, err := plan.NewProject(wn, items)
	if err != nil {
		return nil, errAt(sel, "%v", err)
	}
	return p, nil
}

// windowItemName is Spark's name of a select item with window functions:
// each call is named with the frame it is evaluated over.
func windowItemName(it *parser.SelectItem) string {
	if it.Alias != "" {
		return it.Alias
	}
	if c, ok := isWindowCall(it.Expr); ok {
		if name, err := windowCallName(c); err == nil {
			return name
		}
	}
	return ItemName(it)
}

// windowCallName names a window function call as Spark does:
// row_number() OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW).
func windowCallName(c *parser.Call) (string, error) {
	_, frame, err := effectiveFrame(c)
	if err != nil {
		return "", err
	}
	cc := *c
	spec := *c.Over
	spec.Frame = frame
	cc.Over = &spec
	cc.IgnoreNulls = false
	name := strings.ToLower(c.Name)
	if name == "lag" || name == "lead" {
		args := append([]parser.Expr(nil), c.Args...)
		if len(args) < 2 {
			args = append(args, &parser.Literal{Kind: parser.IntLiteral, Value: int64(1), Text: "1"})
		}
		if len(args) < 3 {
			args = append(args, &parser.Literal{Kind: parser.NullLiteral, Text: "NULL"})
		}
		cc.Args = args
	}
	return parser.NameWith(&cc, windowNamer), nil
}

// windowNamer names the call part: RANK(), DENSE_RANK() and
// PERCENT_RANK() in upper case without arguments (Spark's RankLike.sql),
// row_number() and cume_dist() without arguments.
func windowNamer(name string, args []string) (string, bool) {
	switch name {
	case "rank", "dense_rank", "percent_rank":
		return strings.ToUpper(name) + "()", true
	case "row_number", "cume_dist":
		return name + "()", true
	case "ntile", "lag", "lead", "nth_value":
		return name + "(" + strings.Join(args, ", ") + ")", true
	}
	return callName(name, args)
}

// effectiveFrame is the frame a window function is evaluated over, as a
// plan frame and as the parser frame its column name shows.
func effectiveFrame(c *parser.Call) (plan.Frame, *parser.WindowFrame, error) {
	name := strings.ToLower(c.Name)
	ordered := len(c.Over.OrderBy) > 0
	unb := parser.FrameBound{Kind: parser.UnboundedPreceding}
	cur := parser.FrameBound{Kind: parser.CurrentRow}
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "ntile", "cume_dist", "lag", "lead":
		if !ordered {
			return plan.Frame{}, nil, errAt(c, "[WINDOW_FUNCTION_WITHOUT_ORDER_BY] Window function %s() requires window to be ordered, please add ORDER BY clause. For example SELECT %s() OVER (ORDER BY window_ordering) FROM table", name, name)
		}
	}
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "ntile":
		return plan.Frame{Rows: true, Start: plan.FrameBound{Kind: plan.UnboundedPreceding}, End: plan.FrameBound{Kind: plan.CurrentRow}},
			&parser.WindowFrame{Rows: true, Start: unb, End: cur}, nil
	case "cume_dist":
		return plan.Frame{Start: plan.FrameBound{Kind: plan.UnboundedPreceding}, End: plan.FrameBound{Kind: plan.CurrentRow}},
			&parser.WindowFrame{Start: unb, End: cur}, nil
	case "lag", "lead":
		n, err := offsetArg(c)
		if err != nil {
			return plan.Frame{}, nil, err
		}
		if name == "lag" {
			n = -n
		}
		b := parser.FrameBound{Kind: parser.Following, Offset: &parser.Literal{Kind: parser.IntLiteral, Value: n, Text: fmt.Sprint(n)}}
		pb := plan.FrameBound{Kind: plan.OffsetFollowing, Offset: float64(n)}
		return plan.Frame{Rows: true, Start: pb, End: pb}, &parser.WindowFrame{Rows: true, Start: b, End: b}, nil
	}
	f := c.Over.Frame
	if f == nil {
		if ordered {
			f = &parser.WindowFrame{Start: unb, End: cur}
		} else {
			f = &parser.WindowFrame{Rows: true, Start: unb, End: parser.FrameBound{Kind: parser.UnboundedFollowing}}
		}
	}
	start, err := planBound(c, f.Start, f.Rows)
	if err != nil {
		return plan.Frame{}, nil, err
	}
	end, err := planBound(c, f.End, f.Rows)
	if err != nil {
		return plan.Frame{}, nil, err
	}
	if start.Kind == plan.UnboundedFollowing || end.Kind == plan.UnboundedPreceding {
		return plan.Frame{}, nil, errAt(c.Over, "[INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC] a frame cannot start at UNBOUNDED FOLLOWING nor end at UNBOUNDED PRECEDING")
	}
	if boundOrder(start) > boundOrder(end) {
		return plan.Frame{}, nil, errAt(c.Over, "[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON] The lower bound of a window frame must be less than or equal to the upper bound")
	}
	if !f.Rows && (start.Kind == plan.OffsetPreceding || start.Kind == plan.OffsetFollowing || end.Kind == plan.OffsetPreceding || end.Kind == plan.OffsetFollowing) {
		if len(c.Over.OrderBy) != 1 {
			return plan.Frame{}, nil, errAt(c.Over, "[DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER] A range window frame with value boundaries cannot be used in a window specification with multiple order by expressions")
		}
	}
	return plan.Frame{Rows: f.Rows, Start: start, End: end}, f, nil
}

// boundOrder places a boundary on a line to compare a frame's two ends.
func boundOrder(b plan.FrameBound) float64 {
	switch b.Kind {
	case plan.UnboundedPreceding:
		return -1e300
	case plan.OffsetPreceding:
		return -b.Offset
	case plan.OffsetFollowing:
		return b.Offset
	case plan.UnboundedFollowing:
		return 1e300
	}
	return 0
}

// planBound converts a frame boundary: ROWS offsets are integer
// literals, RANGE offsets number literals.
func planBound(c *parser.Call, b parser.FrameBound, rows bool) (plan.FrameBound, error) {
	kinds := map[parser.BoundKind]plan.FrameBoundKind{
		parser.UnboundedPreceding: plan.UnboundedPreceding, parser.Preceding: plan.OffsetPreceding,
		parser.CurrentRow: plan.CurrentRow, parser.Following: plan.OffsetFollowing, parser.UnboundedFollowing: plan.UnboundedFollowing,
	}
	out := plan.FrameBound{Kind: kinds[b.Kind]}
	if b.Offset == nil {
		return out, nil
	}
	v, ok := signedNumber(b.Offset)
	if !ok {
		return out, errAt(b.Offset, "a window frame offset must be a number literal, got %s (interval offsets are not supported yet)", b.Offset.SQL())
	}
	if rows && v != float64(int64(v)) {
		return out, errAt(b.Offset, "[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE] a ROWS frame offset must be an integer, got %s", b.Offset.SQL())
	}
	out.Offset = v
	return out, nil
}

// signedNumber reads a number literal, possibly negated.
func signedNumber(e parser.Expr) (float64, bool) {
	if u, ok := e.(*parser.Unary); ok && u.Op == "-" {
		v, ok := signedNumber(u.X)
		return -v, ok
	}
	return numberLit(e)
}

// offsetArg is lag's and lead's offset (default 1), an integer literal.
func offsetArg(c *parser.Call) (int64, error) {
	if len(c.Args) < 2 {
		return 1, nil
	}
	v, ok := signedNumber(c.Args[1])
	if !ok || v != float64(int64(v)) {
		return 0, errAt(c.Args[1], "the offset of %s must be an integer literal, got %s", strings.ToLower(c.Name), c.Args[1].SQL())
	}
	return int64(v), nil
}

// windowFunc converts a window function call.
func windowFunc(c *parser.Call, base Rewrite) (*plan.WindowFunc, error) {
	name := strings.ToLower(c.Name)
	if c.ArgNames != nil {
		return nil, errAt(c, "[NAMED_PARAMETERS_NOT_SUPPORTED] Named parameters are not supported for function `%s`; please retry the query with positional arguments to the function call instead. SQLSTATE: 4274K", name)
	}
	if c.Distinct {
		return nil, errAt(c, "[DISTINCT_WINDOW_FUNCTION_UNSUPPORTED] Distinct window functions are not supported: %s", c.SQL())
	}
	frame, _, err := effectiveFrame(c)
	if err != nil {
		return nil, err
	}
	f := &plan.WindowFunc{Fn: name, Frame: frame, IgnoreNulls: c.IgnoreNulls}
	for _, p := range c.Over.PartitionBy {
		e, err := ExprWith(p, base)
		if err != nil {
			return nil, err
		}
		f.PartitionBy = append(f.PartitionBy, e)
	}
	for _, o := range c.Over.OrderBy {
		if o.Nulls == parser.NullsLast && !o.Desc {
			return nil, errAt(o, "ASC NULLS LAST is not supported yet in a window's ORDER BY")
		}
		e, err := ExprWith(o.Expr, base)
		if err != nil {
			return nil, err
		}
		f.OrderBy = append(f.OrderBy, plan.SortKey{Expr: e, Descending: o.Desc, NullsFirst: o.Nulls == parser.NullsFirst})
	}
	argc := func(lo, hi int) error {
		if len(c.Args) < lo || len(c.Args) > hi || c.Star {
			return errAt(c, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %s parameters but the actual number is %d.", name, argRange(lo, hi), len(c.Args))
		}
		return nil
	}
	switch name {
	case "row_number", "cume_dist":
		return f, argc(0, 0)
	case "rank", "dense_rank", "percent_rank":
		return f, nil // Spark accepts (and ignores) the ordering columns as arguments
	case "ntile":
		if err := argc(1, 1); err != nil {
			return nil, err
		}
		v, ok := signedNumber(c.Args[0])
		if !ok || v != float64(int64(v)) || v <= 0 {
			return nil, errAt(c.Args[0], "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the buckets of ntile must be a positive integer literal, got %s", c.Args[0].SQL())
		}
		f.N = int64(v)
		return f, nil
	case "lag", "lead":
		if err := argc(1, 3); err != nil {
			return nil, err
		}
		if f.N, err = offsetArg(c); err != nil {
			return nil, err
		}
		if len(c.Args) == 3 {
			if l, ok := c.Args[2].(*parser.Literal); !ok || l.Kind != parser.NullLiteral {
				if f.Default, err = ExprWith(c.Args[2], base); err != nil {
					return nil, err
				}
			}
		}
		f.Arg, err = ExprWith(c.Args[0], base)
		return f, err
	case "first_value", "last_value", "nth_value":
		lo, hi := 1, 2
		if name == "nth_value" {
			lo = 2
		}
		if err := argc(lo, hi); err != nil {
			return nil, err
		}
		if name == "nth_value" {
			v, ok := signedNumber(c.Args[1])
			if !ok || v != float64(int64(v)) || v <= 0 {
				return nil, errAt(c.Args[1], "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the offset of nth_value must be a positive integer literal, got %s", c.Args[1].SQL())
			}
			f.N = int64(v)
		} else if len(c.Args) == 2 {
			l, ok := c.Args[1].(*parser.Literal)
			b, isBool := literalValue(l, ok).(bool)
			if !isBool {
				return nil, errAt(c.Args[1], "the second argument of %s must be a boolean literal (ignoreNulls)", name)
			}
			f.IgnoreNulls = f.IgnoreNulls || b
		}
		f.Arg, err = ExprWith(c.Args[0], base)
		return f, err
	}
	plain := *c
	plain.Over = nil
	if base != nil && len(c.Args) > 0 {
		// over an aggregation the argument may hold aggregates
		// (sum(sum(x)) OVER ...): Agg checks a stand-in, base converts it
		plain.Args = append([]parser.Expr{&parser.ColumnRef{Parts: []string{"__window_arg"}, At: c.At}}, c.Args[1:]...)
	}
	a, ok, err := Agg(&plain, "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errAt(c, "%s is not a window function nor an aggregate: only ranking, offset and aggregate functions take OVER", name)
	}
	if c.IgnoreNulls {
		a.Opts.IgnoreNulls = true
	}
	if base != nil && a.Arg != nil && len(c.Args) > 0 {
		// over an aggregation: sum(sum(x)) OVER (...) reads the inner
		// aggregate's column
		if a.Arg, err = ExprWith(c.Args[0], base); err != nil {
			return nil, err
		}
	}
	f.Fn = "agg"
	f.Agg = a
	return f, nil
}

func argRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("[%d, %d]", lo, hi)
}

// anyAggOutsideWindow reports whether a select item holds an aggregate
// call that is not the function of a window.
func anyAggOutsideWindow(items []*parser.SelectItem) bool {
	found := false
	for _, it := range items {
		parser.Inspect(it.Expr, func(e parser.Expr) bool {
			if _, ok := isWindowCall(e); ok {
				return false
			}
			if _, ok, _ := Agg(e, ""); ok {
				found = true
			}
			return !found
		})
	}
	return found
}
