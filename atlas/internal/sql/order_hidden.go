package sql

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// orderByHidden plans ORDER BY keys that name columns of the FROM clause
// the select list drops (SELECT name FROM t ORDER BY salary), as Spark's
// ResolveMissingReferences does: the keys are projected as hidden columns
// beside the select list, the rows sorted, and the hidden columns dropped.
// ok is false when the query is not a plain projection (DISTINCT, GROUP BY
// or a set operation, where Spark refuses such keys too) or no key is
// missing from out, the planned select list.
func orderByHidden(sel *parser.Select, rel Relations, out plan.Node) (plan.Node, bool, error) {
	if sel.Distinct || len(sel.SetOps) > 0 || len(sel.GroupBy) > 0 || sel.Having != nil || anyAgg(sel.Items) {
		return nil, false, nil
	}
	hidden := *sel
	hidden.Items = append([]*parser.SelectItem(nil), sel.Items...)
	hidden.OrderBy = make([]*parser.OrderItem, len(sel.OrderBy))
	missing := 0
	for i, o := range sel.OrderBy {
		hidden.OrderBy[i] = o
		if resolvesInOutput(sel, o, out) {
			continue
		}
		name := fmt.Sprintf("__order%d", i)
		hidden.Items = append(hidden.Items, &parser.SelectItem{Expr: o.Expr, Alias: name, At: o.At})
		k := *o
		k.Expr = &parser.ColumnRef{Parts: []string{name}, At: o.At}
		hidden.OrderBy[i] = &k
		missing++
	}
	if missing == 0 {
		return nil, false, nil
	}
	wide, err := planCore(&hidden, rel)
	if err != nil {
		return nil, true, err
	}
	sorted, err := planOrder(&hidden, wide)
	if err != nil {
		return nil, true, err
	}
	keep := make([]expr.Expr, out.Schema().NumFields())
	for i, f := range out.Schema().Fields() {
		keep[i] = &expr.ColumnRef{Parts: []string{f.Name}, Ordinal: i + 1}
	}
	// The sort runs as a subquery: the projection above it keeps its order.
	p, err := plan.NewProject(plan.NewSubquery(sorted), keep)
	if err != nil {
		return nil, true, errAt(sel.OrderBy[0], "ORDER BY: %v", err)
	}
	return p, true, nil
}

// resolvesInOutput reports whether the ORDER BY key o names the select
// list's output: by ordinal, as an item's expression, or bound to out.
func resolvesInOutput(sel *parser.Select, o *parser.OrderItem, out plan.Node) bool {
	if _, ok := ordinal(o.Expr); ok {
		return true
	}
	for _, it := range sel.Items {
		if _, star := it.Expr.(*parser.Star); !star && sameExpr(o.Expr, it.Expr) {
			return true
		}
	}
	e, err := Expr(o.Expr)
	if err != nil {
		return true // planOrder reports it
	}
	_, err = e.Bind(out.Schema())
	return err == nil
}
