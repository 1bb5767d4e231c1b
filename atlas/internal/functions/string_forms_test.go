package functions_test

import (
	"strings"
	"testing"
)

// TestStringForms: the keyword forms TRIM(... FROM ...), OVERLAY(...
// PLACING ... FROM ... [FOR ...]), SUBSTRING(... FROM ... [FOR ...]) and
// POSITION(... IN ...) give Spark's values and column names. Expected
// values are Spark's documented examples and hand-worked edge cases: a
// NULL argument gives NULL; overlay at a position past the end appends;
// a negative FOR means the replacement's length; overlay of bytes stays
// binary.
func TestStringForms(t *testing.T) {
	cases := []struct{ query, name, typ, val string }{
		{"SELECT trim(BOTH 'SL' FROM 'SSparkSQLS')", "TRIM(BOTH SL FROM SSparkSQLS)", "string", "parkSQ"},
		{"SELECT trim('SL' FROM 'SSparkSQLS')", "TRIM(BOTH SL FROM SSparkSQLS)", "string", "parkSQ"},
		{"SELECT trim(LEADING 'SL' FROM 'SSparkSQLS')", "TRIM(LEADING SL FROM SSparkSQLS)", "string", "parkSQLS"},
		{"SELECT trim(TRAILING 'SL' FROM 'SSparkSQLS')", "TRIM(TRAILING SL FROM SSparkSQLS)", "string", "SSparkSQ"},
		{"SELECT trim(LEADING FROM '  a  ')", "ltrim(  a  )", "string", "a  "},
		{"SELECT trim(BOTH FROM '  a  ')", "trim(  a  )", "string", "a"},
		{"SELECT trim('xy', 'yxaxy')", "TRIM(BOTH xy FROM yxaxy)", "string", "a"},
		{"SELECT trim(BOTH NULL FROM 'a')", "TRIM(BOTH NULL FROM a)", "string", "(null)"},
		{"SELECT trim(BOTH '' FROM ' a ')", "TRIM(BOTH  FROM  a )", "string", " a "},
		{"SELECT overlay('Spark SQL' PLACING '_' FROM 6)", "overlay(Spark SQL, _, 6, -1)", "string", "Spark_SQL"},
		{"SELECT overlay('Spark SQL' PLACING 'ANSI ' FROM 7 FOR 0)", "overlay(Spark SQL, ANSI , 7, 0)", "string", "Spark ANSI SQL"},
		{"SELECT overlay('Spark SQL' PLACING 'tructured' FROM 2 FOR 4)", "overlay(Spark SQL, tructured, 2, 4)", "string", "Structured SQL"},
		{"SELECT overlay('abc' PLACING 'XY' FROM 10)", "", "string", "abcXY"},
		{"SELECT overlay('abcdef' PLACING 'X' FROM 2 FOR -5)", "", "string", "aXcdef"},
		{"SELECT overlay('abc' PLACING 'X' FROM 1 FOR 10)", "", "string", "X"},
		{"SELECT overlay('abc' PLACING NULL FROM 1)", "", "string", "(null)"},
		{"SELECT hex(overlay(X'0102' PLACING X'FF' FROM 2))", "", "string", "01FF"},
		{"SELECT substring('Spark SQL' FROM 5 FOR 1)", "substring(Spark SQL, 5, 1)", "string", "k"},
		{"SELECT substr('Spark SQL' FROM -3)", "substring(Spark SQL, -3, 2147483647)", "string", "SQL"},
		{"SELECT POSITION('bar' IN 'foobarbar')", "locate(bar, foobarbar, 1)", "int", "4"},
	}
	for _, c := range cases {
		name, typ, rows, err := result(t, c.query)
		if err != nil || typ != c.typ || strings.Join(rows, ",") != c.val || (c.name != "" && name != c.name) {
			t.Errorf("%s: %q %s %v (%v), want %q %s %s", c.query, name, typ, rows, err, c.name, c.typ, c.val)
		}
	}
}
