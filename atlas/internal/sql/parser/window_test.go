package parser

import "testing"

func TestParseWindowCalls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t",
			"SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t"},
		{"SELECT sum(x) OVER (ORDER BY b DESC NULLS FIRST ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t",
			"SELECT sum(x) OVER (ORDER BY b DESC NULLS FIRST ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t"},
		{"SELECT count(*) OVER (RANGE UNBOUNDED PRECEDING), max(x) OVER () FROM t",
			"SELECT count(*) OVER (RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), max(x) OVER () FROM t"},
		{"SELECT lag(x, 2, 0) IGNORE NULLS OVER w, rank() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b)",
			"SELECT lag(x, 2, 0) IGNORE NULLS OVER (PARTITION BY a ORDER BY b), rank() OVER (PARTITION BY a ORDER BY b) FROM t"},
		{"SELECT first_value(x) OVER (ORDER BY b RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t window",
			"SELECT first_value(x) OVER (ORDER BY b RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t AS window"},
	} {
		s := mustParse(t, tc.in)
		if got := s.String(); got != tc.want {
			t.Errorf("%s\n got: %s\nwant: %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{
		"SELECT rank() OVER w FROM t",
		"SELECT rank() OVER (ORDER BY b ROWS BETWEEN 1 AND 2) FROM t",
		"SELECT rank() OVER v FROM t WINDOW w AS (ORDER BY b)",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
