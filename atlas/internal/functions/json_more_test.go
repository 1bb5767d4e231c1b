package functions_test

import (
	"strings"
	"testing"
)

// TestJSONPathFunctions checks get_json_object, json_array_length and
// json_object_keys on hand-worked documents: Spark returns NULL for
// malformed JSON, an invalid path, a missing key, a JSON null and a NULL
// argument; a matched string comes without quotes (escapes decoded),
// objects and arrays as compact JSON with numbers re-printed from their
// values (2.50 as 2.5), and bytes after the first value are ignored.
func TestJSONPathFunctions(t *testing.T) {
	for e, want := range map[string]string{
		`get_json_object('{"a":"b"}', '$.a')`:                        "b",
		`get_json_object('{"a":"x\\"y"}', '$.a')`:                    `x"y`,
		`get_json_object('{"a":{"b":[1,2.50,"x"]}}', '$.a')`:         `{"b":[1,2.5,"x"]}`,
		`get_json_object('{"a":{"b":[1,2.50,"x"]}}', '$.a.b[1]')`:    "2.5",
		`get_json_object('{"a":{"b":[1,2.50,"x"]}}', '$.a.b[2]')`:    "x",
		`get_json_object('{"a":{"b":[1,2.50,"x"]}}', '$.a.b[3]')`:    "NULL",
		`get_json_object('{"a":{"b":[1,2.50,"x"]}}', '$.a.b[*]')`:    `[1,2.5,"x"]`,
		`get_json_object('{"a":{"b":[1,2.50,"x"]}}', "$['a'].b[0]")`: "1",
		`get_json_object('[{"a":1},{"b":2},{"a":3}]', '$[*].a')`:     "[1,3]",
		`get_json_object('{"a":"b"} trailing', '$.a')`:               "b",
		`get_json_object('{"a":null}', '$.a')`:                       "NULL",
		`get_json_object('{"a":"b"}', '$.c')`:                        "NULL",
		`get_json_object('{"a":"b"', '$.a')`:                         "NULL",
		`get_json_object('{"a":"b"}', 'a')`:                          "NULL",
		`get_json_object('{"a":"b"}', '$a')`:                         "NULL",
		`get_json_object('{"a":"b"}', NULL)`:                         "NULL",
		`get_json_object(NULL, '$.a')`:                               "NULL",
		`get_json_object('[1,2]', '$.a')`:                            "NULL",
		`get_json_object('{"a":1}', '$[0]')`:                         "NULL",
		`get_json_object('{"a":1}', '$')`:                            `{"a":1}`,
		`json_array_length('[]')`:                                    "0",
		`json_array_length('[1,[2,3],{"a":[4]}]')`:                   "3",
		`json_array_length('{"a":1}')`:                               "NULL",
		`json_array_length('')`:                                      "NULL",
		`json_array_length('[1,]')`:                                  "NULL",
		`json_array_length(NULL)`:                                    "NULL",
		`json_object_keys('[1]')`:                                    "NULL",
		`json_object_keys('{"a":1')`:                                 "NULL",
		`json_object_keys(NULL)`:                                     "NULL",
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
}

// TestJSONKeysAndSchemas checks json_object_keys (top-level keys in
// document order), schema_of_json against Spark's inference rules worked
// by hand (integers are BIGINT, floats DOUBLE, an integer past BIGINT a
// DECIMAL of its digits, fields sorted by name, nulls and empty strings
// STRING, empty structs dropped, incompatible types STRING), and from_json
// with a STRUCT<...> schema.
func TestJSONKeysAndSchemas(t *testing.T) {
	for _, c := range []struct{ query, typ, vals string }{
		{`SELECT json_object_keys('{"b":1,"a":{"c":2}}')`, "array<string>", `["b","a"]`},
		{`SELECT schema_of_json('{"b":[1,2.5],"a":"x","c":null,"d":{},"e":""}')`, "string", "STRUCT<a: STRING, b: ARRAY<DOUBLE>, c: STRING, e: STRING>"},
		{`SELECT schema_of_json('[1, "a"]')`, "string", "ARRAY<STRING>"},
		{`SELECT schema_of_json('[1, 12345678901234567890]')`, "string", "ARRAY<DECIMAL(20,0)>"},
		{`SELECT schema_of_json('[{"a":1},{"b":true},{"a":2.5}]')`, "string", "ARRAY<STRUCT<a: DOUBLE, b: BOOLEAN>>"},
		{`SELECT schema_of_json('{"x y":[]}')`, "string", "STRUCT<`x y`: ARRAY<STRING>>"},
		{`SELECT schema_of_json('{}')`, "string", "STRUCT<>"},
		{`SELECT from_json('{"a":1,"b":"x"}', 'STRUCT<a: INT, b: STRING>')`, "struct<a: int, b: string>", `{"a":1,"b":"x"}`},
	} {
		typ, vals, err := typed(t, c.query)
		if err != nil || typ != c.typ || strings.Join(vals, ",") != c.vals {
			t.Errorf("%s: %s %v (%v), want %s %s", c.query, typ, vals, err, c.typ, c.vals)
		}
	}
	for query, want := range map[string]string{
		`SELECT schema_of_json(concat('{', '}'))`: "NON_FOLDABLE_INPUT",
		`SELECT schema_of_json('{"a":')`:          "Malformed",
	} {
		if _, _, err := typed(t, query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", query, err, want)
		}
	}
}
