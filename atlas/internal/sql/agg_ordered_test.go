package sql_test

import (
	"strings"
	"testing"
)

// TestOrderedAggregates checks mode, the exact percentiles and
// max_by/min_by against values computed by hand: nulls skipped, NULL (or
// [] for max_by with k) for no rows, ties broken as Spark breaks them, and
// percentiles interpolated at position (n-1)*p.
func TestOrderedAggregates(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		// mode: most frequent; ties by the smallest with ORDER BY x or
		// mode(x, true), by the largest with DESC.
		{"SELECT mode(col) FROM VALUES (1), (2), (2), (NULL), (NULL), (NULL) AS tab(col)", "mode(col):int32:true", "2"},
		{"SELECT mode(col) FROM VALUES (NULL), (NULL) AS tab(col)", "mode(col):null:true", "(null)"},
		{"SELECT mode(col) FROM VALUES (1) AS tab(col) WHERE col > 5", "mode(col):int32:true", "NULL"},
		// Spark's documented example: plain mode breaks the tie by its hash
		// map's order, which gives 0 here (the first seen would be -10).
		{"SELECT mode(col, false) FROM VALUES (-10), (0), (10) AS tab(col)", "mode(col):int32:true", "0"},
		{"SELECT mode(col, true) FROM VALUES (3), (1), (2), (3), (1) AS tab(col)", "mode() WITHIN GROUP (ORDER BY col DESC):int32:true", "1"},
		{"SELECT mode() WITHIN GROUP (ORDER BY col) FROM VALUES ('b'), ('a'), ('b'), ('a'), ('c') AS tab(col)", "mode() WITHIN GROUP (ORDER BY col DESC):utf8:true", "a"},
		{"SELECT mode() WITHIN GROUP (ORDER BY col DESC) FROM VALUES ('b'), ('a'), ('b'), ('a'), ('c') AS tab(col)", "mode() WITHIN GROUP (ORDER BY col):utf8:true", "b"},
		{"SELECT mode() WITHIN GROUP (ORDER BY col DESC) FROM VALUES (-1.5D), (2.5D), (-1.5D), (2.5D) AS tab(col)", "mode() WITHIN GROUP (ORDER BY col):float64:true", "2.5"},
		{"SELECT g, mode(v) FROM VALUES ('a', 1), ('a', 1), ('b', 7), ('a', 2) AS t(g, v) GROUP BY g ORDER BY g", "g:utf8:true mode(v):int32:true", "a,1|b,7"},
		// percentile: (n-1)*p = 3*0.5 = 1.5 between 2 and 3 (sorted 1,2,3,10).
		{"SELECT percentile(col, 0.5) FROM VALUES (10), (1), (3), (2), (NULL) AS tab(col)", "percentile(col, 0.5, 1):float64:true", "2.5"},
		{"SELECT percentile(col, array(0, 1, 0.25)) FROM VALUES (10), (1), (3), (2) AS tab(col)", "percentile(col, array(0, 1, 0.25), 1):list<item: float64, nullable>:true", "[1,10,1.75]"},
		// duplicates count: 1,1,1,5 at 0.5 is position 1.5, both 1.
		{"SELECT percentile(col, 0.5) FROM VALUES (1), (5), (1), (1) AS tab(col)", "percentile(col, 0.5, 1):float64:true", "1"},
		{"SELECT percentile(col, 0.5) FROM VALUES (1) AS tab(col) WHERE col > 1", "percentile(col, 0.5, 1):float64:true", "NULL"},
		{"SELECT median(col) FROM VALUES (1), (2), (4), (NULL) AS tab(col)", "median(col):float64:true", "2"},
		{"SELECT median(col) FROM VALUES (CAST(1.5 AS DECIMAL(3,1))), (CAST(2.5 AS DECIMAL(3,1))) AS tab(col)", "median(col):float64:true", "2"},
		{"SELECT median(col) FROM VALUES (INTERVAL '1' SECOND), (INTERVAL '2' SECOND) AS tab(col)", "median(col):duration[us]:true", "1500000us"},
		// percentile_cont DESC counts from the largest: 0.25 of 10,3,2,1 is 3 - 0.75 = 2.25... position 0.75 between 10 and 3.
		{"SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY col DESC) FROM VALUES (1), (2), (3), (10) AS tab(col)", "percentile_cont(0.25) WITHIN GROUP (ORDER BY col DESC):float64:true", "4.75"},
		{"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY col) FROM VALUES (1), (2), (3), (10) AS tab(col)", "percentile_disc(0.5) WITHIN GROUP (ORDER BY col):float64:true", "2"},
		{"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY col DESC) FROM VALUES (1), (2), (3), (10) AS tab(col)", "percentile_disc(0.5) WITHIN GROUP (ORDER BY col DESC):float64:true", "3"},
		// max_by/min_by: rows with a null ordering skipped; of equal orderings the later row.
		{"SELECT max_by(x, y), min_by(x, y) FROM VALUES ('a', 10), ('b', NULL), ('c', 20), ('d', 20), ('e', 10) AS tab(x, y)", "max_by(x, y):utf8:true min_by(x, y):utf8:true", "d,e"},
		{"SELECT max_by(x, y) FROM VALUES (NULL, 5), ('b', 1) AS tab(x, y)", "max_by(x, y):utf8:true", "NULL"},
		{"SELECT max_by(x, y) FROM VALUES ('a', NULL) AS tab(x, y)", "max_by(x, y):utf8:true", "NULL"},
		{"SELECT max_by(x, y, 3), min_by(x, y, 2) FROM VALUES (1, 'p'), (2, 'r'), (3, 'q'), (4, 's') AS tab(x, y)", "max_by(x, y, 3):list<item: int32, nullable>:true min_by(x, y, 2):list<item: int32, nullable>:true", "[4,2,3],[1,3]"},
		{"SELECT max_by(x, y, 2) FROM VALUES (1, 'p') AS tab(x, y) WHERE x > 1", "max_by(x, y, 2):list<item: int32, nullable>:true", "[]"},
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
		"SELECT percentile(col, 1.5) FROM VALUES (1) AS tab(col)":                                "between 0.0 and 1.0",
		"SELECT percentile(col, 0.5, 2) FROM VALUES (1) AS tab(col)":                             "frequency",
		"SELECT percentile_cont(0.5) FROM VALUES (1) AS tab(col)":                                "WITHIN_GROUP_MISSING",
		"SELECT mode() FROM VALUES (1) AS tab(col)":                                              "WITHIN GROUP",
		"SELECT max_by(x, y, 0) FROM VALUES (1, 2) AS tab(x, y)":                                 "VALUE_OUT_OF_RANGE",
		"SELECT sum(col) WITHIN GROUP (ORDER BY col) FROM VALUES (1) AS tab(col)":                "does not support WITHIN GROUP",
		"SELECT percentile(col, 0.5) FROM VALUES ('a') AS tab(col)":                              "numeric or interval",
		"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY a, b) FROM VALUES (1, 2) AS t(a, b)": "WRONG_NUM_ORDERINGS",
	} {
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", q, err, want)
		}
	}
}
