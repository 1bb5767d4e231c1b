package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Explode is Spark's explode(array) and explode_outer(array): a generator,
// one output row per element of the array, the other selected columns
// repeated. explode leaves out rows whose array is null or empty;
// explode_outer keeps them with a null element. A generator is planned as
// a Generate node by the projection that selects it (plan.NewGenerate);
// anywhere else it cannot be evaluated, and Bind says so.
type Explode struct {
	X     Expr
	Outer bool
}

func (e *Explode) String() string {
	if e.Outer {
		return "explode_outer(" + e.X.String() + ")"
	}
	return "explode(" + e.X.String() + ")"
}

// Bind refuses: a generator is only allowed as a top-level item of a
// projection, as in Spark.
func (e *Explode) Bind(*arrow.Schema) (Bound, error) {
	return nil, fmt.Errorf("[UNSUPPORTED_GENERATOR.OUTSIDE_SELECT] %s: a generator is only allowed as an item of Select (Select(Explode(Col(\"a\")).Alias(\"x\"))), not nested in an expression or outside Select", e)
}

// BindArray resolves the array the generator walks.
func (e *Explode) BindArray(s *arrow.Schema) (Bound, *arrow.ListType, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, nil, err
	}
	lt, ok := x.Type().(*arrow.ListType)
	if !ok {
		return nil, nil, fmt.Errorf("%s: the argument must be an array, got %s", e, types.Name(x.Type()))
	}
	return x, lt, nil
}

// AsGenerator reports whether e is a generator, alone or aliased, and the
// name of its output column: the alias, or Spark's default "col".
func AsGenerator(e Expr) (*Explode, string, bool) {
	name := "col"
	if a, ok := e.(*Alias); ok {
		e, name = a.Expr, a.Name
	}
	g, ok := e.(*Explode)
	return g, name, ok
}
