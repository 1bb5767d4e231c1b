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
