package functions_test

import (
	"strings"
	"testing"
)

// TestFormatString checks format_string and printf against Java's
// Formatter, worked by hand: width, justification, zero padding and
// grouping; %x of a negative INT in two's complement; %f rounding the
// shortest decimal digits half-up (0.125 to 0.13, 0.15 to 0.2); %g with
// six significant digits; %b of NULL false; explicit and relative
// argument indexes; and Java's exceptions for a wrong type or a missing
// argument.
func TestFormatString(t *testing.T) {
	for e, want := range map[string]string{
		`format_string('Hello World %d %s', 100, 'days')`: "Hello World 100 days",
		`printf('%s', 'x')`:                           "x",
		`format_string('%5d|%-5d|%05d', 42, 42, 42)`:  "   42|42   |00042",
		`format_string('%,d', 1234567)`:               "1,234,567",
		`format_string('%x %X %o', 255, 255, 8)`:      "ff FF 10",
		`format_string('%x', -1)`:                     "ffffffff",
		`format_string('%.2f', 0.125D)`:               "0.13",
		`format_string('%.1f', 0.15D)`:                "0.2",
		`format_string('%f', 1D)`:                     "1.000000",
		`format_string('%e', 12345.678D)`:             "1.234568e+04",
		`format_string('%g', 12345.678D)`:             "12345.7",
		`format_string('%10.3f|', 3.14159D)`:          "     3.142|",
		`format_string('%+d %(d', 5, -5)`:             "+5 (5)",
		`format_string('%s %s %s', NULL, true, 1.5D)`: "null true 1.5",
		`format_string('%b %b', NULL, 'x')`:           "false true",
		`format_string('%2$s %1$s', 'a', 'b')`:        "b a",
		`format_string('%s %<s', 'a')`:                "a a",
		`format_string('%.2s|%S', 'abc', 'abc')`:      "ab|ABC",
		`format_string('100%%')`:                      "100%",
		`format_string(NULL, 1)`:                      "NULL",
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
	for e, want := range map[string]string{
		`format_string('%d', 'x')`:  "IllegalFormatConversionException",
		`format_string('%d %d', 1)`: "MissingFormatArgumentException",
		`format_string('%q', 1)`:    "UnknownFormatConversionException",
		`format_string('%-d', 1)`:   "MissingFormatWidthException",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", e, err, want)
		}
	}
}

// TestFormatNumberAndToBinary checks format_number against Java's
// DecimalFormat (HALF_EVEN on the exact value: 0.125 to 0.12, the double
// 2.675, just below 2.675, to 2.67), its # patterns and a negative d
// (NULL); and to_binary / try_to_binary in their formats, malformed input
// and an unknown format failing (NULL for try_to_binary).
func TestFormatNumberAndToBinary(t *testing.T) {
	for e, want := range map[string]string{
		`format_number(12332.123456, 4)`:                        "12,332.1235",
		`format_number(12332.123456, '##################.###')`: "12332.123",
		`format_number(0.125D, 2)`:                              "0.12",
		`format_number(2.675D, 2)`:                              "2.67",
		`format_number(1234567, 0)`:                             "1,234,567",
		`format_number(CAST(1234.5 AS DECIMAL(5,1)), 0)`:        "1,234",
		`format_number(5, -1)`:                                  "NULL",
		`format_number(0.5D, '#.##')`:                           ".5",
		`format_number(0D, '#.##')`:                             "0",
		`format_number(-1234.5D, 1)`:                            "-1,234.5",
		`to_binary('abc', 'utf-8')`:                             "abc",
		`to_binary('616263')`:                                   "abc",
		`to_binary('YWJj', 'base64')`:                           "abc",
		`to_binary('YWI', 'BASE64')`:                            "ab",
		`try_to_binary('a!', 'base64')`:                         "NULL",
		`try_to_binary('zz', 'hex')`:                            "NULL",
		`try_to_binary('abc', 'invalidFormat')`:                 "NULL",
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
	for e, want := range map[string]string{
		`to_binary('a!', 'base64')`:         "CONVERSION_INVALID_INPUT",
		`to_binary('abc', 'invalidFormat')`: "INVALID_PARAMETER_VALUE",
		`format_number(1, '$#')`:            "format_number pattern",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", e, err, want)
		}
	}
}
