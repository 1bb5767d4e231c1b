package functions_test

import (
	"strings"
	"testing"
)

// TestJSONAndCSVOptions checks the options map of to_json, to_csv,
// from_csv and schema_of_json, and to_json of maps, against Spark's
// documented examples and hand-worked cases: a map key that is a struct is
// written as its row text [1]; timestampFormat and dateFormat replace the
// default patterns; sortKeys orders fields by name; ignoreNullFields=false
// keeps null fields; options that are not string constants, and options
// Atlas does not know, are refused by name.
func TestJSONAndCSVOptions(t *testing.T) {
	for e, want := range map[string]string{
		`to_json(map('a', 1))`:                                                       `{"a":1}`,
		`to_json(array(map('a', 1)))`:                                                `[{"a":1}]`,
		`to_json(map(named_struct('a', 1), named_struct('b', 2)))`:                   `{"[1]":{"b":2}}`,
		`to_json(map('a', CAST(NULL AS INT)))`:                                       `{"a":null}`,
		`to_json(named_struct('b', 1, 'a', 2), map('sortKeys', 'true'))`:             `{"a":2,"b":1}`,
		`to_json(named_struct('a', NULL, 'b', 2), map('ignoreNullFields', 'false'))`: `{"a":null,"b":2}`,
		`to_json(named_struct('time', to_timestamp('2015-08-26', 'yyyy-MM-dd')), map('timestampFormat', 'dd/MM/yyyy'))`: `{"time":"26/08/2015"}`,
		`to_json(named_struct('d', DATE '2015-08-26'), map('dateFormat', 'MM/dd/yyyy'))`:                                `{"d":"08/26/2015"}`,
		`to_csv(named_struct('time', to_timestamp('2015-08-26', 'yyyy-MM-dd')), map('timestampFormat', 'dd/MM/yyyy'))`:  "26/08/2015",
		`to_json(from_csv('26/08/2015', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy')))`:                       `{"time":"2015-08-26T00:00:00.000Z"}`,
		`schema_of_json('[{"col":01}]', map('allowNumericLeadingZeros', 'true'))`:                                       "ARRAY<STRUCT<col: BIGINT>>",
	} {
		got, err := one(t, e)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", e, got, err, want)
		}
	}
	for e, want := range map[string]string{
		`to_json(named_struct('a', 1), map('pretty', 'true'))`:        "pretty",
		`to_json(named_struct('a', 1), map('sortKeys', concat('t')))`: "INVALID_OPTIONS",
		`schema_of_json('[{"col":01}]')`:                              "Malformed",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", e, err, want)
		}
	}
}
