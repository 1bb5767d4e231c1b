package parser

// Inspect walks the expression tree rooted at e depth-first, calling f for
// each expression before its children; when f returns false the children of
// that expression are skipped. The children of a Case are its Operand, then
// each arm's condition and result, then Else.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch e := e.(type) {
	case *Binary:
		Inspect(e.L, f)
		Inspect(e.R, f)
	case *Unary:
		Inspect(e.X, f)
	case *IsNull:
		Inspect(e.X, f)
	case *In:
		Inspect(e.X, f)
		for _, x := range e.List {
			Inspect(x, f)
		}
	case *Between:
		Inspect(e.X, f)
		Inspect(e.Low, f)
		Inspect(e.High, f)
	case *Like:
		Inspect(e.X, f)
		Inspect(e.Pattern, f)
		Inspect(e.Escape, f)
	case *Cast:
		Inspect(e.X, f)
	case *Case:
		Inspect(e.Operand, f)
		for _, w := range e.Whens {
			Inspect(w.Cond, f)
			Inspect(w.Result, f)
		}
		Inspect(e.Else, f)
	case *Lambda:
		Inspect(e.Body, f)
	case *Call:
		for _, a := range e.Args {
			Inspect(a, f)
		}
		for _, o := range e.WithinGroup {
			Inspect(o.Expr, f)
		}
		if e.Over != nil {
			for _, x := range e.Over.PartitionBy {
				Inspect(x, f)
			}
			for _, o := range e.Over.OrderBy {
				Inspect(o.Expr, f)
			}
		}
	}
}
