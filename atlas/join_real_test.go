package atlas_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestJoinOverConnect joins through the client: a left join on a column
// name with a broadcast hint, and an inner join on a condition over
// aliases, against Go references over the same rows.
func TestJoinOverConnect(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()

	top, err := spark.SQL("SELECT country, max(qty) AS top FROM lakehouse.shop.sales WHERE price < 1 AND qty > 9 GROUP BY country")
	if err != nil {
		t.Fatal(err)
	}
	df := spark.Table("lakehouse.shop.sales").Join(atlas.Broadcast(top), "country", "left").Select("id", "country", "top")
	rows, err := df.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tops := map[string]int64{}
	for _, s := range sales {
		if s.price < 1 && s.qty > 9 && s.qty > tops[s.country] {
			tops[s.country] = s.qty
		}
	}
	var got, want []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v %v %v", r["id"], r["country"], r["top"]))
	}
	for _, s := range sales {
		var top any
		if v, ok := tops[s.country]; ok {
			top = v
		}
		want = append(want, fmt.Sprintf("%v %v %v", s.id, s.country, top))
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("left join on country:\ngot  %v\nwant %v", got, want)
	}

	a, b := spark.Table("lakehouse.shop.sales").Alias("a"), spark.Table("lakehouse.shop.sales").Alias("b")
	pairs := a.Join(b, atlas.Col("a.id").Plus(atlas.Lit(2)).EqualTo(atlas.Col("b.id")).And(atlas.Col("a.country").EqualTo(atlas.Col("b.country"))), "inner").
		Select(atlas.Col("a.id"), atlas.Col("b.id").Alias("bid"))
	rows, err = pairs.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, want = nil, nil
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v-%v", r["id"], r["bid"]))
	}
	for _, x := range sales {
		for _, y := range sales {
			if x.id+2 == y.id && x.country == y.country {
				want = append(want, fmt.Sprintf("%d-%d", x.id, y.id))
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("aliased join on a condition:\ngot  %v\nwant %v", got, want)
	}

	// a.join(b, a["id"] + 2 == b["id"]) without aliases: each column names its DataFrame.
	x, y := spark.Table("lakehouse.shop.sales"), spark.Table("lakehouse.shop.sales")
	byID := x.Join(y, x.Col("id").Plus(atlas.Lit(2)).EqualTo(y.Col("id")).And(x.Col("country").EqualTo(y.Col("country"))), "inner").
		Select(x.Col("id"), y.Col("id").Alias("bid"))
	rows, err = byID.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v-%v", r["id"], r["bid"]))
	}
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("join on df.Col columns:\ngot  %v\nwant %v", got, want)
	}
}
