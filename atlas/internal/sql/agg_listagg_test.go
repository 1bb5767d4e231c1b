package sql_test

import (
	"strings"
	"testing"
)

// TestListAggWithinGroup checks listagg/string_agg WITHIN GROUP against
// orders written out by hand: by another column, null keys first for
// ASC and last for DESC unless written, equal keys in row order, DISTINCT,
// and Spark's names with the direction and null order spelled out.
func TestListAggWithinGroup(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		{"SELECT listagg(v, '-') WITHIN GROUP (ORDER BY k) FROM VALUES ('a', 3), ('b', NULL), ('c', 1), (NULL, 0), ('d', 1) AS t(v, k)",
			"listagg(v, -) WITHIN GROUP (ORDER BY k ASC NULLS FIRST):utf8:true", "b-c-d-a"},
		{"SELECT listagg(v, '-') WITHIN GROUP (ORDER BY k DESC) FROM VALUES ('a', 3), ('b', NULL), ('c', 1), ('d', 1) AS t(v, k)",
			"listagg(v, -) WITHIN GROUP (ORDER BY k DESC NULLS LAST):utf8:true", "a-c-d-b"},
		{"SELECT string_agg(v) WITHIN GROUP (ORDER BY k NULLS LAST) FROM VALUES ('a', 3), ('b', NULL), ('c', 1) AS t(v, k)",
			"listagg(v, NULL) WITHIN GROUP (ORDER BY k ASC NULLS LAST):utf8:true", "cab"},
		{"SELECT listagg(DISTINCT v) WITHIN GROUP (ORDER BY v DESC) FROM VALUES ('a'), ('c'), ('a'), ('b') AS t(v)",
			"listagg(DISTINCT v, NULL) WITHIN GROUP (ORDER BY v DESC NULLS LAST):utf8:true", "cba"},
		{"SELECT listagg(v) WITHIN GROUP (ORDER BY v) FROM VALUES (NULL), (NULL) AS t(v)",
			"listagg(v, NULL) WITHIN GROUP (ORDER BY v ASC NULLS FIRST):utf8:true", "NULL"},
		{"SELECT g, listagg(v) WITHIN GROUP (ORDER BY v DESC) FROM VALUES (1, 'x'), (2, 'p'), (1, 'z'), (1, 'y') AS t(g, v) GROUP BY g ORDER BY g",
			"g:int32:true listagg(v, NULL) WITHIN GROUP (ORDER BY v DESC NULLS LAST):utf8:true", "1,zyx|2,p"},
	} {
		schema, rows, err := query(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if schema != c.schema || rows != c.rows {
			t.Errorf("%s\n got  %s / %s\n want %s / %s", c.q, schema, rows, c.schema, c.rows)
		}
	}
	for q, want := range map[string]string{
		"SELECT listagg(DISTINCT v) WITHIN GROUP (ORDER BY k) FROM VALUES ('a', 1) AS t(v, k)": "MISMATCH_WITH_DISTINCT_INPUT",
		"SELECT listagg(v) WITHIN GROUP (ORDER BY k, v) FROM VALUES ('a', 1) AS t(v, k)":       "not supported yet",
		"SELECT collect_list(v) WITHIN GROUP (ORDER BY v) FROM VALUES ('a') AS t(v)":           "does not support WITHIN GROUP",
		"SELECT upper(v) WITHIN GROUP (ORDER BY v) FROM VALUES ('a') AS t(v)":                  "WITHIN GROUP",
	} {
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", q, err, want)
		}
	}
}
