package functions_test

import (
	"strings"
	"testing"
)

// TestOperatorsAndConv: DIV, the shifts, ! and :: from SQL, and conv.
// Expected values are Spark's documented examples and hand arithmetic:
// DIV truncates toward zero (-7 div 2 = -3, 7.5 div 2 = 3); >>> of an INT
// shifts in zeros over 32 bits (-8 >>> 1 = 2^31 - 4); conv reads digits up
// to the first non-digit, and a negative number written in a positive
// base is its 64-bit two's complement.
func TestOperatorsAndConv(t *testing.T) {
	cases := []struct{ query, name, typ, val string }{
		{"SELECT 3 div 2", "(3 div 2)", "bigint", "1"},
		{"SELECT -7 div 2", "(-7 div 2)", "bigint", "-3"},
		{"SELECT 7.5 div 2", "(7.5 div 2)", "bigint", "3"},
		{"SELECT div(10, -3)", "(10 div -3)", "bigint", "-3"},
		{"SELECT 1 div NULL", "(1 div NULL)", "bigint", "(null)"},
		{"SELECT 2 << 1", "(2 << 1)", "int", "4"},
		{"SELECT 4 >> 1", "(4 >> 1)", "int", "2"},
		{"SELECT -8 >>> 1", "(-8 >>> 1)", "int", "2147483644"},
		{"SELECT ! true", "(NOT true)", "boolean", "false"},
		{"SELECT ! NULL", "(NOT NULL)", "boolean", "(null)"},
		{"SELECT '10' :: int", "CAST(10 AS INT)", "int", "10"},
		{"SELECT conv('100', 2, 10)", "conv(100, 2, 10)", "string", "4"},
		{"SELECT conv(-10, 16, -10)", "conv(-10, 16, -10)", "string", "-16"},
		{"SELECT conv('ff', 16, 10)", "", "string", "255"},
		{"SELECT conv('-1', 10, 16)", "", "string", "FFFFFFFFFFFFFFFF"},
		{"SELECT conv('12x9', 10, 10)", "", "string", "12"},
		{"SELECT conv('18446744073709551615', 10, 16)", "", "string", "FFFFFFFFFFFFFFFF"},
		{"SELECT conv('0', 10, 2)", "", "string", "0"},
		{"SELECT conv('5', 1, 10)", "", "string", "(null)"},
		{"SELECT conv('5', 10, 37)", "", "string", "(null)"},
		{"SELECT conv('', 10, 2)", "", "string", "(null)"},
	}
	for _, c := range cases {
		name, typ, rows, err := result(t, c.query)
		if err != nil || typ != c.typ || strings.Join(rows, ",") != c.val || (c.name != "" && name != c.name) {
			t.Errorf("%s: %q %s %v (%v), want %q %s %s", c.query, name, typ, rows, err, c.name, c.typ, c.val)
		}
	}
	for q, want := range map[string]string{
		"SELECT 1 div 0":                              "DIVIDE_BY_ZERO",
		"SELECT -9223372036854775808L div -1":         "ARITHMETIC_OVERFLOW",
		"SELECT conv('18446744073709551616', 10, 10)": "ARITHMETIC_OVERFLOW",
		"SELECT 1.5D div 1":                           "integral or decimal",
	} {
		if _, _, _, err := result(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
}

// TestNestedComparison: = and < over structs and arrays, as Spark's
// ordering of complex types (worked by hand): field by field, element by
// element then by length, a NULL inside equal to another NULL and before
// any value, NaN equal to NaN; a NULL operand gives NULL.
func TestNestedComparison(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT named_struct('a', 1, 'b', 2) = named_struct('a', 1, 'b', 2)":                                  "true",
		"SELECT named_struct('a', 1, 'b', 2) IN (named_struct('a', 1, 'b', 1), named_struct('a', 1, 'b', 3))": "false",
		"SELECT named_struct('a', 1, 'b', NULL) = named_struct('a', 1, 'b', NULL)":                            "true",
		"SELECT array(CAST(NULL AS INT), 5) < array(0, 1)":                                                    "true",
		"SELECT named_struct('a', CAST('NaN' AS DOUBLE)) = named_struct('a', CAST('NaN' AS DOUBLE))":          "true",
		"SELECT array(1, 2) < array(1, 3)":                                                                    "true",
		"SELECT array(1, 2) < array(1, 2, 0)":                                                                 "true",
		"SELECT array(1, NULL) = array(1, NULL)":                                                              "true",
		"SELECT array('b') > array('a', 'z')":                                                                 "true",
		"SELECT array(1) != array(1)":                                                                         "false",
		"SELECT CAST(NULL AS ARRAY<INT>) = array(1)":                                                          "(null)",
	} {
		_, typ, rows, err := result(t, q)
		if err != nil || typ != "boolean" || strings.Join(rows, ",") != want {
			t.Errorf("%s: %s %v (%v), want boolean %s", q, typ, rows, err, want)
		}
	}
}
