package functions_test

import (
	"strings"
	"testing"
)

// TestCSVFunctions checks from_csv, to_csv and schema_of_csv against
// Spark's CSV defaults worked by hand: a field that does not convert, and
// a missing field, is NULL (PERMISSIVE); quotes protect delimiters; to_csv
// writes NULL as nothing, an empty string as "", quotes a value holding a
// delimiter and writes timestamps as yyyy-MM-dd'T'HH:mm:ss.SSSXXX;
// schema_of_csv infers INT, BIGINT, DECIMAL, DOUBLE, DATE, BOOLEAN and
// STRING, naming the columns _c0, _c1, ...
func TestCSVFunctions(t *testing.T) {
	for e, want := range map[string]string{
		`to_json(from_csv('1,abc', 'a INT, b STRING'))`:                                `{"a":1,"b":"abc"}`,
		`to_json(from_csv('x,2', 'a INT, b INT'))`:                                     `{"b":2}`,
		`to_json(from_csv('1', 'a INT, b INT'))`:                                       `{"a":1}`,
		`to_json(from_csv('"a,b",3', 's STRING, n INT'))`:                              `{"s":"a,b","n":3}`,
		`to_json(from_csv('1, 0.8,true', 'a INT, b DOUBLE, c BOOLEAN'))`:               `{"a":1,"b":0.8,"c":true}`,
		`to_json(from_csv('2015-08-26,1.25', 'd DATE, x DECIMAL(3,1)'))`:               `{"d":"2015-08-26","x":1.3}`,
		`to_json(from_csv('2015-08-26 10:00:00', 't TIMESTAMP'))`:                      `{"t":"2015-08-26T10:00:00.000Z"}`,
		`from_csv(NULL, 'a INT')`:                                                      "NULL",
		`to_csv(named_struct('a', 1, 'b', 'x,y', 'c', NULL, 'd', ''))`:                 `1,"x,y",,""`,
		`to_csv(named_struct('a', 'say "hi"', 'b', 2.5D))`:                             `"say \"hi\"",2.5`,
		`to_csv(named_struct('t', TIMESTAMP '2015-08-26 01:02:03'))`:                   "2015-08-26T01:02:03.000Z",
		`schema_of_csv('1,abc,2.5,,true,12345678901,2020-01-01,99999999999999999999')`: "STRUCT<_c0: INT, _c1: STRING, _c2: DOUBLE, _c3: STRING, _c4: BOOLEAN, _c5: BIGINT, _c6: DATE, _c7: DECIMAL(20,0)>",
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
	for e, want := range map[string]string{
		`to_csv(named_struct('a', array(1)))`: "UNSUPPORTED_INPUT_TYPE",
		`to_csv(1)`:                           "UNEXPECTED_INPUT_TYPE",
		`from_csv('1', concat('a INT'))`:      "NON_FOLDABLE_INPUT",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", e, err, want)
		}
	}
}
