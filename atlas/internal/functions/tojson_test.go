package functions_test

import (
	"strings"
	"testing"
)

// TestToJSON checks to_json against Spark's JacksonGenerator output worked
// by hand: null struct fields left out (ignoreNullFields), nulls inside
// arrays kept, strings escaped, doubles as Java prints them, decimals with
// their scale, binaries in base64, dates as yyyy-MM-dd and timestamps as
// yyyy-MM-dd'T'HH:mm:ss.SSSXXX in the session time zone (UTC here).
func TestToJSON(t *testing.T) {
	for e, want := range map[string]string{
		`to_json(named_struct('a', 1, 'b', 2))`:                                `{"a":1,"b":2}`,
		`to_json(named_struct('a', 1, 'b', 'x"y'))`:                            `{"a":1,"b":"x\"y"}`,
		`to_json(named_struct('a', NULL, 'b', 2))`:                             `{"b":2}`,
		`to_json(array(1, NULL, 3))`:                                           `[1,null,3]`,
		`to_json(array(named_struct('a', array(1, 2))))`:                       `[{"a":[1,2]}]`,
		`to_json(named_struct('f', 1.5D, 'e', 1e10D))`:                         `{"f":1.5,"e":1.0E10}`,
		`to_json(named_struct('x', CAST(1.5 AS DECIMAL(3,2))))`:                `{"x":1.50}`,
		`to_json(named_struct('b', x'616263', 't', true))`:                     `{"b":"YWJj","t":true}`,
		`to_json(named_struct('d', DATE '2015-08-26'))`:                        `{"d":"2015-08-26"}`,
		`to_json(named_struct('t', TIMESTAMP '2015-08-26 01:02:03.5'))`:        `{"t":"2015-08-26T01:02:03.500Z"}`,
		`to_json(named_struct('t', to_timestamp('2015-08-26', 'yyyy-MM-dd')))`: `{"t":"2015-08-26T00:00:00.000Z"}`,
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
	if _, err := one(t, `to_json(1)`); err == nil || !strings.Contains(err.Error(), "INVALID_JSON_SCHEMA") {
		t.Errorf("to_json(1): %v, want INVALID_JSON_SCHEMA", err)
	}
}
