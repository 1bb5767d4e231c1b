package parser

import (
	"errors"
	"strings"
	"testing"
)

func TestSyntaxErrors(t *testing.T) {
	cases := []struct {
		name      string
		sql       string
		line, col int
		msg       string // exact message
		hint      string // substring of the hint ("" = no hint expected)
	}{
		{
			name: "call positional after named",
			sql:  "CALL system.rewrite_data_files(table => 't', 5)",
			line: 1, col: 46,
			msg:  "a positional argument follows a named one",
			hint: "name => value",
		},
		{
			name: "merge missing THEN after a condition",
			sql:  "MERGE INTO t USING s\nON t.id = s.id\nWHEN MATCHED AND s.x > 1 UPDATE SET *",
			line: 3, col: 26,
			msg:  "expected THEN after WHEN MATCHED condition, found 'UPDATE'",
			hint: "THEN UPDATE",
		},
		{
			name: "merge missing THEN",
			sql:  "MERGE INTO t USING s ON t.id = s.id\n  WHEN NOT MATCHED INSERT *",
			line: 2, col: 20,
			msg:  "expected THEN after WHEN NOT MATCHED, found 'INSERT'",
			hint: "WHEN NOT MATCHED [AND condition] THEN INSERT",
		},
		{
			name: "unterminated string names where it started",
			sql:  "SELECT a\nFROM t WHERE b = 'abc\nAND c = 1",
			line: 2, col: 18,
			msg:  "unterminated string literal: the ' opened at line 2, column 18 is never closed",
			hint: "close the string",
		},
		{
			name: "unknown statement keyword",
			sql:  "\n  SELCT * FROM t",
			line: 2, col: 3,
			msg:  "unknown statement starting with 'SELCT'",
			hint: "did you mean SELECT? supported statements: SELECT, CREATE TABLE",
		},
		{
			name: "unknown statement keyword far from any",
			sql:  "VACUUM t",
			line: 1, col: 1,
			msg:  "unknown statement starting with 'VACUUM'",
			hint: "supported statements: SELECT",
		},
		{
			name: "trailing comma in select list",
			sql:  "SELECT a,\n  b,\nFROM t",
			line: 3, col: 1,
			msg:  "expected an expression, found 'FROM'",
			hint: "remove the trailing comma before FROM",
		},
		{
			name: "unclosed call",
			sql:  "SELECT count(a\nFROM t",
			line: 2, col: 1,
			msg: "expected ')' to close the '(' of the arguments of count(...) at line 1, column 13, found 'FROM'",
		},
		{
			name: "missing comma between column definitions",
			sql:  "CREATE TABLE t (\n  id bigint\n  name string\n) USING iceberg",
			line: 3, col: 3,
			msg:  "expected ',' or ')' after the definition of column id, found 'name'",
			hint: "separate column definitions with ','",
		},
		{
			name: "reserved word as a column",
			sql:  "SELECT a,\n       order\nFROM t",
			line: 2, col: 8,
			msg:  "expected an expression, found 'order'",
			hint: "quote it in backticks",
		},
		{
			name: "insert in when matched",
			sql:  "MERGE INTO t USING s ON t.id = s.id\nWHEN MATCHED THEN INSERT *",
			line: 2, col: 19,
			msg:  "INSERT is not allowed in WHEN MATCHED",
			hint: "UPDATE SET ... or DELETE",
		},
		{
			name: "update set star by source",
			sql:  "MERGE INTO t USING s ON t.id = s.id\nWHEN NOT MATCHED BY SOURCE THEN UPDATE SET *",
			line: 2, col: 44,
			msg:  "UPDATE SET * is not allowed in WHEN NOT MATCHED BY SOURCE",
			hint: "no source row",
		},
		{
			name: "unconditional clause before another of its kind",
			sql:  "MERGE INTO t USING s ON t.id = s.id\nWHEN MATCHED THEN DELETE\nWHEN MATCHED AND s.x = 1 THEN UPDATE SET *",
			line: 2, col: 1,
			msg:  "only the last WHEN MATCHED clause may omit its condition",
			hint: "add AND condition",
		},
		{
			name: "merge missing ON",
			sql:  "MERGE INTO t USING s\nWHEN MATCHED THEN DELETE",
			line: 2, col: 1,
			msg:  "expected ON after the MERGE source, found 'WHEN'",
			hint: "ON t.key = s.key",
		},
		{
			name: "insert values count",
			sql:  "MERGE INTO t USING s ON t.id = s.id\nWHEN NOT MATCHED THEN INSERT (a, b) VALUES (s.a)",
			line: 2, col: 37,
			msg: "INSERT lists 2 columns but 1 values",
		},
		{
			name: "unknown partition transform",
			sql:  "CREATE TABLE t (a int) USING iceberg\nPARTITIONED BY (a, weeks(a))",
			line: 2, col: 20,
			msg:  "unknown partition transform weeks",
			hint: "bucket(n, col)",
		},
		{
			name: "create table without columns",
			sql:  "CREATE TABLE lakehouse.t USING iceberg",
			line: 1, col: 14,
			msg:  "CREATE TABLE lakehouse.t has no columns",
			hint: "list the columns",
		},
		{
			name: "or replace with if not exists",
			sql:  "CREATE OR REPLACE TABLE IF NOT EXISTS t (a int)",
			line: 1, col: 25,
			msg:  "OR REPLACE and IF NOT EXISTS cannot be used together",
			hint: "use either",
		},
		{
			name: "missing table name at end of input",
			sql:  "SELECT a FROM",
			line: 1, col: 14,
			msg: "expected a table name after FROM, found end of input",
		},
		{
			name: "unterminated comment",
			sql:  "SELECT 1 /* never\nclosed",
			line: 1, col: 10,
			msg:  "unterminated comment: the /* opened here is never closed",
			hint: "*/",
		},
		{
			name: "invalid timestamp literal",
			sql:  "SELECT TIMESTAMP '2026-13-01 10:00:00'",
			line: 1, col: 18,
			msg:  "invalid TIMESTAMP literal '2026-13-01 10:00:00'",
			hint: "yyyy-MM-dd HH:mm:ss",
		},
		{
			name: "interval mixing months and days",
			sql:  "SELECT ts + INTERVAL 1 MONTH 2 DAYS FROM t",
			line: 1, col: 13,
			msg:  "an interval literal mixing years or months with days or times (Spark's CALENDAR interval) is not supported",
			hint: "two intervals",
		},
		{
			name: "case without end",
			sql:  "SELECT CASE WHEN a THEN 1\nFROM t",
			line: 2, col: 1,
			msg: "expected END to close the CASE at line 1, column 8, found 'FROM'",
		},
		{
			name: "unexpected character",
			sql:  "SELECT a # b",
			line: 1, col: 10,
			msg:  "unexpected character '#'",
			hint: "comments start with --",
		},
		{
			name: "missing semicolon between statements in a script",
			sql:  "SELECT 1\nSELECT 2",
			line: 2, col: 1,
			msg:  "expected end of input after the statement, found 'SELECT'",
			hint: "ParseScript",
		},
		{
			name: "number running into a word",
			sql:  "SELECT 12abc",
			line: 1, col: 8,
			msg:  "invalid number 12abc",
			hint: "backticks",
		},
		{
			name: "bigint out of range",
			sql:  "SELECT 9223372036854775808L",
			line: 1, col: 8,
			msg: "number 9223372036854775808L is out of range for bigint",
		},
		{
			name: "except",
			sql:  "SELECT 1 EXCEPT SELECT 2",
			line: 1, col: 10,
			msg:  "set operation EXCEPT is not supported",
			hint: "UNION and UNION ALL",
		},
		{
			name: "common table expression without its query",
			sql:  "WITH x AS SELECT 1",
			line: 1, col: 11,
			msg: "expected ( before the query of the common table expression x, found 'SELECT'",
		},
		{
			name: "dangling operator",
			sql:  "SELECT a +\n",
			line: 1, col: 11,
			msg: "expected an expression, found end of input",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.sql)
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse(%q) = %v, want *Error", tc.sql, err)
			}
			if perr.Line != tc.line || perr.Col != tc.col {
				t.Errorf("error at line %d, column %d; want line %d, column %d\n%v", perr.Line, perr.Col, tc.line, tc.col, perr)
			}
			if perr.Msg != tc.msg {
				t.Errorf("message %q\n        want %q", perr.Msg, tc.msg)
			}
			if tc.hint == "" && perr.Hint != "" {
				t.Errorf("unexpected hint %q", perr.Hint)
			}
			if !strings.Contains(perr.Hint, tc.hint) {
				t.Errorf("hint %q does not contain %q", perr.Hint, tc.hint)
			}
			lines := strings.Split(tc.sql, "\n")
			srcLine := ""
			if tc.line <= len(lines) {
				srcLine = lines[tc.line-1]
			}
			if want := srcLine + "\n" + strings.Repeat(" ", tc.col-1) + "^"; perr.Snippet != want {
				t.Errorf("snippet\n%s\nwant\n%s", perr.Snippet, want)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	_, err := Parse("MERGE INTO t USING s\nON t.id = s.id\nWHEN MATCHED UPDATE SET *")
	want := "syntax error at line 3, column 14: expected THEN after WHEN MATCHED, found 'UPDATE'\n" +
		"WHEN MATCHED UPDATE SET *\n" +
		"             ^\n" +
		"hint: write WHEN MATCHED [AND condition] THEN UPDATE ..."
	if err == nil || err.Error() != want {
		t.Fatalf("error text:\n%v\nwant:\n%s", err, want)
	}
	// Tabs before the column are kept so the caret lines up.
	_, err = Parse("SELECT\ta,\tFROM t")
	if !strings.Contains(err.Error(), "SELECT\ta,\tFROM t\n      \t  \t^") {
		t.Fatalf("caret with tabs:\n%v", err)
	}
}

func TestParseExprErrors(t *testing.T) {
	_, err := ParseExpr("amount > 10 AS big")
	var perr *Error
	if !errors.As(err, &perr) || perr.Col != 13 || !strings.Contains(perr.Hint, "ParseSelectItem") {
		t.Fatalf("ParseExpr with alias: %v", err)
	}
	if _, err := ParseExpr(""); err == nil {
		t.Fatal("ParseExpr(\"\") succeeded")
	}
}

func TestTrailingCommaInColumnList(t *testing.T) {
	_, err := Parse("CREATE TABLE t (\n  a int,\n) USING iceberg")
	var perr *Error
	if !errors.As(err, &perr) || perr.Line != 3 || perr.Col != 1 || !strings.Contains(perr.Hint, "trailing comma") {
		t.Fatalf("trailing comma in column list: %v", err)
	}
}
