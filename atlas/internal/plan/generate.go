package plan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Generate is a projection with one generator among its items (Spark's
// Generate under a Project): Select(Col("a"), Explode(Col("xs")).Alias("x"))
// gives one row per element of xs, a repeated. Stateless, so it runs in
// streaming queries in every mode.
type Generate struct {
	In Node
	// Exprs are the projected expressions, stars expanded; Exprs[GenIndex]
	// is the generator (possibly aliased).
	Exprs    []expr.Expr
	GenIndex int
	Gen      *expr.Explode
	// GenFields are the generator's columns (pos and col, key and value,
	// a struct's fields ...): Out holds them in place of Exprs[GenIndex].
	GenFields int
	Out       *arrow.Schema
}

// HasGenerator reports whether a projection list holds a generator.
func HasGenerator(exprs []expr.Expr) bool {
	for _, e := range exprs {
		if _, _, ok := expr.AsGenerator(e); ok {
			return true
		}
	}
	return false
}

// NewGenerate resolves a projection list holding exactly one generator.
func NewGenerate(in Node, exprs []expr.Expr) (*Generate, error) {
	g := &Generate{In: in, GenIndex: -1}
	var fields []arrow.Field
	var gens []string
	for _, e := range exprs {
		list := []expr.Expr{e}
		if st, ok := e.(*expr.Star); ok {
			var err error
			if list, err = st.Expand(in.Schema()); err != nil {
				return nil, err
			}
		}
		for _, x := range list {
			if gen, alias, ok := expr.AsGenerator(x); ok {
				arr, err := gen.BindArray(in.Schema())
				if err != nil {
					return nil, err
				}
				gf, err := gen.Fields(arr.Type(), alias)
				if err != nil {
					return nil, err
				}
				gens = append(gens, gen.String())
				g.GenIndex, g.Gen, g.GenFields = len(g.Exprs), gen, len(gf)
				g.Exprs = append(g.Exprs, x)
				fields = append(fields, gf...)
				continue
			}
			b, err := x.Bind(in.Schema())
			if err != nil {
				return nil, err
			}
			g.Exprs = append(g.Exprs, x)
			fields = append(fields, arrow.Field{Name: expr.OutputName(x), Type: b.Type(), Nullable: b.Nullable()})
		}
	}
	if len(gens) != 1 {
		return nil, fmt.Errorf("[UNSUPPORTED_GENERATOR.MULTI_GENERATOR] only one generator allowed per select clause but found %d: %s", len(gens), strings.Join(gens, ", "))
	}
	g.Out = arrow.NewSchema(fields, nil)
	return g, nil
}

// Bind resolves, for one execution, the generator's array and the other
// items (nil at GenIndex).
func (g *Generate) Bind() (expr.Bound, []expr.Bound, error) {
	arr, err := g.Gen.BindArray(g.In.Schema())
	if err != nil {
		return nil, nil, err
	}
	others := make([]expr.Bound, len(g.Exprs))
	for i, e := range g.Exprs {
		if i == g.GenIndex {
			continue
		}
		if others[i], err = e.Bind(g.In.Schema()); err != nil {
			return nil, nil, err
		}
	}
	return arr, others, nil
}

func (g *Generate) Schema() *arrow.Schema { return g.Out }
func (g *Generate) Input() Node           { return g.In }
func (g *Generate) IsStreaming() bool     { return g.In.IsStreaming() }
func (g *Generate) Describe() string {
	return "Generate " + g.Gen.String() + ", [" + exprList(g.Exprs) + "]"
}
