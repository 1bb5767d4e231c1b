package engine_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// orders is the table the set-operation tests query, with a Go copy of its
// rows to compute references from.
type orderRow struct {
	id       int64
	country  string
	qty      int64
	category any // string or nil
}

var orderRows = []orderRow{
	{1, "RW", 3, "books"}, {2, "RW", 1, "food"}, {3, "KE", 7, "books"}, {4, "KE", 2, nil},
	{5, "UG", 5, "food"}, {6, "RW", 3, "books"}, {7, "UG", 1, "toys"}, {8, "KE", 7, "books"},
}

func ordersSession(t *testing.T) *engine.Session {
	t.Helper()
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.silver")
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.orders (id bigint, country string, qty int, category string) USING iceberg")
	var vals []string
	for _, r := range orderRows {
		cat := "NULL"
		if r.category != nil {
			cat = "'" + r.category.(string) + "'"
		}
		vals = append(vals, fmt.Sprintf("(%d, '%s', %d, %s)", r.id, r.country, r.qty, cat))
	}
	mustSQL(t, s, "INSERT INTO lakehouse.silver.orders VALUES "+strings.Join(vals, ", "))
	return s
}

func lines(t *testing.T, df *engine.DataFrame, cols ...string) []string {
	t.Helper()
	return render(rowsOf(t, df), cols...)
}

func TestSQLUnionAllUnionAndDistinct(t *testing.T) {
	s := ordersSession(t)

	// UNION ALL keeps duplicates; the second branch's int widens to bigint.
	var want []string
	for _, r := range orderRows {
		if r.country == "RW" {
			want = append(want, fmt.Sprintf("k=%d", r.id))
		}
	}
	for _, r := range orderRows {
		if r.qty > 4 {
			want = append(want, fmt.Sprintf("k=%d", r.qty))
		}
	}
	sameLines(t, "union all", lines(t, mustSQL(t, s, `SELECT id AS k FROM lakehouse.silver.orders WHERE country = 'RW'
		UNION ALL SELECT qty FROM lakehouse.silver.orders WHERE qty > 4`), "k"), want)

	explain := mustSQL(t, s, "SELECT id AS k FROM lakehouse.silver.orders UNION ALL SELECT qty FROM lakehouse.silver.orders").ExplainString()
	if !strings.Contains(explain, "Union [k]\n:- Project [id AS k]") || !strings.Contains(explain, "\n+- Project [qty]") {
		t.Errorf("explain of a union:\n%s", explain)
	}

	// UNION (= UNION DISTINCT) and SELECT DISTINCT drop duplicate rows.
	set := map[string]bool{}
	for _, r := range orderRows {
		set[fmt.Sprintf("country=%s qty=%d", r.country, r.qty)] = true
	}
	want = want[:0]
	for k := range set {
		want = append(want, k)
	}
	sameLines(t, "select distinct", lines(t, mustSQL(t, s, "SELECT DISTINCT country, qty FROM lakehouse.silver.orders"), "country", "qty"), want)
	sameLines(t, "union", lines(t, mustSQL(t, s, `SELECT country, qty FROM lakehouse.silver.orders WHERE id <= 4
		UNION SELECT country, qty FROM lakehouse.silver.orders WHERE id > 4`), "country", "qty"), want)

	// ORDER BY and LIMIT after a union apply to the whole union.
	var qs []int64
	for _, r := range orderRows {
		qs = append(qs, r.qty, r.id)
	}
	sort.Slice(qs, func(a, b int) bool { return qs[a] > qs[b] })
	rows := rowsOf(t, mustSQL(t, s, `SELECT qty AS n FROM lakehouse.silver.orders UNION ALL
		SELECT id FROM lakehouse.silver.orders ORDER BY n DESC LIMIT 3`))
	var got []int64
	for _, r := range rows {
		got = append(got, r["n"].(int64))
	}
	if fmt.Sprint(got) != fmt.Sprint(qs[:3]) {
		t.Errorf("union order by limit: %v, want %v", got, qs[:3])
	}

	for q, want := range map[string]string{
		"SELECT id, qty FROM lakehouse.silver.orders UNION ALL SELECT id FROM lakehouse.silver.orders": "[NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs with the same number of columns, but the first input has 2 columns and the second input has 1 columns",
		"SELECT 1 EXCEPT SELECT 2":                              "set operation EXCEPT is not supported",
		"SELECT array(1) AS a UNION ALL SELECT 1":               "[INCOMPATIBLE_COLUMN_TYPE]",
		"WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a": "[DUPLICATED_CTE_NAMES]",
	} {
		if got := runErr(t, s, q); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want it to contain %q", q, got, want)
		}
	}
}

// WITH, subqueries in FROM that aggregate under an outer aggregation, and
// CASE over table columns, against Go computations over orderRows.
func TestSQLWithSubqueriesAndCase(t *testing.T) {
	s := ordersSession(t)

	// Countries with more than 5 items in total, and how many orders each
	// has per size class (CASE), through two CTEs and a nested aggregation.
	totals := map[string]int64{}
	for _, r := range orderRows {
		totals[r.country] += r.qty
	}
	classes := map[string]int64{}
	for _, r := range orderRows {
		if totals[r.country] <= 5 {
			continue
		}
		size := "small"
		switch {
		case r.qty >= 5:
			size = "big"
		case r.qty >= 3:
			size = "medium"
		}
		classes[r.country+" "+size]++
	}
	var want []string
	for k, n := range classes {
		f := strings.Fields(k)
		want = append(want, fmt.Sprintf("country=%s size=%s n=%d", f[0], f[1], n))
	}
	sameLines(t, "with + join + case", lines(t, mustSQL(t, s, `WITH totals AS (
			SELECT country, sum(qty) AS total FROM lakehouse.silver.orders GROUP BY country
		), busy AS (SELECT country FROM totals WHERE total > 5)
		SELECT country, size, count(*) AS n FROM (
			SELECT o.country, CASE WHEN o.qty >= 5 THEN 'big' WHEN o.qty >= 3 THEN 'medium' ELSE 'small' END AS size
			FROM lakehouse.silver.orders o JOIN busy b ON o.country = b.country) AS c
		GROUP BY country, size`), "country", "size", "n"), want)

	// A subquery that aggregates, under an outer aggregation.
	var top int64
	for _, n := range totals {
		top = max(top, n)
	}
	sameLines(t, "nested aggregation", lines(t, mustSQL(t, s, `SELECT count(*) AS countries, max(total) AS top
		FROM (SELECT country, sum(qty) AS total FROM lakehouse.silver.orders GROUP BY country) t`), "countries", "top"),
		[]string{fmt.Sprintf("countries=%d top=%d", len(totals), top)})

	// Simple CASE, coalesce, concat and upper over table columns.
	names := map[string]any{"RW": "Rwanda", "KE": "Kenya"}
	want = want[:0]
	for _, r := range orderRows {
		cat := "none"
		if r.category != nil {
			cat = r.category.(string)
		}
		name := names[r.country]
		if name == nil {
			name = "<nil>"
		}
		want = append(want, fmt.Sprintf("id=%d name=%v cat=%s code=%s-%d", r.id, name, strings.ToUpper(cat), r.country, r.id))
	}
	sameLines(t, "simple case", lines(t, mustSQL(t, s, `SELECT id, CASE country WHEN 'RW' THEN 'Rwanda' WHEN 'KE' THEN 'Kenya' END AS name,
		upper(coalesce(category, 'none')) AS cat, concat(country, '-', id) AS code FROM lakehouse.silver.orders`),
		"id", "name", "cat", "code"), want)
}

// count(DISTINCT x) in SQL: distinct non-null values per group, against a
// Go set; a streaming query refuses it at Start with Spark's reason.
func TestSQLCountDistinct(t *testing.T) {
	s := ordersSession(t)
	cats := map[string]map[string]bool{}
	qtys := map[int64]bool{}
	for _, r := range orderRows {
		if cats[r.country] == nil {
			cats[r.country] = map[string]bool{}
		}
		if r.category != nil {
			cats[r.country][r.category.(string)] = true
		}
		qtys[r.qty] = true
	}
	var want []string
	for c, set := range cats {
		want = append(want, fmt.Sprintf("country=%s n=%d orders=%d", c, len(set), 0))
	}
	orders := map[string]int{}
	for _, r := range orderRows {
		orders[r.country]++
	}
	for i, w := range want {
		c := strings.TrimPrefix(strings.Fields(w)[0], "country=")
		want[i] = strings.Replace(w, "orders=0", fmt.Sprintf("orders=%d", orders[c]), 1)
	}
	sameLines(t, "count distinct by country", lines(t, mustSQL(t, s, `SELECT country, count(DISTINCT category) AS n, count(*) AS orders
		FROM lakehouse.silver.orders GROUP BY country`), "country", "n", "orders"), want)
	row := oneRow(t, s, "SELECT count(DISTINCT qty), count(qty) FROM lakehouse.silver.orders")
	if row["count(DISTINCT qty)"] != int64(len(qtys)) || row["count(qty)"] != int64(len(orderRows)) {
		t.Errorf("count(DISTINCT qty) = %v, count(qty) = %v; want %d, %d", row["count(DISTINCT qty)"], row["count(qty)"], len(qtys), len(orderRows))
	}

	ms, err := s.MemoryStream("ev", "user string, ts timestamp")
	if err != nil {
		t.Fatal(err)
	}
	// Streams cannot be SQL views; functions.expr reaches the same planner.
	df := ms.ToDF().GroupBy().Agg(engine.Expr("count(DISTINCT user) AS users"))
	q, err := df.WriteStream().OutputMode("complete").Format("memory").QueryName("users").Start()
	if err == nil {
		q.Stop()
		t.Fatal("a streaming count(DISTINCT) started")
	}
	if !strings.Contains(err.Error(), "distinct aggregations are not supported on streaming DataFrames/Datasets") {
		t.Errorf("streaming count(DISTINCT): %v", err)
	}
}
