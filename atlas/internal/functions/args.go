package functions

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// fixed is a definition's arity shorthand: exactly n arguments.
func fixed(n int) (int, int) { return n, n }

// literal returns the value of a constant argument, or ok=false.
func literal(e expr.Expr) (any, bool) {
	for {
		switch x := e.(type) {
		case *expr.Literal:
			return x.Value, true
		case *expr.Named:
			e = x.X
		default:
			return nil, false
		}
	}
}

// stringLit returns argument i of fn, which must be a string literal.
func stringLit(fn string, args []expr.Expr, i int, what string) (string, error) {
	if v, ok := literal(args[i]); ok {
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] %s of %s must be a string literal, got %s", what, fn, args[i])
}

// intLit returns argument i of fn, which must be an integer literal.
func intLit(fn string, args []expr.Expr, i int, what string) (int64, error) {
	if v, ok := literal(args[i]); ok {
		switch n := v.(type) {
		case int64:
			return n, nil
		case int32:
			return int64(n), nil
		}
	}
	if b, ok := args[i].(*expr.Binary); ok && b.Unary {
		if n, err := intLit(fn, []expr.Expr{b.R}, 0, what); err == nil {
			return -n, nil
		}
	}
	return 0, fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] %s of %s must be an integer literal, got %s", what, fn, args[i])
}
