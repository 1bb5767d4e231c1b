package sql_test

import (
	"strings"
	"testing"
)

// TestMoreAggregates checks the boolean, bitwise, counting, string and
// two-column aggregates on the examples of Spark's documentation (the
// values and column names Spark returns), NULL handling included.
func TestMoreAggregates(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		{"SELECT bool_and(col) FROM VALUES (NULL), (true), (true) AS tab(col)", "bool_and(col):bool:true", "true"},
		{"SELECT every(col) FROM VALUES (true), (false), (true) AS tab(col)", "every(col):bool:true", "false"},
		{"SELECT bool_or(col) FROM VALUES (false), (false), (NULL) AS tab(col)", "bool_or(col):bool:true", "false"},
		{"SELECT some(col) FROM VALUES (NULL), (true), (false) AS tab(col)", "some(col):bool:true", "true"},
		{"SELECT any(col) FROM VALUES (NULL), (NULL) AS tab(col)", "any(col):bool:true", "NULL"},
		{"SELECT bit_and(col) FROM VALUES (3), (5) AS tab(col)", "bit_and(col):int32:true", "1"},
		{"SELECT bit_or(col) FROM VALUES (3), (5) AS tab(col)", "bit_or(col):int32:true", "7"},
		{"SELECT bit_xor(col) FROM VALUES (3), (5), (NULL) AS tab(col)", "bit_xor(col):int32:true", "6"},
		{"SELECT count_if(col % 2 = 0) FROM VALUES (NULL), (0), (1), (2), (3) AS tab(col)", "count_if(((col % 2) = 0)):int64:false", "2"},
		{"SELECT count_if(col IS NULL) FROM VALUES (NULL), (0), (1), (2), (3) AS tab(col)", "count_if((col IS NULL)):int64:false", "1"},
		{"SELECT array_agg(col) FROM VALUES (1), (2), (1) AS tab(col)", "collect_list(col):list<item: int32, nullable>:true", "[1,2,1]"},
		{"SELECT listagg(col) FROM VALUES ('a'), (NULL), ('b') AS tab(col)", "listagg(col, NULL):utf8:true", "ab"},
		{"SELECT string_agg(col, ', ') FROM VALUES ('a'), ('b'), ('c') AS tab(col)", "string_agg(col, , ):utf8:true", "a, b, c"},
		{"SELECT listagg(DISTINCT col) FROM VALUES ('a'), ('a'), ('b') AS tab(col)", "listagg(DISTINCT col, NULL):utf8:true", "ab"},
		{"SELECT string_agg(col) FROM VALUES (NULL), (NULL) AS tab(col)", "string_agg(col, NULL):utf8:true", "NULL"},
		{"SELECT corr(c1, c2) FROM VALUES (3, 2), (3, 3), (6, 4) as tab(c1, c2)", "corr(c1, c2):float64:true", "0.8660254037844387"},
		{"SELECT covar_pop(c1, c2) FROM VALUES (1,1), (2,2), (3,3) AS tab(c1, c2)", "covar_pop(c1, c2):float64:true", "0.6666666666666666"},
		{"SELECT covar_samp(c1, c2) FROM VALUES (1,1), (2,2), (3,3) AS tab(c1, c2)", "covar_samp(c1, c2):float64:true", "1"},
		{"SELECT regr_count(y, x) FROM VALUES (1, 2), (2, null), (null, 3), (2, 4) AS tab(y, x)", "regr_count(y, x):int64:false", "2"},
		{"SELECT regr_avgy(y, x) FROM VALUES (1, 2), (2, null), (2, 3), (2, 4) AS tab(y, x)", "regr_avgy(y, x):float64:true", "1.6666666666666667"},
		{"SELECT regr_avgx(y, x) FROM VALUES (1, null) AS tab(y, x)", "regr_avgx(y, x):float64:true", "NULL"},
		{"SELECT regr_sxx(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x)", "regr_sxx(y, x):float64:true", "2.75"},
		{"SELECT regr_sxy(y, x) FROM VALUES (1, 2), (2, null), (2, 3), (2, 4) AS tab(y, x)", "regr_sxy(y, x):float64:true", "1"},
		{"SELECT regr_slope(y, x) FROM VALUES (1, 1), (2, null), (3, 3), (4, 4) AS tab(y, x)", "regr_slope(y, x):float64:true", "1"},
		{"SELECT regr_intercept(y, x) FROM VALUES (1, 1), (2, 2), (3, 3), (4, 4) AS tab(y, x)", "regr_intercept(y, x):float64:true", "0"},
		{"SELECT regr_r2(y, x) FROM VALUES (1, 2), (2, null), (null, 3), (2, 4) AS tab(y, x)", "regr_r2(y, x):float64:true", "1"},
		{"SELECT regr_slope(y, x) FROM VALUES (null, 1) AS tab(y, x)", "regr_slope(y, x):float64:true", "NULL"},
		{"SELECT skewness(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col)", "skewness(col):float64:true", "1.1135657469022011"},
		{"SELECT g, bit_or(v), count_if(v > 1) FROM VALUES ('a', 1), ('b', 2), ('a', 4) AS t(g, v) GROUP BY g ORDER BY g",
			"g:utf8:true bit_or(v):int32:true count_if((v > 1)):int64:false", "a,5,1|b,2,1"},
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
		"SELECT bool_and(col) FROM VALUES (1) AS tab(col)":            "needs a boolean",
		"SELECT bit_and(col) FROM VALUES (1.5D) AS tab(col)":          "needs an integer",
		"SELECT corr(a) FROM VALUES (1) AS tab(a)":                    "WRONG_NUM_ARGS",
		"SELECT bool_or(DISTINCT col) FROM VALUES (true) AS tab(col)": "DISTINCT",
	} {
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", q, err, want)
		}
	}
}

// TestStructAndRemainder: struct and named_struct build structs named as
// Spark names their fields, and % works on int (it failed on every INT
// operand: only bigint and double had a kernel).
func TestStructAndRemainder(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		{"SELECT named_struct('a', 1, 'b', 'x')", "named_struct(a, 1, b, x):struct<a: int32, b: utf8>:false", `{"a":1,"b":"x"}`},
		{"SELECT struct(a, 2) FROM VALUES (1) AS t(a)", "struct(a, 2):struct<a: int32, col2: int32>:false", `{"a":1,"col2":2}`},
		{"SELECT 7 % 3, -7 % 3, CAST(NULL AS INT) % 0", "(7 % 3):int32:true (-7 % 3):int32:true (CAST(NULL AS INT) % 0):int32:true", "1,-1,NULL"},
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
	// Under ANSI (Spark 4's default) a zero divisor fails the query.
	if _, _, err := query(t, "SELECT 7 % 0"); err == nil || !strings.Contains(err.Error(), "DIVIDE_BY_ZERO") {
		t.Errorf("7 %% 0: %v, want DIVIDE_BY_ZERO", err)
	}
}
