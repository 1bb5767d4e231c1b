package atlas_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestExpressionFunctionsOverConnect builds the course's expressions with
// the client (when/otherwise, element_at over array literals, concat,
// upper, split, to_timestamp plus a time.Duration literal, date_format)
// and a union, against Go references over the same rows.
func TestExpressionFunctionsOverConnect(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()

	names := []string{"Gasabo", "Huye", "Musanze", "Rubavu"}
	lits := make([]atlas.Column, len(names))
	for i, n := range names {
		lits[i] = atlas.Lit(n)
	}
	at := atlas.ToTimestamp(atlas.Lit("05/03/2024 07:08"), "dd/MM/yyyy HH:mm").Plus(atlas.Lit(10 * time.Minute))
	df := spark.Table("lakehouse.shop.sales").Select(
		atlas.Col("id"),
		atlas.When(atlas.Col("qty").Gt(8), "big").When(atlas.Col("qty").Gt(4), "mid").Otherwise("small").Alias("size"),
		atlas.ElementAt(atlas.Array(lits...), atlas.Col("id").Mod(4).Plus(1).Cast("int")).Alias("district"),
		atlas.Concat(atlas.Lower(atlas.Col("country")), atlas.Lit(":"), atlas.ElementAt(atlas.Split(atlas.Lit("x-y-z"), "-"), -1)).Alias("code"),
		atlas.DateFormat(at, "HH:mm").Alias("hhmm"),
	)
	rows, err := df.Union(df).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v %v %v %v %v", r["id"], r["size"], r["district"], r["code"], r["hhmm"]))
	}
	for _, s := range sales {
		size := "small"
		switch {
		case s.qty > 8:
			size = "big"
		case s.qty > 4:
			size = "mid"
		}
		line := fmt.Sprintf("%d %s %s %s:z 07:18", s.id, size, names[s.id%4], strings.ToLower(s.country))
		want = append(want, line, line)
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("functions:\ngot  %v\nwant %v", got[:4], want[:4])
	}
	// Arrays and intervals come back as []any and time.Duration.
	row, err := spark.Table("lakehouse.shop.sales").Where(atlas.Col("id").EqualTo(1)).Select(
		atlas.Split(atlas.Lit("a,b,,c"), ",").Alias("parts"),
		atlas.ToTimestamp(atlas.Lit("2024-01-01 00:10:00")).Minus(atlas.ToTimestamp(atlas.Lit("2024-01-01 00:00:00"))).Alias("gap"),
	).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(row) != 1 || fmt.Sprint(row[0]["parts"]) != "[a b  c]" || row[0]["gap"] != 10*time.Minute {
		t.Errorf("array and interval over Connect: %v", row)
	}
	if _, err := atlas.Lit(1).Otherwise(2).Expression(); err == nil || !strings.Contains(err.Error(), "otherwise() can only be applied") {
		t.Errorf("otherwise without when: %v", err)
	}
}
