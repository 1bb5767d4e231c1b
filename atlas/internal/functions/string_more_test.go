package functions_test

import (
	"strings"
	"testing"
)

// TestStringMore checks encode/decode, unhex, elt, the UTF-8 functions,
// date_trunc, trunc and date_part on Spark's examples, and that BINARY
// arguments of lpad/rpad/substring/left keep their bytes (they were
// decoded as UTF-8 text, turning 0xAA into U+FFFD).
func TestStringMore(t *testing.T) {
	for e, want := range map[string]string{
		"decode(encode('abc', 'utf-8'), 'utf-8')":                                        "abc",
		"decode(unhex('537061726B2053514C'), 'UTF-8')":                                   "Spark SQL",
		"decode(2, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 'Non domestic')": "San Francisco",
		"decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle')":   "NULL",
		"decode(6, 1, 'Southlake', 2, 'San Francisco', 'Non domestic')":                  "Non domestic",
		"decode(null, 6, 'Spark', NULL, 'SQL', 4, 'rocks')":                              "SQL",
		"hex(unhex('aabb'))":                                        "AABB",
		"hex(unhex('abc'))":                                         "0ABC",
		"unhex('zz')":                                               "NULL",
		"elt(2, 'scala', 'java')":                                   "java",
		"elt(2, 'a', 1)":                                            "1",
		"is_valid_utf8(x'61C262')":                                  "false",
		"make_valid_utf8(x'61C262')":                                "a\uFFFDb",
		"try_validate_utf8(x'80')":                                  "NULL",
		"validate_utf8(x'61')":                                      "a",
		"hex(lpad(unhex('aabb'), 5, unhex('1122')))":                "112211AABB",
		"hex(rpad(unhex('aabb'), 5))":                               "AABB000000",
		"hex(substring(x'AABBCC', 2))":                              "BBCC",
		"hex(left(x'AABBCC', 1))":                                   "AA",
		"date_trunc('HOUR', '2015-03-05T09:32:05.359')":             "2015-03-05 09:00:00",
		"date_trunc('MILLISECOND', '2015-03-05T09:32:05.123456')":   "2015-03-05 09:32:05.123",
		"trunc('2019-08-04', 'week')":                               "2019-07-29",
		"trunc('2019-08-04', 'quarter')":                            "2019-07-01",
		"trunc('2019-08-04', 'hour')":                               "NULL",
		"date_part('YEAR', TIMESTAMP '2019-08-12 01:00:00.123456')": "2019",
		"date_part('doy', DATE'2019-08-12')":                        "224",
		"datepart('week', timestamp'2019-08-12 01:00:00.123456')":   "33",
	} {
		got, err := one(t, e)
		if err != nil {
			t.Errorf("SELECT %s: %v", e, err)
			continue
		}
		if strings.HasPrefix(got, "2015-03-05T") {
			got = strings.TrimSuffix(strings.Replace(got, "T", " ", 1), "Z")
		}
		if got != want {
			t.Errorf("SELECT %s = %q, Spark gives %q", e, got, want)
		}
	}
	for e, want := range map[string]string{
		"validate_utf8(x'80')":                 "INVALID_UTF8_STRING",
		"encode('é', 'US-ASCII')":              "MALFORMED_CHARACTER_CODING",
		"encode('a', 'UTF-16')":                "INVALID_PARAMETER_VALUE.CHARSET",
		"elt(3, 'a', 'b')":                     "INVALID_ARRAY_INDEX",
		"date_part('nope', DATE '2019-10-01')": "INVALID_EXTRACT_FIELD",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SELECT %s: got %v, want %s", e, err, want)
		}
	}
}
