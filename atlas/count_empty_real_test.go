package atlas_test

import (
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// Count() is sent as PySpark sends count(): a global count(1) aggregate,
// whose one row is the answer. Over no rows Spark still answers one row
// (0); the server answered none, and Count() failed with "the server
// returned 0 rows".
func TestCountOfNoRowsIsZero(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	sales := seedSales(t, spark)
	ctx := t.Context()
	n, err := spark.Table("lakehouse.shop.sales").Where(atlas.Col("qty").Gt(1000)).Count(ctx)
	if err != nil || n != 0 {
		t.Fatalf("Count of no rows = %d, %v; want 0", n, err)
	}
	n, err = spark.Table("lakehouse.shop.sales").Count(ctx)
	if err != nil || n != int64(len(sales)) {
		t.Fatalf("Count = %d, %v; want %d", n, err, len(sales))
	}
}
