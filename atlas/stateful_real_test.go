package atlas_test

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestStatefulFunctionsOverConnect builds the new aggregates and
// dropDuplicates with the client, as PySpark encodes them, against Go
// references over the same rows.
func TestStatefulFunctionsOverConnect(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()
	rows, err := spark.Table("lakehouse.shop.sales").GroupBy("country").Agg(
		atlas.CountDistinct(atlas.Col("qty")).Alias("nd"),
		atlas.ApproxCountDistinct(atlas.Col("qty"), 0.05).Alias("approx"),
		atlas.PercentileApprox(atlas.Col("qty"), 0.5).Alias("median"),
		atlas.PercentileApprox(atlas.Col("qty"), []float64{0.25, 0.75}, 10000).Alias("quartiles"),
		atlas.CollectSet(atlas.Col("qty")).Alias("set"),
		atlas.StddevPop(atlas.Col("price")).Alias("sdp"),
	).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		c := r["country"].(string)
		var qs []int64
		var ps []float64
		set := map[int64]bool{}
		for _, s := range sales {
			if s.country == c {
				qs = append(qs, s.qty)
				ps = append(ps, s.price)
				set[s.qty] = true
			}
		}
		sort.Slice(qs, func(i, j int) bool { return qs[i] < qs[j] })
		at := func(p float64) int64 { return qs[int(math.Ceil(p*float64(len(qs))))-1] }
		var mean, ss float64
		for _, p := range ps {
			mean += p
		}
		mean /= float64(len(ps))
		for _, p := range ps {
			ss += (p - mean) * (p - mean)
		}
		got := fmt.Sprintf("%v %v %v %v %d", r["nd"], r["approx"], r["median"], r["quartiles"], len(r["set"].([]any)))
		want := fmt.Sprintf("%d %d %d [%d %d] %d", len(set), len(set), at(0.5), at(0.25), at(0.75), len(set))
		if got != want {
			t.Errorf("%s: got %s, want %s", c, got, want)
		}
		if sd := r["sdp"].(float64); math.Abs(sd-math.Sqrt(ss/float64(len(ps)))) > 1e-9 {
			t.Errorf("%s: stddev_pop %v", c, sd)
		}
	}
	n, err := spark.Table("lakehouse.shop.sales").DropDuplicates("country").Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	countries := map[string]bool{}
	for _, s := range sales {
		countries[s.country] = true
	}
	if n != int64(len(countries)) {
		t.Errorf("dropDuplicates(country).count() = %d, want %d", n, len(countries))
	}
}

// TestStatSketchesOverConnect: df.Stat().CountMinSketch and BloomFilter
// in the client over a server table: counts at least the exact ones (a
// map over the seeded rows), total equal to the row count, every id a
// member of the filter.
func TestStatSketchesOverConnect(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()
	df := spark.Table("lakehouse.shop.sales")
	cms, err := df.Stat().CountMinSketch(ctx, "country", 0.01, 0.95, 7)
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]int64{}
	for _, s := range sales {
		exact[s.country]++
	}
	if cms.TotalCount() != int64(len(sales)) {
		t.Fatalf("totalCount %d, want %d", cms.TotalCount(), len(sales))
	}
	for c, n := range exact {
		if est, err := cms.EstimateCount(c); err != nil || est < n || float64(est-n) > 0.01*float64(len(sales))+1 {
			t.Errorf("estimateCount(%s) = %d, %v; exact %d", c, est, err, n)
		}
	}
	bf, err := df.Stat().BloomFilter(ctx, "id", int64(len(sales)), 0.03)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sales {
		if !bf.MightContain(s.id) {
			t.Fatalf("mightContain(%d) = false for a member", s.id)
		}
	}
	if _, err := df.Stat().BloomFilter(ctx, "price", 10, 0.03); err == nil {
		t.Error("bloomFilter over a double column: no error")
	}
}
