package engine_test

import (
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// A global aggregate (no GROUP BY) returns exactly one row even over no
// input rows, as in Spark (DataFrameAggregateSuite: "zero count", "zero
// sum", "zero average" over emptyTableData): count 0, count(DISTINCT) 0,
// approx_count_distinct 0, collect_list [], and NULL for sum, avg, min,
// max, first, stddev and percentile_approx. Atlas returned no row at all,
// so SELECT count(*) ... WHERE <nothing matches> had no answer and the
// client's Count() failed. A grouped aggregate over no rows stays empty.
func TestGlobalAggregateOverNoRowsIsOneRow(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.e")
	mustSQL(t, s, "CREATE TABLE lakehouse.e.t (k string, a int, d double) USING iceberg")
	empty := rowsOf(t, mustSQL(t, s, `SELECT count(*) AS n, count(a) AS na, count(DISTINCT k) AS nd, approx_count_distinct(a) AS acd,
		sum(a) AS s, avg(d) AS av, min(k) AS mn, max(d) AS mx, first(a) AS f, stddev(d) AS sd, size(collect_list(a)) AS cl
		FROM lakehouse.e.t`))
	want := engine.Row{"n": int64(0), "na": int64(0), "nd": int64(0), "acd": int64(0), "s": nil, "av": nil, "mn": nil, "mx": nil, "f": nil, "sd": nil, "cl": int64(0)}
	if len(empty) != 1 {
		t.Fatalf("global aggregate of an empty table: %d rows, want 1: %v", len(empty), empty)
	}
	for k, v := range want {
		if empty[0][k] != v {
			t.Errorf("%s = %v (%T), want %v", k, empty[0][k], empty[0][k], v)
		}
	}

	mustSQL(t, s, "INSERT INTO lakehouse.e.t VALUES ('x', 1, 1.5), ('y', 2, 2.5)")
	sameLines(t, "filtered to nothing", render(rowsOf(t, mustSQL(t, s, "SELECT count(*) AS n, sum(a) AS s FROM lakehouse.e.t WHERE k = 'none'")), "n", "s"),
		[]string{"n=0 s=<nil>"})
	sameLines(t, "expression over the aggregate", render(rowsOf(t, mustSQL(t, s, "SELECT count(*) + 1 AS n FROM lakehouse.e.t WHERE a > 10")), "n"),
		[]string{"n=1"})
	if got := rowsOf(t, mustSQL(t, s, "SELECT count(*) AS n FROM lakehouse.e.t WHERE a > 10 HAVING count(*) > 0")); len(got) != 0 {
		t.Fatalf("HAVING false: %v, want no row", got)
	}
	if got := rowsOf(t, mustSQL(t, s, "SELECT k, count(*) AS n FROM lakehouse.e.t WHERE a > 10 GROUP BY k")); len(got) != 0 {
		t.Fatalf("grouped aggregate over no rows: %v, want no row", got)
	}
	df := s.Table("lakehouse.e.t").Where(engine.Col("a").Gt(10)).GroupBy().Agg(engine.Count(engine.Lit(1)).Alias("n"))
	sameLines(t, "DataFrame groupBy().agg(count)", render(rowsOf(t, df), "n"), []string{"n=0"})
}
