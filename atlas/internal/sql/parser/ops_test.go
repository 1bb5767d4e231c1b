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
