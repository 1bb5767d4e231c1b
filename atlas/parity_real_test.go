package atlas_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestColumnNamesMatchSpark checks the names Atlas gives unaliased columns
// against Spark's, and that a later query can refer to them by that name.
// References (Spark 3.5 and 4.0 alike):
//   - CAST(qty AS STRING), CAST(qty AS BIGINT) for "long": the
//     "-- !query schema" lines of sql/core/src/test/resources/sql-tests/
//     results/cast.sql.out (struct<CAST(1.23 AS BIGINT):bigint>).
//   - (- qty): UnaryMinus.sql, "(- ${child.sql})".
//   - (NOT (qty = id)) for <> and !=: AstBuilder parses both to Not(EqualTo).
//   - 1.0 and 1.0E10 for double literals: usePrettyExpression names a
//     numeric literal by its value's toString (Java's Double.toString).
//   - percentile_approx(qty, 0.5, 10000): the default accuracy is a child
//     of ApproximatePercentile, and names show defaulted arguments as
//     percentiles.sql.out does for percentile(v, 0.5, 1).
func TestColumnNamesMatchSpark(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()
	tbl := spark.Table("lakehouse.shop.sales").Where(atlas.Col("id").EqualTo(sales[0].id))

	cases := []struct {
		df   *atlas.DataFrame
		want []string
	}{
		{tbl.Select(atlas.Col("qty").Cast("string"), atlas.Col("qty").Cast("long"), atlas.Col("qty").Cast("int")),
			[]string{"CAST(qty AS STRING)", "CAST(qty AS BIGINT)", "CAST(qty AS INT)"}},
		{tbl.SelectExpr("CAST(qty AS string)", "-qty", "qty <> id", "qty != id", "1e10"),
			[]string{"CAST(qty AS STRING)", "(- qty)", "(NOT (qty = id))", "(NOT (qty = id))", "1.0E10"}},
		{tbl.Select(atlas.Lit(1.0), atlas.Lit(2.5), atlas.Col("qty").NotEqual(1)),
			[]string{"1.0", "2.5", "(NOT (qty = 1))"}},
	}
	for i, c := range cases {
		if err := c.df.Err(); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got := c.df.Columns(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("case %d: columns %q, want %q", i, got, c.want)
		}
	}

	// A later query refers to the generated names: the values are the
	// first sale's own.
	rows, err := cases[0].df.Select("CAST(qty AS STRING)", "CAST(qty AS BIGINT)").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	for i, r := range rows {
		if r["CAST(qty AS STRING)"] != fmt.Sprint(sales[i].qty) || r["CAST(qty AS BIGINT)"] != sales[i].qty {
			t.Errorf("row %d: %v, want qty %d", i, r, sales[i].qty)
		}
	}
	neg, err := cases[1].df.Select("(- qty)").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(neg) != 1 {
		t.Fatalf("%d rows, want 1", len(neg))
	}
	for i, r := range neg {
		if r["(- qty)"] != -sales[i].qty {
			t.Errorf("row %d: (- qty) = %v, want %d", i, r["(- qty)"], -sales[i].qty)
		}
	}

	// Aggregate expressions name their argument as Spark does (the last
	// part of a qualified column, CAST(... AS STRING)).
	named := spark.Table("lakehouse.shop.sales").Alias("s").GroupBy().Agg(atlas.Expr("max(s.price)"), atlas.Expr("min(CAST(qty AS string))"), atlas.Expr("sum(qty + 1)"))
	if got, want := named.Columns(), []string{"max(price)", "min(CAST(qty AS STRING))", "sum((qty + 1))"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("aggregate expression names %q, want %q", got, want)
	}

	// GroupedData.mean names its columns avg(x), as Spark's
	// RelationalGroupedDataset.mean builds Average.
	if got := spark.Table("lakehouse.shop.sales").GroupBy("country").Mean("qty", "price").Columns(); fmt.Sprint(got) != "[country avg(qty) avg(price)]" {
		t.Errorf("groupBy.mean columns %q", got)
	}

	// SQL: percentile_approx names its default accuracy.
	df, err := spark.SQL("SELECT percentile_approx(qty, 0.5), approx_percentile(qty, 0.5, 100) FROM lakehouse.shop.sales")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := df.Columns(), []string{"percentile_approx(qty, 0.5, 10000)", "approx_percentile(qty, 0.5, 100)"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sql percentile names %q, want %q", got, want)
	}

	// SQL: an unaliased window(...) is named window, as the analyzer's
	// TimeWindowing replaces it by its window attribute (TimeWindow is
	// never resolved itself: catalyst/expressions/TimeWindow.scala), so a
	// later query can select window.start. A timestamp literal's name keeps
	// its fraction (Literal.sql).
	win, err := spark.SQL("SELECT window(TIMESTAMP '2024-01-01 12:03:00', '10 minutes'), count(*) FROM lakehouse.shop.sales GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if got := win.Columns(); fmt.Sprint(got) != "[window count(1)]" {
		t.Errorf("sql window names %q, want [window count(1)]", got)
	}
	starts, err := win.Select("window.start", "count(1)").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantStart := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	if len(starts) != 1 || !starts[0]["start"].(time.Time).Equal(wantStart) || starts[0]["count(1)"] != int64(len(sales)) {
		t.Errorf("window.start, count(1) = %v, want %v, %d", starts, wantStart, len(sales))
	}
	// SQL: a double literal is named by Java's Double.toString, and
	// count(DISTINCT x) and approx_count_distinct(x) are never null
	// (Count.nullable and HyperLogLogPlusPlus.nullable are false), which
	// printSchema shows.
	lits, err := spark.SQL("SELECT 1e10, count(DISTINCT qty), approx_count_distinct(qty), max(qty) FROM lakehouse.shop.sales")
	if err != nil {
		t.Fatal(err)
	}
	wantTree := `root
 |-- 1.0E10: double (nullable = false)
 |-- count(DISTINCT qty): long (nullable = false)
 |-- approx_count_distinct(qty): long (nullable = false)
 |-- max(qty): long (nullable = true)
`
	if got := lits.SchemaString(); got != wantTree {
		t.Errorf("printSchema:\n got\n%s\nwant\n%s", got, wantTree)
	}
	ts := tbl.Select(atlas.Lit(time.Date(2024, 1, 1, 0, 0, 0, 500_000_000, time.UTC)))
	if got := ts.Columns(); fmt.Sprint(got) != "[TIMESTAMP '2024-01-01 00:00:00.5']" {
		t.Errorf("timestamp literal name %q", got)
	}
}

// TestDTypesAndShowStringMatchSpark checks dtypes (each type's
// simpleString: bigint, string, struct<start:timestamp,end:timestamp>),
// the columns of an interval result, and show(n, truncate, vertical)
// rendered by the server, against Spark's DataFrameShowSuite strings
// ("SPARK-7319 showString, vertical = true": "-RECORD 0----", " key   | 1   ",
// "only showing top 1 row"), Spark 3.5 and 4.0.
func TestDTypesAndShowStringMatchSpark(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()

	windows := spark.Table("lakehouse.shop.sales").
		WithColumn("ts", atlas.ToTimestamp(atlas.Lit("2024-01-01 00:03:00"))).
		GroupBy(atlas.Window(atlas.Col("ts"), "10 minutes"), atlas.Col("country")).Count()
	want := [][2]string{{"window", "struct<start:timestamp,end:timestamp>"}, {"country", "string"}, {"count", "bigint"}}
	if got := windows.DTypes(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dtypes %q, want %q", got, want)
	}

	iv, err := spark.SQL("SELECT INTERVAL 10 MINUTES AS gap, 1 AS one")
	if err != nil {
		t.Fatal(err)
	}
	if got := iv.Columns(); fmt.Sprint(got) != "[gap one]" {
		t.Errorf("interval result columns %q, want [gap one]", got)
	}

	// The first two rows by id, as Go computes them from the seeded sales.
	top := spark.Table("lakehouse.shop.sales").Select("id", "country").OrderBy("id")
	text, err := top.ShowString(ctx, 1, 20, true)
	if err != nil {
		t.Fatal(err)
	}
	s0 := sales[0]
	nameW := len("country")
	dataW := max(3, len(fmt.Sprint(s0.id)), len(s0.country))
	line := func(name, v string) string {
		return " " + name + strings.Repeat(" ", nameW-len(name)) + " | " + v + strings.Repeat(" ", dataW-len(v)) + " \n"
	}
	wantV := "-RECORD 0" + strings.Repeat("-", nameW+dataW+5-len("-RECORD 0")) + "\n" +
		line("id", fmt.Sprint(s0.id)) + line("country", s0.country) + "only showing top 1 row\n"
	if text != wantV {
		t.Errorf("vertical show:\n got %q\nwant %q", text, wantV)
	}
	empty, err := spark.Table("lakehouse.shop.sales").Where(atlas.Col("id").Lt(0)).ShowString(ctx, 20, 20, true)
	if err != nil || empty != "(0 rows)\n" {
		t.Errorf("vertical show of no rows: %q, %v", empty, err)
	}
	cut, err := spark.SQL("SELECT 'abcdefghijklmnopqrstuvwxyz' AS s")
	if err != nil {
		t.Fatal(err)
	}
	text, err = cut.ShowString(ctx, 20, 17, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "+-----------------+\n|                s|\n+-----------------+\n|abcdefghijklmn...|\n+-----------------+\n"; text != want {
		t.Errorf("show(truncate=17):\n got %q\nwant %q", text, want)
	}
}

// TestGetFieldAsSpark: col("window").getField("start") is a struct field
// named window.start, as Spark's usePrettyExpression names an unaliased
// GetStructField (child.sql + "." + field name: sql/catalyst/src/main/
// scala/org/apache/spark/sql/catalyst/util/package.scala, 3.5 and 4.0),
// while col("window.start") is named start. The server refused getField.
func TestGetFieldAsSpark(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()
	w := spark.Table("lakehouse.shop.sales").
		WithColumn("ts", atlas.ToTimestamp(atlas.Lit("2024-01-01 00:03:00"))).
		GroupBy(atlas.Window(atlas.Col("ts"), "10 minutes")).Count()
	df := w.Select(atlas.Col("window").GetField("start"), atlas.Col("window.end"), atlas.Col("count"))
	if got := df.Columns(); fmt.Sprint(got) != "[window.start end count]" {
		t.Fatalf("columns %q, want [window.start end count]", got)
	}
	late := w.Where(atlas.Col("window").GetField("end").Gt(atlas.Lit(time.Date(2024, 1, 1, 0, 5, 0, 0, time.UTC))))
	rows, err := late.Select(atlas.Col("window").GetField("start"), atlas.Col("count")).Select("`window.start`", "count").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if len(rows) != 1 || !rows[0]["window.start"].(time.Time).Equal(start) || rows[0]["count"] != int64(len(sales)) {
		t.Errorf("rows %v, want window.start %v and count %d", rows, start, len(sales))
	}
}
