package parser

import (
	"testing"
)

// FuzzParseScript checks that no input makes the parser panic, and that
// every statement it accepts renders (String) to SQL that parses back to
// the same tree and renders the same way again.
func FuzzParseScript(f *testing.F) {
	for _, tc := range stmtCases {
		f.Add(tc.sql)
	}
	for _, s := range []string{
		"SELECT 'abc", "MERGE INTO t USING s ON a WHEN MATCHED UPDATE SET *", "/* x", "SELECT `a", "SELECT 1e", "CASE",
		"SELECT INTERVAL '1 hour 30 minutes' + TIMESTAMP '2026-11-30 10:00:00'", "SELECT - - - 1, ~~a, a--b\n, 'x' 'y'",
		"CREATE TABLE t (a struct<b: array<map<string, decimal(38, 10)>>>) USING iceberg", "SELECT 1.5BD, 2S, 3Y, 4F, 5D, .5e-3",
		"SELECT lag(x, 2) IGNORE NULLS OVER w, sum(y) OVER (PARTITION BY a ORDER BY b DESC NULLS LAST RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t WINDOW w AS (ORDER BY b ROWS 3 PRECEDING)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := ParseScript(sql)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T, want *Error: %v", err, err)
			}
			_ = err.Error()
			return
		}
		for _, s := range stmts {
			text := s.String()
			again, err := Parse(text)
			if err != nil {
				t.Fatalf("String() of a parsed statement does not parse: %v\ninput: %q\nString(): %s", err, sql, text)
			}
			if again.String() != text {
				t.Fatalf("String() is not stable\ninput: %q\nfirst: %s\nagain: %s", sql, text, again.String())
			}
			if !sameTree(again, s) {
				t.Fatalf("String() parses to another tree\ninput: %q\nString(): %s\n got: %s\nwant: %s", sql, text, dump(again), dump(s))
			}
		}
	})
}

// FuzzParseExpr checks ParseExpr never panics and that SQL() of an
// accepted expression parses back to the same tree and text.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"a OR b AND c", "NOT a = b", "-x * y", "a || b = c", "CASE x WHEN 1 THEN 2 END",
		"CAST(a AS decimal(10,2)) BETWEEN 1 AND 2", "x NOT IN (1, 2)", "count(DISTINCT x)", "- (5)", "t.`a``b`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpr(s)
		if err != nil {
			return
		}
		_ = e.String()
		text := e.SQL()
		again, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("SQL() does not parse: %v\ninput: %q\nSQL(): %s", err, s, text)
		}
		if again.SQL() != text {
			t.Fatalf("SQL() not stable\ninput: %q\nfirst: %s\nagain: %s", s, text, again.SQL())
		}
		if !sameTree(again, e) {
			t.Fatalf("SQL() parses to another tree\ninput: %q\nSQL(): %s", s, text)
		}
	})
}
