package sql_test

import "testing"

// TestTrySumAndTryAvg checks try_sum and try_avg against hand-computed
// values: NULL where sum and avg overflow (bigint and decimal), nulls
// skipped, NULL for no values, and Spark's DOUBLE for an untyped NULL
// column (sum and avg too).
func TestTrySumAndTryAvg(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		{"SELECT try_sum(col) FROM VALUES (5), (10), (15) AS tab(col)", "try_sum(col):int64:true", "30"},
		{"SELECT try_sum(col) FROM VALUES (9223372036854775807L), (1L) AS tab(col)", "try_sum(col):int64:true", "NULL"},
		// Once overflowed, a group stays NULL although the sum would fit again.
		{"SELECT try_sum(col) FROM VALUES (9223372036854775807L), (1L), (-5L) AS tab(col)", "try_sum(col):int64:true", "NULL"},
		{"SELECT try_sum(col) FROM VALUES (-9223372036854775807L), (-2L) AS tab(col)", "try_sum(col):int64:true", "NULL"},
		{"SELECT try_sum(col) FROM VALUES (NULL), (10), (15) AS tab(col)", "try_sum(col):int64:true", "25"},
		{"SELECT try_sum(col) FROM VALUES (NULL), (NULL) AS tab(col)", "try_sum(col):float64:true", "NULL"},
		{"SELECT try_sum(col) FROM VALUES (1.5D), (2.25D) AS tab(col)", "try_sum(col):float64:true", "3.75"},
		{"SELECT try_sum(col) FROM VALUES (1) AS tab(col) WHERE col > 1", "try_sum(col):int64:true", "NULL"},
		{"SELECT try_sum(col) FROM VALUES (CAST(9.5 AS DECIMAL(2,1))), (CAST(0.7 AS DECIMAL(2,1))) AS tab(col)", "try_sum(col):decimal(12, 1):true", "10.2"},
		{"SELECT try_sum(col) FROM VALUES (CAST(99999999999999999999999999999999999999 AS DECIMAL(38,0))), (CAST(1 AS DECIMAL(38,0))) AS tab(col)", "try_sum(col):decimal(38, 0):true", "NULL"},
		{"SELECT g, try_sum(v) FROM VALUES ('a', 9223372036854775807L), ('b', 1L), ('a', 1L), ('b', 2L) AS t(g, v) GROUP BY g ORDER BY g",
			"g:utf8:true try_sum(v):int64:true", "a,NULL|b,3"},
		{"SELECT try_avg(col) FROM VALUES (1), (2), (3) AS tab(col)", "try_avg(col):float64:true", "2"},
		{"SELECT try_avg(col) FROM VALUES (1), (2), (NULL) AS tab(col)", "try_avg(col):float64:true", "1.5"},
		{"SELECT try_avg(col) FROM VALUES (9223372036854775807L), (9223372036854775807L) AS tab(col)", "try_avg(col):float64:true", "9.223372036854776e+18"},
		{"SELECT try_avg(col) FROM VALUES (CAST(1.0 AS DECIMAL(2,1))), (CAST(2.0 AS DECIMAL(2,1))) AS tab(col)", "try_avg(col):decimal(6, 5):true", "1.5"},
		{"SELECT try_avg(col) FROM VALUES (CAST(99999999999999999999999999999999999999 AS DECIMAL(38,0))), (CAST(1 AS DECIMAL(38,0))) AS tab(col)", "try_avg(col):decimal(38, 4):true", "NULL"},
		{"SELECT try_avg(col) FROM VALUES (NULL), (NULL) AS tab(col)", "try_avg(col):float64:true", "NULL"},
		{"SELECT sum(col) FROM VALUES (NULL), (NULL) AS tab(col)", "sum(col):float64:true", "NULL"},
		{"SELECT avg(col) FROM VALUES (NULL), (NULL) AS tab(col)", "avg(col):float64:true", "NULL"},
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
}
