package functions_test

import (
	"strings"
	"testing"
)

// TestToNumber checks to_number and try_to_number against Spark's
// documented examples and its format rules: the result is DECIMAL(digits
// in the format, digits after its point); 0 demands the digit, 9 allows
// it; S, MI and PR read a sign; an input that does not match is
// INVALID_FORMAT.MISMATCH_INPUT (NULL for try_to_number), and a malformed
// format is refused with its INVALID_FORMAT subclass.
func TestToNumber(t *testing.T) {
	for _, c := range []struct{ query, typ, vals string }{
		{`SELECT to_number('454', '999')`, "decimal(3,0)", "454"},
		{`SELECT to_number('454.00', '000.00')`, "decimal(5,2)", "454.00"},
		{`SELECT to_number('12,454', '99,999')`, "decimal(5,0)", "12454"},
		{`SELECT to_number('$78.12', '$99.99')`, "decimal(4,2)", "78.12"},
		{`SELECT to_number('12,454.8-', '99,999.9S')`, "decimal(6,1)", "-12454.8"},
		{`SELECT to_number('12,454.8-', '99g999d9s')`, "decimal(6,1)", "-12454.8"},
		{`SELECT to_number('<123>', '999PR')`, "decimal(3,0)", "-123"},
		{`SELECT to_number('-5', 'MI9')`, "decimal(1,0)", "-5"},
		{`SELECT to_number('1.5', '9.99')`, "decimal(3,2)", "1.50"},
		{`SELECT to_number(NULL, '999')`, "decimal(3,0)", "(null)"},
		{`SELECT try_to_number('1234', '999')`, "decimal(3,0)", "(null)"},
		{`SELECT try_to_number('45', '000')`, "decimal(3,0)", "(null)"},
		{`SELECT try_to_number('abc', '999')`, "decimal(3,0)", "(null)"},
		{`SELECT try_to_number('454', '999')`, "decimal(3,0)", "454"},
	} {
		typ, vals, err := typed(t, c.query)
		if err != nil || strings.ReplaceAll(typ, " ", "") != c.typ || strings.Join(vals, ",") != c.vals {
			t.Errorf("%s: %s %v (%v), want %s %s", c.query, typ, vals, err, c.typ, c.vals)
		}
	}
	for query, want := range map[string]string{
		`SELECT to_number('1234', '999')`:    "INVALID_FORMAT.MISMATCH_INPUT",
		`SELECT to_number('', '999')`:        "INVALID_FORMAT.MISMATCH_INPUT",
		`SELECT to_number('5', '')`:          "INVALID_FORMAT.EMPTY",
		`SELECT to_number('5', '$')`:         "INVALID_FORMAT.WRONG_NUM_DIGIT",
		`SELECT to_number('5', '9$')`:        "INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT",
		`SELECT to_number('5', '99.9.9')`:    "INVALID_FORMAT.WRONG_NUM_TOKEN",
		`SELECT to_number('5', '9,,9')`:      "INVALID_FORMAT.CONT_THOUSANDS_SEPS",
		`SELECT to_number('5', '9.9,9')`:     "INVALID_FORMAT.THOUSANDS_SEPS_MUST_BEFORE_DEC",
		`SELECT to_number('5', '9X')`:        "INVALID_FORMAT.UNEXPECTED_TOKEN",
		`SELECT to_number('5', concat('9'))`: "NON_FOLDABLE_INPUT",
	} {
		if _, _, err := typed(t, query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", query, err, want)
		}
	}
}

// TestToChar checks to_char and to_varchar: numbers with Spark's
// documented examples and rules (0 pads with zeros, 9 with spaces, digits
// that do not fit become #, S writes + or -, PR wraps a negative number in
// angle brackets and pads a positive one), dates through date_format and
// binaries as hex, base64 or UTF-8 text.
func TestToChar(t *testing.T) {
	for e, want := range map[string]string{
		`to_char(454, '999')`:                      "454",
		`to_char(454.00, '000D00')`:                "454.00",
		`to_char(12454, '99G999')`:                 "12,454",
		`to_char(78.12, '$99.99')`:                 "$78.12",
		`to_char(-12454.8, '99G999D9S')`:           "12,454.8-",
		`to_char(12454.8, '99G999D9S')`:            "12,454.8+",
		`to_char(5, '000')`:                        "005",
		`to_char(5, '999')`:                        "  5",
		`to_char(1234, '99')`:                      "##",
		`to_char(-12, '99PR')`:                     "<12>",
		`to_char(12, '99PR')`:                      "12  ",
		`to_char(-12, 'S99')`:                      "-12",
		`to_varchar(12, 'S99')`:                    "+12",
		`to_char(CAST(NULL AS INT), '99')`:         "NULL",
		`to_char(x'00ff', 'hex')`:                  "00FF",
		`to_char(x'537061726b2053514c', 'base64')`: "U3BhcmsgU1FM",
		`to_varchar(x'616263', 'utf-8')`:           "abc",
		`to_char(date'2016-04-08', 'yyyy-MM')`:     "2016-04",
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
	for e, want := range map[string]string{
		`to_char(5, 'abc')`:     "INVALID_FORMAT",
		`to_char(x'01', 'foo')`: "INVALID_PARAMETER_VALUE.BINARY_FORMAT",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", e, err, want)
		}
	}
}
