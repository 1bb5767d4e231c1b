package sql

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// generatorItem reports whether the select item it, converted to e, is a
// generator (explode, posexplode, inline, stack, ...), and returns it
// aliased only when the item has an alias: Spark names a generator's
// columns itself (col, pos, key and value, col0, ...), not after the call.
func generatorItem(e expr.Expr, it *parser.SelectItem) (expr.Expr, bool) {
	g, _, ok := expr.AsGenerator(e)
	if !ok {
		return nil, false
	}
	if it.Alias != "" {
		return &expr.Alias{Expr: g, Name: it.Alias}, true
	}
	return g, true
}

// planGenerate plans a select list holding a generator as a Generate
// node (one row per element, the other items repeated).
func planGenerate(sel *parser.Select, in plan.Node, es []expr.Expr) (plan.Node, error) {
	g, err := plan.NewGenerate(in, es)
	if err != nil {
		return nil, errAt(sel, "%v", err)
	}
	return g, nil
}
