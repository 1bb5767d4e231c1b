package parser

import (
	"errors"
	"strings"
	"testing"
)

// TestNestingBeyondTheLimitIsRefused feeds the parser text nested far
// deeper than its limit, in each way SQL nests: before the limit, 100,000
// parentheses overflowed the goroutine's stack, a fatal error that no
// recover catches and that took the whole server down.
func TestNestingBeyondTheLimitIsRefused(t *testing.T) {
	const n = 100_000
	cases := map[string]string{
		"parentheses":  "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n),
		"right-nested": "SELECT " + strings.Repeat("1+(", n) + "1" + strings.Repeat(")", n),
		"unary minus":  "SELECT " + strings.Repeat("- ", n) + "x FROM t",
		"NOT":          "SELECT 1 FROM t WHERE " + strings.Repeat("NOT ", n) + "a",
		"calls":        "SELECT " + strings.Repeat("abs(", n) + "1" + strings.Repeat(")", n),
		"subqueries":   strings.Repeat("SELECT * FROM (", n) + "SELECT 1" + strings.Repeat(")", n),
		"types":        "SELECT CAST(x AS " + strings.Repeat("array<", n) + "int" + strings.Repeat(">", n) + ")",
	}
	for what, sql := range cases {
		_, err := Parse(sql)
		var pe *Error
		if !errors.As(err, &pe) || pe.Class != "FAILED_TO_PARSE_TOO_COMPLEX" || pe.SQLState != "54001" {
			t.Errorf("%s: got %v, want FAILED_TO_PARSE_TOO_COMPLEX", what, err)
			continue
		}
		if !strings.Contains(pe.Hint, ConfMaxDepth) {
			t.Errorf("%s: the hint %q does not name the setting %s", what, pe.Hint, ConfMaxDepth)
		}
	}
}

// TestNestingWithinTheLimitParses checks the limit's edge: a depth of
// DefaultMaxDepth levels counted the parser's way parses, one more does
// not, and Options raise it.
func TestNestingWithinTheLimitParses(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	// ParseExpr opens one level for the whole expression, one per '('.
	if _, err := ParseExpr(nested(DefaultMaxDepth - 1)); err != nil {
		t.Fatalf("%d nested parentheses: %v", DefaultMaxDepth-1, err)
	}
	if _, err := ParseExpr(nested(DefaultMaxDepth)); err == nil {
		t.Fatalf("%d nested parentheses parsed, want FAILED_TO_PARSE_TOO_COMPLEX", DefaultMaxDepth)
	}
	if _, err := (Options{MaxDepth: 5000}).ParseExpr(nested(4000)); err != nil {
		t.Fatalf("MaxDepth 5000, 4000 parentheses: %v", err)
	}
	if _, err := (Options{MaxDepth: 10}).ParseExpr(nested(10)); err == nil {
		t.Fatal("MaxDepth 10, 10 parentheses parsed")
	}
}
