package functions_test

import (
	"strings"
	"testing"
)

// TestAbsAndTimeParts: abs (mathMoreDefs) keeps a number's type (a decimal too)
// and refuses the smallest INT (Spark's ANSI
// ARITHMETIC_OVERFLOW); hour, minute and second read a timestamp, or a
// string as one, in UTC. Expected values are Spark's documented examples
// and arithmetic done by hand.
func TestAbsAndTimeParts(t *testing.T) {
	cases := []struct{ query, typ, val string }{
		{"SELECT abs(-1)", "int", "1"},
		{"SELECT abs(CAST(-7 AS BIGINT))", "bigint", "7"},
		{"SELECT abs(2.5 - 4)", "decimal(3,1)", "1.5"}, // decimal(2,1) - decimal(1,0): (3,1)
		{"SELECT abs(2.5D - 4)", "double", "1.5"},
		{"SELECT abs(CAST(NULL AS INT))", "int", "(null)"},
		{"SELECT hour(TIMESTAMP '2009-07-30 12:58:59')", "int", "12"},
		{"SELECT minute(TIMESTAMP '2009-07-30 12:58:59')", "int", "58"},
		{"SELECT second('2009-07-30 12:58:59')", "int", "59"},
	}
	for _, c := range cases {
		typ, vals, err := typed(t, c.query)
		if err != nil || typ != c.typ || strings.Join(vals, ",") != c.val {
			t.Errorf("%s: %s %v (%v), want %s %s", c.query, typ, vals, err, c.typ, c.val)
		}
	}
	if _, _, err := typed(t, "SELECT abs(CAST(-2147483648 AS INT))"); err == nil || !strings.Contains(err.Error(), "ARITHMETIC_OVERFLOW") {
		t.Errorf("abs of the smallest INT: %v, want ARITHMETIC_OVERFLOW", err)
	}
}
