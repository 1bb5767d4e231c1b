package functions_test

import "testing"

// TestFromJSONNested checks from_json with arrays, maps and options
// (the tree decoder) under Spark's PERMISSIVE rules, worked by hand: a
// value that does not fit nulls only its field (an array with one bad
// element is NULL as a whole), a malformed record is a struct of NULLs, a
// NULL input is NULL, a string field takes an object's compact JSON, and
// timestampFormat reads the documented dd/MM/yyyy example.
func TestFromJSONNested(t *testing.T) {
	for e, want := range map[string]string{
		`to_json(from_json('{"a":[1,2],"b":{"c":[{"d":"x"}]}}', 'a ARRAY<INT>, b STRUCT<c: ARRAY<STRUCT<d: STRING>>>'))`: `{"a":[1,2],"b":{"c":[{"d":"x"}]}}`,
		`to_json(from_json('{"a":[1,"x"],"b":2}', 'a ARRAY<INT>, b INT'))`:                                               `{"b":2}`,
		`to_json(from_json('{"a":[1', 'a ARRAY<INT>'))`:                                                                  `{}`,
		`to_json(from_json('[1]', 'a ARRAY<INT>'))`:                                                                      `{}`,
		`from_json(NULL, 'a ARRAY<INT>')`:                                                                                "NULL",
		`to_json(from_json('{"m":{"x":1,"y":null}}', 'm MAP<STRING, INT>'))`:                                             `{"m":{"x":1,"y":null}}`,
		`to_json(from_json('{"a":{"b": 1}, "n":[]}', 'a STRING, n ARRAY<INT>'))`:                                         `{"a":"{\"b\":1}","n":[]}`,
		`to_json(from_json('{"time":"26/08/2015"}', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy')))`:            `{"time":"2015-08-26T00:00:00.000Z"}`,
		`to_json(from_json('{"d":"08/26/2015","x":1.25}', 'd DATE, x DECIMAL(3,1)', map('dateFormat', 'MM/dd/yyyy')))`:   `{"d":"2015-08-26","x":1.3}`,
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
}
