package parser

import "testing"

// TestOperators: the shifts bind between + and & (Spark's
// valueExpression), DIV beside * and /, ! is NOT, x::type is a cast
// tighter than any prefix operator; >> inside a type still closes two
// brackets. Groupings written by hand from SqlBaseParser.g4.
func TestOperators(t *testing.T) {
	for in, want := range map[string]string{
		"2 << 1":                       "(2 << 1)",
		"a + 1 << 2 & b":               "(((a + 1) << 2) & b)",
		"4 >> 1 >>> 2":                 "((4 >> 1) >>> 2)",
		"a < b":                        "(a < b)",
		"3 div 2 * 4":                  "((3 div 2) * 4)",
		"1 + 7 DIV 2":                  "(1 + (7 div 2))",
		"! true":                       "(NOT true)",
		"!a AND b":                     "((NOT a) AND b)",
		"a != b":                       "(a <> b)",
		"'10' :: int":                  "CAST('10' AS int)",
		"-x::bigint":                   "(- CAST(x AS bigint))",
		"f(x)::string || 'a'":          "(CAST(f(x) AS string) || 'a')",
		"CAST(x AS ARRAY<ARRAY<INT>>)": "CAST(x AS array<array<int>>)",
	} {
		e := mustExpr(t, in)
		if got := e.SQL(); got != want {
			t.Errorf("ParseExpr(%q).SQL() = %s, want %s", in, got, want)
			continue
		}
		if again := mustExpr(t, e.SQL()); !sameTree(again, e) {
			t.Errorf("SQL() of %q does not parse back to the same tree: %s", in, dump(again))
		}
	}
	for _, in := range []string{"a < < b", "a > > b", "1 div", "x ::"} {
		if _, err := ParseExpr(in); err == nil {
			t.Errorf("ParseExpr(%q) succeeded, want a syntax error", in)
		}
	}
	// DIV not followed by an operand is an alias.
	st, err := Parse("SELECT x div FROM t")
	if err != nil {
		t.Fatalf("SELECT x div FROM t: %v", err)
	}
	if it := st.(*Select).Items[0]; it.Alias != "div" {
		t.Errorf("SELECT x div FROM t: alias %q, want div", it.Alias)
	}
}

// TestTimeLiteral: TIME 'hh:mm[:ss[.ffffff]]' parses to a TimeLiteral
// (refused later, by the planner) and prints back; a malformed one is a
// syntax error; time stays a column name elsewhere, and CURRENT_TIME is
// a call without parentheses, as CURRENT_DATE.
func TestTimeLiteral(t *testing.T) {
	e := mustExpr(t, "hour(TIME '6:30:45.887')")
	lit := e.(*Call).Args[0].(*Literal)
	if lit.Kind != TimeLiteral || lit.Value != "6:30:45.887" {
		t.Errorf("TIME literal = %s %v, want time 6:30:45.887", lit.Kind, lit.Value)
	}
	if got := e.SQL(); got != "hour(TIME '6:30:45.887')" {
		t.Errorf("SQL() = %s", got)
	}
	if again := mustExpr(t, e.SQL()); !sameTree(again, e) {
		t.Errorf("SQL() does not parse back to the same tree: %s", dump(again))
	}
	for _, bad := range []string{"TIME '25'", "TIME '12:3'", "TIME '12:30:00.1234567'"} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("ParseExpr(%q) succeeded, want invalid TIME literal", bad)
		}
	}
	if c, ok := mustExpr(t, "time + 1").(*Binary).L.(*ColumnRef); !ok || c.Parts[0] != "time" {
		t.Errorf("time + 1: %s, want the column time", dump(c))
	}
	if c, ok := mustExpr(t, "current_time").(*Call); !ok || c.Name != "current_time" {
		t.Errorf("current_time: %s, want a call", dump(c))
	}
}

// TestSpacedBinaryLiteral: X 'hex' with a blank is a binary literal as
// X'hex' is, an odd digit count padded with a leading 0 (X '0' is X'00').
func TestSpacedBinaryLiteral(t *testing.T) {
	for in, want := range map[string]string{"X '0'": "X'00'", "x 'FFFF'": "X'FFFF'", "X'1010'": "X'1010'"} {
		if got := mustExpr(t, in).SQL(); got != want {
			t.Errorf("ParseExpr(%q).SQL() = %s, want %s", in, got, want)
		}
	}
	if _, err := ParseExpr("X 'zz'"); err == nil {
		t.Errorf("X 'zz' parsed, want invalid binary literal")
	}
	if c, ok := mustExpr(t, "x + 1").(*Binary).L.(*ColumnRef); !ok || c.Parts[0] != "x" {
		t.Errorf("x + 1: %s, want the column x", dump(c))
	}
}
