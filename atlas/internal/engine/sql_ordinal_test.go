package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// ORDER BY 2 and GROUP BY 1 name select-list columns by position in Spark
// (spark.sql.orderByOrdinal and spark.sql.groupByOrdinal, true by default
// in 3.5 and 4.x; SQL reference, "ORDER BY clause": "an ordinal position
// ... of the select list"). Atlas sorted by the constant 2, that is not at
// all, and returned the rows in file order. The expected order is written
// by hand from the inserted rows.
func TestSQLOrderByAndGroupByOrdinals(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.o")
	mustSQL(t, s, "CREATE TABLE lakehouse.o.sales (region string, amount int) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.o.sales VALUES ('b', 30), ('a', 10), ('c', NULL), ('a', 40), ('b', 20)")
	inOrder := func(q string, want ...string) {
		t.Helper()
		rows := rowsOf(t, mustSQL(t, s, q))
		got := make([]string, len(rows))
		for i, r := range rows {
			parts := []string{}
			for _, c := range []string{"region", "amount", "total"} {
				if v, ok := r[c]; ok {
					parts = append(parts, fmt.Sprintf("%v", v))
				}
			}
			got[i] = strings.Join(parts, " ")
		}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Fatalf("%s:\n got  %s\n want %s", q, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
	// ASC puts NULL first, DESC last (Spark's defaults).
	inOrder("SELECT region, amount FROM lakehouse.o.sales ORDER BY 2", "c <nil>", "a 10", "b 20", "b 30", "a 40")
	inOrder("SELECT region, amount FROM lakehouse.o.sales ORDER BY 2 DESC", "a 40", "b 30", "b 20", "a 10", "c <nil>")
	inOrder("SELECT region, amount FROM lakehouse.o.sales ORDER BY 1 DESC, 2", "c <nil>", "b 20", "b 30", "a 10", "a 40")
	inOrder("SELECT * FROM lakehouse.o.sales ORDER BY 2 DESC LIMIT 2", "a 40", "b 30")
	inOrder("SELECT region, sum(amount) AS total FROM lakehouse.o.sales GROUP BY 1 ORDER BY 2 DESC, 1", "a 50", "b 50", "c <nil>")

	for q, want := range map[string]string{
		"SELECT region FROM lakehouse.o.sales ORDER BY 2":           "ORDER_BY_POS_OUT_OF_RANGE",
		"SELECT region, count(*) FROM lakehouse.o.sales GROUP BY 2": "GROUP_BY_POS_AGGREGATE",
		"SELECT region, count(*) FROM lakehouse.o.sales GROUP BY 0": "GROUP_BY_POS_OUT_OF_RANGE",
	} {
		if _, err := s.SQL(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %s", q, err, want)
		}
	}
}
