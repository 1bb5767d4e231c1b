package parser

import (
	"strings"
	"testing"
)

// TestParseSet checks SET and RESET against the forms Spark's
// SparkSqlAstBuilder accepts (visitSetConfiguration,
// visitSetQuotedConfiguration, visitSetTimeZone, visitResetConfiguration).
func TestParseSet(t *testing.T) {
	cases := []struct {
		sql  string
		want Statement
	}{
		{"SET spark.sql.session.timeZone=America/Los_Angeles", &SetConfig{Key: "spark.sql.session.timeZone", Value: "America/Los_Angeles", HasValue: true}},
		{"set spark.sql.parser.escapedStringLiterals = true ;", &SetConfig{Key: "spark.sql.parser.escapedStringLiterals", Value: "true", HasValue: true}},
		{"SET a.b=  x y  ", &SetConfig{Key: "a.b", Value: "x y", HasValue: true}},
		{"SET a.b=", &SetConfig{Key: "a.b", Value: "", HasValue: true}},
		{"SET spark.sql.session.timeZone", &SetConfig{Key: "spark.sql.session.timeZone"}},
		{"SET", &SetConfig{}},
		{"SET -v", &SetConfig{Verbose: true}},
		{"SET `my key`=`a;b`", &SetConfig{Key: "my key", Value: "a;b", HasValue: true}},
		{"SET `my key`", &SetConfig{Key: "my key"}},
		{"SET TIME ZONE 'Europe/Amsterdam'", &SetConfig{Key: ConfSessionTimeZone, Value: "Europe/Amsterdam", HasValue: true}},
		{"RESET", &ResetConfig{}},
		{"RESET spark.sql.session.timeZone", &ResetConfig{Key: "spark.sql.session.timeZone"}},
		{"reset `a b`", &ResetConfig{Key: "a b"}},
	}
	for _, tc := range cases {
		got, err := Parse(tc.sql)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.sql, err)
			continue
		}
		if !sameTree(got, tc.want) {
			t.Errorf("Parse(%q)\n got: %s\nwant: %s", tc.sql, dump(got), dump(tc.want))
			continue
		}
		again, err := Parse(got.String())
		if err != nil || !sameTree(again, got) {
			t.Errorf("round trip of %q through %q: %v %s", tc.sql, got.String(), err, dump(again))
		}
	}
}

// TestParseSetErrors checks Spark's refusals.
func TestParseSetErrors(t *testing.T) {
	for sql, want := range map[string]string{
		"SET a b=c":           "INVALID_SET_SYNTAX",
		"SET a=b; SELECT 1":   "expected end of input",
		"SET TIME ZONE LOCAL": "SET TIME ZONE LOCAL and SET TIME ZONE INTERVAL are not supported",
		"RESET a b":           "RESET takes one setting's key",
	} {
		_, err := Parse(sql)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", sql, err, want)
		}
	}
	stmts, err := ParseScript("SET a=1; SET b=2")
	if err != nil || len(stmts) != 2 || stmts[1].(*SetConfig).Value != "2" {
		t.Fatalf("ParseScript of two SETs: %v %s", err, dump(stmts))
	}
}
