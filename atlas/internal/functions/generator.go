package functions

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// generatorDefs are Spark's generators: explode, posexplode and inline,
// each with its _outer form, and stack. They are planned by the
// projection that selects them (expr.Explode); stack(n, ...) is inline
// over the n rows it lays out (stackRows).
func generatorDefs() []*Def {
	gen := func(name string, e expr.Explode) *Def {
		param := "collection"
		if e.Inline {
			param = "input"
		}
		return &Def{Name: name, Group: "generator", MinArgs: 1, MaxArgs: 1, Params: []string{param}, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			g := e
			g.X = a[0]
			return &g, nil
		}}
	}
	return []*Def{
		gen("explode", expr.Explode{}),
		gen("explode_outer", expr.Explode{Outer: true}),
		gen("posexplode", expr.Explode{Pos: true}),
		gen("posexplode_outer", expr.Explode{Pos: true, Outer: true}),
		gen("inline", expr.Explode{Inline: true}),
		gen("inline_outer", expr.Explode{Inline: true, Outer: true}),
		{Name: "stack", Group: "generator", MinArgs: 2, MaxArgs: -1, Build: stack},
	}
}
