package atlas_test

import (
	"context"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestCountOverAnAggregation: groupBy().count().where(...).count() is a
// second aggregation over the first one's rows, which Spark runs in batch;
// it was refused as "multiple aggregations". Reference: the same counts
// computed in Go from the seeded rows.
func TestCountOverAnAggregation(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := context.Background()

	perQty := map[int64]int64{}
	for _, s := range sales {
		perQty[s.qty]++
	}
	var wantGroups, wantBig int64
	var wantMax int64
	for _, n := range perQty {
		wantGroups++
		if n > 13 {
			wantBig++
		}
		wantMax = max(wantMax, n)
	}

	byQty := spark.Table("lakehouse.shop.sales").GroupBy("qty").Count()
	if got, err := byQty.Count(ctx); err != nil || got != wantGroups {
		t.Fatalf("groupBy(qty).count().count() = %d, %v; want %d", got, err, wantGroups)
	}
	if got, err := byQty.Where("count > 13").Count(ctx); err != nil || got != wantBig {
		t.Fatalf("groupBy(qty).count().where(count > 13).count() = %d, %v; want %d", got, err, wantBig)
	}
	rows, err := byQty.GroupBy().Agg(atlas.Max(atlas.Col("count")).Alias("m")).Rows(ctx)
	if err != nil || len(rows) != 1 {
		t.Fatalf("max over the counts: %v, %v", rows, err)
	}
	if got, _ := rows[0]["m"].(int64); got != wantMax {
		t.Fatalf("max(count) = %v, want %d", rows[0]["m"], wantMax)
	}
}
