package parser

import "testing"

// TestLambdas checks lambda syntax: one parameter or several in
// parentheses, reserved words as parameters inside their lambda only,
// Spark's names (lambdafunction, namedlambdavariable) with nested and
// shadowing lambdas, SQL text that parses back to the same tree, the row
// constructor (a, b) and the errors.
func TestLambdas(t *testing.T) {
	cases := []struct{ in, name, sql string }{
		{"transform(a, x -> x + 1)", "transform(a, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))", "transform(a, x -> (x + 1))"},
		{"filter(a, (x, i) -> x > i)", "filter(a, lambdafunction((namedlambdavariable() > namedlambdavariable()), namedlambdavariable(), namedlambdavariable()))", "filter(a, (x, i) -> (x > i))"},
		{"f(a, x -> x + y)", "f(a, lambdafunction((namedlambdavariable() + y), namedlambdavariable()))", "f(a, x -> (x + y))"},
		{"f(a, (left, right) -> left < right)", "f(a, lambdafunction((namedlambdavariable() < namedlambdavariable()), namedlambdavariable(), namedlambdavariable()))", "f(a, (`left`, `right`) -> (`left` < `right`))"},
		{"f(a, x -> g(b, y -> x + y + z))", "f(a, lambdafunction(g(b, lambdafunction(((namedlambdavariable() + namedlambdavariable()) + z), namedlambdavariable())), namedlambdavariable()))", "f(a, x -> g(b, y -> ((x + y) + z)))"},
		{"(y, x)", "named_struct(y, y, x, x)", "named_struct('y', y, 'x', x)"},
		{"(1, 2)", "named_struct(col1, 1, col2, 2)", "named_struct('col1', 1, 'col2', 2)"},
		{"(x) + 1", "(x + 1)", "(x + 1)"},
		{"a - > b", "", ""},
	}
	for _, tc := range cases {
		if tc.name == "" {
			if _, err := ParseExpr(tc.in); err == nil {
				t.Errorf("ParseExpr(%q) parsed", tc.in)
			}
			continue
		}
		e := mustExpr(t, tc.in)
		if got := e.String(); got != tc.name {
			t.Errorf("ParseExpr(%q).String() = %s, want %s", tc.in, got, tc.name)
		}
		if got := e.SQL(); got != tc.sql {
			t.Errorf("ParseExpr(%q).SQL() = %s, want %s", tc.in, got, tc.sql)
		}
		back := mustExpr(t, e.SQL())
		if back.SQL() != e.SQL() {
			t.Errorf("%q does not parse back: %s", e.SQL(), back.SQL())
		}
	}
	for _, bad := range []string{"f(a, (x, X) -> x)", "left", "f(a, x -> 1) + left"} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("ParseExpr(%q) parsed", bad)
		}
	}
}
