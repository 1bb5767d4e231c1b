package functions_test

import (
	"strings"
	"testing"
)

// TestFromJSONInSQL: from_json is a SQL function too (selectExpr and
// spark.sql reach it, not only Column calls). Values are Spark's
// documented example ('{"a":1, "b":0.8}' with 'a INT, b DOUBLE' is
// {1, 0.8}), a malformed record is a struct of NULLs (PERMISSIVE, as
// since Spark 3.0), and a schema that
// is not a constant, or options, are refused by name.
func TestFromJSONInSQL(t *testing.T) {
	for _, c := range []struct{ query, typ, vals string }{
		{`SELECT from_json('{"a":1, "b":0.8}', 'a INT, b DOUBLE')`, "struct<a:int,b:double>", `{"a":1,"b":0.8}`},
		// Spark 3.0+: a malformed record is Row(null), not null.
		{`SELECT from_json('{"a" 1}', 'a INT')`, "struct<a:int>", `{"a":null}`},
	} {
		typ, vals, err := typed(t, c.query)
		if err != nil || !strings.EqualFold(strings.ReplaceAll(typ, " ", ""), c.typ) || strings.Join(vals, ",") != c.vals {
			t.Errorf("%s: %s %v (%v), want %s %s", c.query, typ, vals, err, c.typ, c.vals)
		}
	}
	for query, want := range map[string]string{
		`SELECT from_json('{}', 'a INT', 'FAILFAST')`: "INVALID_OPTIONS",
		`SELECT from_json('{}', concat('a ', 'INT'))`: "string constant",
	} {
		if _, _, err := typed(t, query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", query, err, want)
		}
	}
}
