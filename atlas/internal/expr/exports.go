package expr

import "github.com/apache/arrow-go/v18/arrow"

// CastBound converts a bound expression to t with the implicit casts
// Spark's type coercion inserts (the function registry coerces arguments
// with it). b itself is returned when it already has type t.
func CastBound(b Bound, t arrow.DataType) Bound { return castTo(b, t) }

// Named gives an expression the column name Spark derives for the call it
// stands for, when that differs from the expression's own rendering:
// if(c, a, b) evaluates as a CASE but Spark names it (IF(c, a, b)).
type Named struct {
	X    Expr
	Name string
}

func (n *Named) String() string { return n.Name }

// Bind binds the named expression.
func (n *Named) Bind(s *arrow.Schema) (Bound, error) { return n.X.Bind(s) }
