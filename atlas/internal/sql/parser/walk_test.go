package parser

import (
	"reflect"
	"testing"
)

func TestInspect(t *testing.T) {
	e := mustExpr(t, "CASE k WHEN 1 THEN sum(a) ELSE -b END + CAST(c AS int) BETWEEN d AND e OR f IN (g, h) AND i LIKE j AND x IS NULL")
	var cols []string
	calls := 0
	Inspect(e, func(e Expr) bool {
		switch e := e.(type) {
		case *ColumnRef:
			cols = append(cols, e.Parts[0])
		case *Call:
			calls++
		}
		return true
	})
	want := []string{"k", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "x"}
	if !reflect.DeepEqual(cols, want) || calls != 1 {
		t.Fatalf("columns %v (want %v), calls %d (want 1)", cols, want, calls)
	}
	// Returning false skips the children.
	var seen []string
	Inspect(mustExpr(t, "f(a) + b"), func(e Expr) bool {
		if c, ok := e.(*ColumnRef); ok {
			seen = append(seen, c.Parts[0])
		}
		_, isCall := e.(*Call)
		return !isCall
	})
	if !reflect.DeepEqual(seen, []string{"b"}) {
		t.Fatalf("with f's arguments skipped saw %v, want [b]", seen)
	}
}
