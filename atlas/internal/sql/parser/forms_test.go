package parser

import (
	"strings"
	"testing"
)

// TestKeywordForms checks the keyword forms of calls against the calls
// Spark's AstBuilder makes of them (written by hand from SqlBaseParser.g4
// and AstBuilder.scala), and that the SQL printed parses back to the same
// tree.
func TestKeywordForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{"extract(YEAR FROM ts)", "extract('YEAR', ts)"},
		{"EXTRACT(doy FROM DATE '2019-08-12')", "extract('doy', DATE '2019-08-12')"},
		{"extract(seconds FROM interval 5 hours)", "extract('seconds', INTERVAL '5' HOUR)"},
		{"extract(`week` FROM a + b)", "extract('week', (a + b))"},
		{"extract('YEAR', ts)", "extract('YEAR', ts)"},
		{"trim(BOTH 'SL' FROM s)", "trim('SL', s)"},
		{"trim('SL' FROM s)", "trim('SL', s)"},
		{"trim(BOTH FROM s)", "trim(s)"},
		{"trim(LEADING FROM s)", "ltrim(s)"},
		{"trim(LEADING 'x' FROM s)", "ltrim('x', s)"},
		{"trim(TRAILING 'x' || 'y' FROM upper(s))", "rtrim(('x' || 'y'), upper(s))"},
		{"trim(s)", "trim(s)"},
		{"trim(both)", "trim(both)"},
		{"trim(leading, trailing)", "trim(leading, trailing)"},
		{"substring('Spark SQL' FROM 5 FOR 1)", "substring('Spark SQL', 5, 1)"},
		{"substr('Spark SQL' FROM -3)", "substring('Spark SQL', -3)"},
		{"substr(s, 2, 3)", "substr(s, 2, 3)"},
		{"overlay('Spark SQL' PLACING 'CORE' FROM 7)", "overlay('Spark SQL', 'CORE', 7)"},
		{"overlay(a PLACING b FROM 2 FOR 4)", "overlay(a, b, 2, 4)"},
		{"overlay(a, b, 2)", "overlay(a, b, 2)"},
		{"POSITION('bar' IN 'foobarbar')", "locate('bar', 'foobarbar')"},
		{"position(a || b IN c)", "locate((a || b), c)"},
		{"position('bar', s, 5)", "position('bar', s, 5)"},
	}
	for _, tc := range cases {
		e := mustExpr(t, tc.in)
		if got := e.SQL(); got != tc.want {
			t.Errorf("ParseExpr(%q).SQL() = %s, want %s", tc.in, got, tc.want)
			continue
		}
		if again := mustExpr(t, e.SQL()); !sameTree(again, e) {
			t.Errorf("SQL() of %q does not parse back to the same tree: %s", tc.in, dump(again))
		}
	}
	for _, in := range []string{
		"trim(BOTH 'x' s)",
		"overlay(a PLACING b)",
		"extract(YEAR FROM)",
		"substring(s FROM)",
	} {
		if _, err := ParseExpr(in); err == nil {
			t.Errorf("ParseExpr(%q) succeeded, want a syntax error", in)
		}
	}
}

// TestNamedArguments: name => value arguments keep their names, print
// back as written, and may not be followed by positional ones (Spark's
// UNEXPECTED_POSITIONAL_ARGUMENT).
func TestNamedArguments(t *testing.T) {
	for in, want := range map[string]string{
		"explode(collection => array(10, 20))": "explode(collection => array(10, 20))",
		"f(1, b => 2, `c d` => x + 1)":         "f(1, b => 2, `c d` => (x + 1))",
		"mask(s, upperChar => 'U')":            "mask(s, upperChar => 'U')",
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
	c := mustExpr(t, "f(1, b => 2)").(*Call)
	if len(c.ArgNames) != 2 || c.ArgNames[0] != "" || c.ArgNames[1] != "b" {
		t.Errorf("ArgNames = %q, want [\"\" \"b\"]", c.ArgNames)
	}
	if c := mustExpr(t, "f(1, 2)").(*Call); c.ArgNames != nil {
		t.Errorf("positional call has ArgNames %q", c.ArgNames)
	}
	if _, err := ParseExpr("f(a => 1, 2)"); err == nil || !strings.Contains(err.Error(), "UNEXPECTED_POSITIONAL_ARGUMENT") {
		t.Errorf("f(a => 1, 2): %v, want UNEXPECTED_POSITIONAL_ARGUMENT", err)
	}
}
