package atlas_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// realServer starts the Atlas Connect server over a private home and
// returns its address.
func realServer(t *testing.T) (addr, home string) {
	t.Helper()
	home = t.TempDir()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv.Addr(), home
}

// connect opens a client session on addr, as one notebook cell would.
func connect(t *testing.T, addr string) *atlas.Session {
	t.Helper()
	spark := atlas.Builder().AppName(t.Name()).Remote("sc://" + addr).GetOrCreate()
	t.Cleanup(spark.Close)
	return spark
}

// sale is one row of the test table; the tests compute their expected
// results from these values in plain Go.
type sale struct {
	id      int64
	country string
	qty     int64
	price   float64
}

func testSales() []sale {
	countries := []string{"NL", "FR", "DE", "BE", "IT"}
	out := make([]sale, 150)
	for i := range out {
		out[i] = sale{id: int64(i + 1), country: countries[(i*3)%5], qty: int64(i%11 + 1), price: float64(i%7) + 0.25}
	}
	return out
}

// seedSales creates lakehouse.shop.sales through the client's SQL.
func seedSales(t *testing.T, spark *atlas.Session) []sale {
	t.Helper()
	sales := testSales()
	vals := make([]string, len(sales))
	for i, s := range sales {
		vals[i] = fmt.Sprintf("(%d, '%s', %d, %g)", s.id, s.country, s.qty, s.price)
	}
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.shop",
		"CREATE TABLE lakehouse.shop.sales (id bigint, country string, qty bigint, price double) USING iceberg",
		"INSERT INTO lakehouse.shop.sales VALUES " + strings.Join(vals, ", "),
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	return sales
}

func TestBatchResultsMatchReference(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()

	// Reference, in Go: per country, the rows with qty > 5, their units and count.
	type agg struct{ units, lines int64 }
	want := map[string]agg{}
	var bigLines int64
	for _, s := range sales {
		if s.qty > 5 {
			a := want[s.country]
			a.units += s.qty
			a.lines++
			want[s.country] = a
			bigLines++
		}
	}
	countries := make([]string, 0, len(want))
	for c := range want {
		countries = append(countries, c)
	}
	sort.Strings(countries)

	// DataFrame API.
	df := spark.Table("lakehouse.shop.sales").
		Filter(atlas.Col("qty").Gt(5)).
		GroupBy("country").
		Agg(atlas.Sum(atlas.Col("qty")).Alias("units"), atlas.Count(atlas.Lit(1)).Alias("lines")).
		OrderBy("country")
	if err := df.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(df.Columns(), ","); got != "country,units,lines" {
		t.Fatalf("columns %s", got)
	}
	rows, err := df.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(countries) {
		t.Fatalf("%d groups, want %d: %v", len(rows), len(countries), rows)
	}
	for i, c := range countries {
		r := rows[i]
		if r["country"] != c || r["units"] != want[c].units || r["lines"] != want[c].lines {
			t.Errorf("row %d = %v, want %s units=%d lines=%d", i, r, c, want[c].units, want[c].lines)
		}
	}

	// SQL, the same question.
	res, err := spark.SQL("SELECT country, sum(qty) AS units, count(*) AS lines FROM lakehouse.shop.sales WHERE qty > 5 GROUP BY country ORDER BY country")
	if err != nil {
		t.Fatal(err)
	}
	sqlRows, err := res.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sqlRows) != fmt.Sprint(rows) {
		t.Fatalf("SQL rows %v differ from DataFrame rows %v", sqlRows, rows)
	}

	// Count, Limit, Collect, a temp view and SelectExpr.
	n, err := spark.Table("lakehouse.shop.sales").Where("qty > 5").Count(ctx)
	if err != nil || n != bigLines {
		t.Fatalf("count = %d, %v; want %d", n, err, bigLines)
	}
	if err := spark.Table("lakehouse.shop.sales").Where(atlas.Col("country").EqualTo("NL")).CreateOrReplaceTempView("nl"); err != nil {
		t.Fatal(err)
	}
	top, err := spark.Table("nl").SelectExpr("id", "qty * price AS amount").OrderBy(atlas.Col("amount").Desc(), atlas.Col("id")).Limit(3).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var nl []sale
	for _, s := range sales {
		if s.country == "NL" {
			nl = append(nl, s)
		}
	}
	sort.Slice(nl, func(i, j int) bool {
		ai, aj := float64(nl[i].qty)*nl[i].price, float64(nl[j].qty)*nl[j].price
		if ai != aj {
			return ai > aj
		}
		return nl[i].id < nl[j].id
	})
	for i := range 3 {
		if top[i]["id"] != nl[i].id || top[i]["amount"] != float64(nl[i].qty)*nl[i].price {
			t.Errorf("top %d = %v, want id %d amount %g", i, top[i], nl[i].id, float64(nl[i].qty)*nl[i].price)
		}
	}
	schema, recs, err := spark.Table("lakehouse.shop.sales").Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, r := range recs {
		total += r.NumRows()
		r.Release()
	}
	if total != int64(len(sales)) || schema.NumFields() != 4 {
		t.Fatalf("collect: %d rows, %d columns; want %d, 4", total, schema.NumFields(), len(sales))
	}
}

func TestAnalysisErrorsAndTempViewsAcrossConnections(t *testing.T) {
	addr, _ := realServer(t)
	cell1 := connect(t, addr)
	seedSales(t, cell1)

	bad := cell1.Table("lakehouse.shop.sales").Select("no_such_column")
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "no_such_column") {
		t.Fatalf("Err() = %v, want the server's analysis error naming the column", err)
	}
	if err := cell1.Table("lakehouse.shop.sales").Where("country = 'FR'").CreateOrReplaceTempView("fr"); err != nil {
		t.Fatal(err)
	}

	// A second connection under the same session id (a later cell) sees the view.
	cell2 := atlas.Builder().Remote("sc://" + addr + "/;session_id=" + cell1.SessionID()).GetOrCreate()
	defer cell2.Close()
	n, err := cell2.Table("fr").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, s := range testSales() {
		if s.country == "FR" {
			want++
		}
	}
	if n != want {
		t.Fatalf("count of view fr from a later connection = %d, want %d", n, want)
	}
	// Another session does not.
	other := connect(t, addr)
	if err := other.Table("fr").Err(); err == nil {
		t.Fatal("another session sees this session's temp view")
	}
}

func TestMergeBuilderMatchesReference(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()
	// Source: rows 131..150 shifted by 10 (ids 141..160) with qty doubled:
	// 141..150 exist (update unless qty > 16: delete), 151..160 are new.
	source := spark.Table("lakehouse.shop.sales").Where("id > 130").
		SelectExpr("id + 10 AS id", "country", "qty * 2 AS qty", "price")
	res, err := spark.MergeInto("lakehouse.shop.sales").Using(source, "s").
		On("t.id = s.id").
		WhenMatchedDelete("s.qty > 16").
		WhenMatchedUpdateAll().
		WhenNotMatchedInsertAll().
		Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]sale{}
	for _, s := range sales {
		want[s.id] = s
	}
	var upd, del, ins int64
	for _, s := range sales {
		if s.id <= 130 {
			continue
		}
		n := sale{id: s.id + 10, country: s.country, qty: s.qty * 2, price: s.price}
		_, exists := want[n.id]
		switch {
		case exists && n.qty > 16:
			delete(want, n.id)
			del++
		case exists:
			want[n.id] = n
			upd++
		default:
			want[n.id] = n
			ins++
		}
	}
	if res != (atlas.MergeResult{NumAffectedRows: upd + del + ins, NumUpdatedRows: upd, NumDeletedRows: del, NumInsertedRows: ins}) {
		t.Fatalf("merge result %+v, want updated %d deleted %d inserted %d", res, upd, del, ins)
	}
	rows, err := spark.Table("lakehouse.shop.sales").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows after the merge, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		w, ok := want[r["id"].(int64)]
		if !ok || r["qty"] != w.qty || r["country"] != w.country || r["price"] != w.price {
			t.Errorf("row %v, want %+v", r, w)
		}
	}
	if _, err := spark.MergeInto("lakehouse.shop.sales").Using(source, "s").On("t.id = s.id").Execute(ctx); err == nil || !strings.Contains(err.Error(), "no WHEN clause") {
		t.Fatalf("a merge without clauses: %v", err)
	}
}
