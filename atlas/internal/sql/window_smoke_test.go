package sql_test

import "testing"

func TestWindowSmoke(t *testing.T) {
	for _, q := range []string{
		"SELECT a, b, cume_dist() OVER (PARTITION BY a ORDER BY b) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT a, b, dense_rank(b) OVER (PARTITION BY a ORDER BY b) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT a, b, lag(b) OVER (PARTITION BY a ORDER BY b) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT a, b, lead(b, 1, 0) OVER (PARTITION BY a ORDER BY b) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT a, b, nth_value(b, 2) OVER (PARTITION BY a ORDER BY b) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT a, b, ntile(2) OVER (PARTITION BY a ORDER BY b) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT a, b, sum(b) OVER (PARTITION BY a ORDER BY b), count(*) OVER (), avg(b) OVER (ORDER BY b ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)",
		"SELECT *, min(b) OVER w AS m FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b) WINDOW w AS (ORDER BY b DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
	} {
		s, r, err := query(t, q)
		t.Logf("%s\n  %s\n  %s\n  %v", q, s, r, err)
	}
}
