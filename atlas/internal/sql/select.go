package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// Relations resolves a table or view named in FROM (or MERGE USING) to the
// batch plan that reads it. An error caused by the name itself (no such
// table) should be an *Error at the name's position; PlanSelect returns
// its errors unchanged, so that a failing catalog or storage is not
// reported as an error in the SQL text.
type Relations func(name *parser.Name) (plan.Node, error)

// PlanSelect plans a query onto the same nodes the DataFrame API builds:
// a scan of the FROM relation, Filter for WHERE, Aggregate for GROUP BY and
// aggregate calls (count, sum, min, max, avg), Filter for HAVING, Project
// for the select list, Aggregate again for DISTINCT, Union for UNION [ALL],
// Sort for ORDER BY and Limit. Common table expressions (WITH) are planned
// once and read wherever their name appears. Errors name the line and
// column of the offending clause.
func PlanSelect(sel *parser.Select, rel Relations) (plan.Node, error) {
	if len(sel.With) > 0 {
		var err error
		if rel, err = withCTEs(sel.With, rel); err != nil {
			return nil, err
		}
	}
	out, err := planCore(sel, rel)
	if err != nil {
		return nil, err
	}
	for _, op := range sel.SetOps {
		branch, err := PlanSelect(op.Query, rel)
		if err != nil {
			return nil, err
		}
		u, err := plan.NewUnion([]plan.Node{out, branch})
		if err != nil {
			return nil, errAt(op, "%v", err)
		}
		out = u
		if !op.All {
			if out, err = distinct(out); err != nil {
				return nil, errAt(op, "UNION: %v", err)
			}
		}
	}
	if len(sel.OrderBy) > 0 {
		if h, ok, herr := orderByHidden(sel, rel, out); ok {
			if herr != nil {
				return nil, herr
			}
			out = h
		} else if out, err = planOrder(sel, out); err != nil {
			return nil, err
		}
	}
	if sel.Limit != nil {
		n, err := limitValue(sel.Limit)
		if err != nil {
			return nil, err
		}
		out = &plan.Limit{In: out, N: n}
	}
	return out, nil
}

// withCTEs plans each common table expression in order (a later one may
// read an earlier one) and returns rel extended with their names, which
// shadow tables and views of the same name, as in Spark.
func withCTEs(ctes []*parser.CTE, rel Relations) (Relations, error) {
	defined := map[string]plan.Node{}
	resolve := func(name *parser.Name) (plan.Node, error) {
		if len(name.Parts) == 1 {
			if n, ok := defined[strings.ToLower(name.Parts[0])]; ok {
				return n, nil
			}
		}
		return rel(name)
	}
	for _, c := range ctes {
		key := strings.ToLower(c.Name)
		if _, dup := defined[key]; dup {
			return nil, errAt(c, "[DUPLICATED_CTE_NAMES] CTE definition can't have duplicate names: `%s`", c.Name)
		}
		n, err := PlanSelect(c.Query, resolve)
		if err != nil {
			return nil, err
		}
		if plan.NeedsSubquery(n) {
			n = plan.NewSubquery(n)
		}
		defined[key] = n
	}
	return resolve, nil
}

// planCore plans FROM, WHERE, GROUP BY, HAVING, the select list and
// DISTINCT of one SELECT.
func planCore(sel *parser.Select, rel Relations) (plan.Node, error) {
	in, err := planFrom(sel, rel)
	if err != nil {
		return nil, err
	}
	if sel.Where != nil {
		cond, err := Expr(sel.Where)
		if err != nil {
			return nil, err
		}
		if in, err = plan.NewFilter(in, cond); err != nil {
			return nil, errAt(sel.Where, "WHERE: %v", err)
		}
	}
	if sel, err = withGroupByOrdinals(sel); err != nil {
		return nil, err
	}
	var out plan.Node
	if hasWindow(sel.Items) && len(sel.GroupBy) == 0 && sel.Having == nil && !anyAggOutsideWindow(sel.Items) {
		out, err = planWindow(sel, in)
	} else if len(sel.GroupBy) > 0 || sel.Having != nil || anyAgg(sel.Items) {
		out, err = planAggregate(sel, in)
	} else {
		out, err = planProject(sel, in)
	}
	if err != nil {
		return nil, err
	}
	if sel.Distinct {
		if out, err = distinct(out); err != nil {
			return nil, errAt(sel, "DISTINCT: %v", err)
		}
	}
	return out, nil
}

func planFrom(sel *parser.Select, rel Relations) (plan.Node, error) {
	if sel.From == nil {
		schema := arrow.NewSchema(nil, nil)
		one := array.NewRecordBatch(schema, nil, 1)
		return &plan.LocalScan{Name: "OneRowRelation", Out: schema, Records: []arrow.RecordBatch{one}}, nil
	}
	return planRelation(sel.From, rel)
}

// planRelation plans a FROM relation. A table or subquery is named by its
// alias (a table by its name without one) so that i.adId tells the adId of
// i from the other side's in a join.
func planRelation(from parser.Relation, rel Relations) (plan.Node, error) {
	switch r := from.(type) {
	case *parser.TableRef:
		n, err := rel(r.Name)
		if err != nil {
			return nil, err // positioned by rel when the name is at fault
		}
		alias := r.Alias
		if alias == "" {
			alias = r.Name.Parts[len(r.Name.Parts)-1]
		}
		return plan.NewSubqueryAlias(n, alias), nil
	case *parser.SubqueryRef:
		n, err := PlanSelect(r.Query, rel)
		if err != nil {
			return nil, err
		}
		if plan.NeedsSubquery(n) {
			// The outer query may aggregate, sort or limit again.
			n = plan.NewSubquery(n)
		}
		if r.Alias != "" {
			return plan.NewSubqueryAlias(n, r.Alias), nil
		}
		return n, nil
	case *parser.Join:
		return planJoin(r, rel)
	case *parser.ValuesRef:
		return planValues(r)
	}
	return nil, errAt(from, "unsupported FROM relation %T", from)
}

var sqlJoinTypes = map[parser.JoinType]plan.JoinType{
	parser.InnerJoin: plan.InnerJoin, parser.LeftJoin: plan.LeftOuterJoin, parser.RightJoin: plan.RightOuterJoin,
	parser.FullJoin: plan.FullOuterJoin, parser.CrossJoin: plan.CrossJoin, parser.SemiJoin: plan.LeftSemiJoin,
	parser.AntiJoin: plan.LeftAntiJoin,
}

// planJoin plans Left JOIN Right ON cond / USING (cols) onto the Join node
// DataFrame.Join builds.
func planJoin(j *parser.Join, rel Relations) (plan.Node, error) {
	left, err := planRelation(j.Left, rel)
	if err != nil {
		return nil, err
	}
	right, err := planRelation(j.Right, rel)
	if err != nil {
		return nil, err
	}
	typ, ok := sqlJoinTypes[j.Type]
	if !ok {
		return nil, errAt(j, "%s JOIN is not supported", j.Type)
	}
	var n *plan.Join
	switch {
	case len(j.Using) > 0:
		n, err = plan.NewUsingJoin(left, right, typ, j.Using)
	case j.On != nil:
		cond, cerr := Expr(j.On)
		if cerr != nil {
			return nil, cerr
		}
		n, err = plan.NewJoin(left, right, typ, cond)
	default:
		n, err = plan.NewJoin(left, right, typ, nil)
	}
	if err != nil {
		at := parser.Node(j)
		if j.On != nil {
			at = j.On
		}
		return nil, errAt(at, "%s JOIN: %v", j.Type, err)
	}
	return n, nil
}

// ItemName is the column name Spark gives a select item: its alias, the
// last part of a column reference, or the expression's text (sum(x)).
func ItemName(it *parser.SelectItem) string {
	if it.Alias != "" {
		return it.Alias
	}
	if c, ok := it.Expr.(*parser.ColumnRef); ok {
		return c.Parts[len(c.Parts)-1]
	}
	if c, ok := it.Expr.(*parser.Call); ok {
		// Spark's analyzer replaces window(...) and session_window(...)
		// by an attribute named window / session_window (TimeWindowing,
		// SessionWindowing) before the item gets its name.
		switch n := strings.ToLower(c.Name); n {
		case "window", "session_window":
			return n
		}
	}
	return parser.NameWith(it.Expr, callName)
}

// callName names function calls inside a select item: the registry's
// functions by their definition; first, last, first_value, last_value and
// any_value without their ignoreNulls flag, string_agg and listagg with
// their default delimiter, array_agg as collect_list, as Spark names them.
func callName(name string, args []string) (string, bool) {
	switch name {
	case "first", "last", "first_value", "last_value", "any_value":
		if len(args) == 2 {
			return name + "(" + args[0] + ")", true
		}
	case "string_agg", "listagg":
		if len(args) == 1 {
			args = append(args, "NULL") // Spark names the default delimiter
		}
		return name + "(" + strings.Join(args, ", ") + ")", true
	case "array_agg":
		return "collect_list(" + strings.Join(args, ", ") + ")", true
	}
	if n, ok := sketchCallName(name, args); ok {
		return n, true
	}
	if n, ok := orderedAggName(name, args); ok {
		return n, true
	}
	return functions.ColumnName(name, args)
}

func named(e expr.Expr, it *parser.SelectItem) expr.Expr {
	if _, ok := it.Expr.(*parser.ColumnRef); ok && it.Alias == "" {
		return e
	}
	return &expr.Alias{Expr: e, Name: ItemName(it)}
}

func planProject(sel *parser.Select, in plan.Node) (plan.Node, error) {
	var es []expr.Expr
	for _, it := range sel.Items {
		if st, ok := it.Expr.(*parser.Star); ok {
			es = append(es, &expr.Star{Qualifier: strings.Join(st.Qualifier, ".")})
			continue
		}
		e, err := Expr(it.Expr)
		if err != nil {
			return nil, err
		}
		if g, ok := generatorItem(e, it); ok {
			es = append(es, g)
			continue
		}
		if _, err := e.Bind(in.Schema()); err != nil {
			return nil, errAt(it, "%v", err)
		}
		es = append(es, named(e, it))
	}
	if plan.HasGenerator(es) {
		return planGenerate(sel, in, es)
	}
	p, err := plan.NewProject(in, es)
	if err != nil {
		return nil, errAt(sel, "%v", err)
	}
	return p, nil
}

// planAggregate plans GROUP BY: every aggregate call of the select list
// and HAVING becomes a column __aN of one Aggregate node, every GROUP BY
// expression a key column __kN; the select list and HAVING are then
// evaluated over those columns.
func planAggregate(sel *parser.Select, in plan.Node) (plan.Node, error) {
	if keys, sets, ok, err := groupingSets(sel); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return planGroupingSets(sel, in, keys, sets)
	}
	return planAggregateSet(sel, in, nil)
}

// planAggregateSet is planAggregate for one grouping set gs of CUBE or
// ROLLUP (nil for a plain GROUP BY): the keys gs omits are NULL, and
// grouping(k)/grouping_id() are its constants.
func planAggregateSet(sel *parser.Select, in plan.Node, gs *groupingSet) (plan.Node, error) {
	keys := make([]expr.Expr, len(sel.GroupBy))
	for i, g := range sel.GroupBy {
		k, err := Expr(g)
		if err != nil {
			return nil, err
		}
		if _, err := k.Bind(in.Schema()); err != nil {
			return nil, errAt(g, "GROUP BY: %v", err)
		}
		if gs.omits(i) {
			k = &nullKey{key: k}
		}
		keys[i] = &expr.Alias{Expr: k, Name: fmt.Sprintf("__k%d", i)}
	}
	var aggs []*expr.AggFunc
	aggNames := map[string]string{}
	rw := func(e parser.Expr) (expr.Expr, bool, error) {
		for i, g := range sel.GroupBy {
			if sameExpr(e, g) {
				return expr.Col(fmt.Sprintf("__k%d", i)), true, nil
			}
		}
		if g, ok, err := groupingCall(e, sel.GroupBy, gs); ok || err != nil {
			return g, true, err
		}
		if _, ok := e.(*parser.Star); ok {
			return nil, true, errAt(e, "* is not allowed in an aggregation query; list the GROUP BY columns")
		}
		if a, ok, err := Agg(e, ""); ok || err != nil {
			if err != nil {
				return nil, true, err
			}
			text := e.SQL()
			name, seen := aggNames[text]
			if !seen {
				name = fmt.Sprintf("__a%d", len(aggs))
				aggNames[text] = name
				a.As = name
				if _, err := a.Bind(in.Schema()); err != nil {
					return nil, true, errAt(e, "%v", err)
				}
				aggs = append(aggs, a)
			}
			return expr.Col(name), true, nil
		}
		if c, ok := e.(*parser.ColumnRef); ok {
			if f, ok := timeWindowField(c, sel.GroupBy, func(i int) string { return fmt.Sprintf("__k%d", i) }); ok {
				return f, true, nil
			}
			return nil, true, errAt(e, "column %s must appear in GROUP BY or be inside an aggregate function such as max(%s)", c.SQL(), c.SQL())
		}
		return nil, false, nil
	}
	items := make([]expr.Expr, len(sel.Items))
	win := &windowCalls{cols: map[string]string{}, base: rw} // window functions over the groups
	for i, it := range sel.Items {
		e, err := win.item(it)
		if err != nil {
			return nil, err
		}
		items[i] = &expr.Alias{Expr: e, Name: windowItemName(it)}
	}
	var having expr.Expr
	if sel.Having != nil {
		var err error
		if having, err = ExprWith(sel.Having, rw); err != nil {
			return nil, err
		}
	}
	if len(aggs) == 0 {
		// GROUP BY without aggregates: a hidden count keeps Aggregate happy.
		aggs = append(aggs, &expr.AggFunc{Fn: "count", As: "__a0"})
	}
	var out plan.Node
	out, err := plan.NewAggregate(in, keys, aggs)
	if err != nil {
		return nil, errAt(sel, "GROUP BY: %v", err)
	}
	if having != nil {
		if out, err = plan.NewFilter(out, having); err != nil {
			return nil, errAt(sel.Having, "HAVING: %v", err)
		}
	}
	if len(win.funcs) > 0 {
		if out, err = plan.NewWindow(out, win.funcs); err != nil {
			return nil, errAt(sel, "%v", err)
		}
	}
	p, err := plan.NewProject(out, items)
	if err != nil {
		return nil, errAt(sel, "%v", err)
	}
	return p, nil
}

// sameExpr reports whether a and b are the same expression; column
// references compare by their last part, so GROUP BY t.country matches
// country in the select list.
func sameExpr(a, b parser.Expr) bool {
	ca, okA := a.(*parser.ColumnRef)
	cb, okB := b.(*parser.ColumnRef)
	if okA && okB {
		return strings.EqualFold(ca.Parts[len(ca.Parts)-1], cb.Parts[len(cb.Parts)-1])
	}
	return strings.EqualFold(a.SQL(), b.SQL())
}

func anyAgg(items []*parser.SelectItem) bool {
	for _, it := range items {
		if hasAgg(it.Expr) {
			return true
		}
	}
	return false
}

// hasAgg reports whether e holds an aggregate call.
func hasAgg(e parser.Expr) bool {
	found := false
	_, _ = ExprWith(e, func(x parser.Expr) (expr.Expr, bool, error) {
		if _, ok, _ := Agg(x, ""); ok {
			found = true
			return expr.Lit(nil), true, nil
		}
		return nil, false, nil
	})
	return found
}

// distinct keeps one row per distinct combination of all columns.
func distinct(in plan.Node) (plan.Node, error) {
	var keys []expr.Expr
	for _, f := range in.Schema().Fields() {
		keys = append(keys, &expr.ColumnRef{Parts: []string{f.Name}})
	}
	agg, err := plan.NewAggregate(in, keys, []*expr.AggFunc{{Fn: "count", As: "__distinct"}})
	if err != nil {
		return nil, err
	}
	return plan.NewProject(agg, keys)
}

func planOrder(sel *parser.Select, in plan.Node) (plan.Node, error) {
	keys := make([]plan.SortKey, len(sel.OrderBy))
	for i, o := range sel.OrderBy {
		if o.Nulls == parser.NullsLast && !o.Desc {
			return nil, errAt(o, "ASC NULLS LAST is not supported yet")
		}
		var e expr.Expr
		if n, ok := ordinal(o.Expr); ok {
			var err error
			if e, err = orderByOrdinal(o, n, in.Schema()); err != nil {
				return nil, err
			}
		}
		for _, it := range sel.Items {
			if e != nil {
				break
			}
			if _, star := it.Expr.(*parser.Star); !star && sameExpr(o.Expr, it.Expr) {
				e = &expr.ColumnRef{Parts: []string{ItemName(it)}}
				break
			}
		}
		if e == nil {
			var err error
			if e, err = Expr(o.Expr); err != nil {
				return nil, err
			}
		}
		if _, err := e.Bind(in.Schema()); err != nil {
			return nil, errAt(o, "ORDER BY: %v (order by columns of the select list)", err)
		}
		keys[i] = plan.SortKey{Expr: e, Descending: o.Desc, NullsFirst: o.Nulls == parser.NullsFirst}
	}
	s, err := plan.NewSort(in, keys)
	if err != nil {
		return nil, errAt(sel.OrderBy[0], "ORDER BY: %v", err)
	}
	return s, nil
}
