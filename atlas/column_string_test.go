package atlas_test

import (
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestColumnStringIsPySparks checks Column.String against what PySpark's
// Spark Connect client prints for the same columns (repr(Column) in
// pyspark/sql/connect: Column<'...'> around the expression's __repr__:
// name(args) for functions and operators, "x AS name", "(x (type))",
// "x ASC NULLS FIRST").
func TestColumnStringIsPySparks(t *testing.T) {
	cases := []struct {
		got  atlas.Column
		want string
	}{
		{atlas.Col("count").Gt(5), "Column<'>(count, 5)'>"},
		{atlas.Sum(atlas.Col("q").Multiply(atlas.Col("p"))).Alias("v"), "Column<'sum(*(q, p)) AS v'>"},
		{atlas.CountDistinct(atlas.Col("user_id")), "Column<'count(distinct user_id)'>"},
		{atlas.Col("value").Cast("string"), "Column<'(value (string))'>"},
		{atlas.Col("window_start").Desc(), "Column<'window_start DESC NULLS LAST'>"},
		{atlas.Col("event").Asc(), "Column<'event ASC NULLS FIRST'>"},
		{atlas.Col("data.*"), "Column<'data.*'>"},
		{atlas.Col("*"), "Column<'*'>"},
		{atlas.Expr("CAST(value AS STRING) AS json"), "Column<'CAST(value AS STRING) AS json'>"},
		{atlas.Col("e").IsIn("view", "click"), "Column<'in(e, view, click)'>"},
		{atlas.Lit(nil), "Column<'NULL'>"},
		{atlas.Lit(true), "Column<'true'>"},
		{atlas.Lit(2.5), "Column<'2.5'>"},
		{atlas.Lit(int64(1) << 40), "Column<'1099511627776'>"},
		{atlas.Lit([]byte{0xca, 0xfe}), "Column<'X'CAFE''>"},
		{atlas.Lit(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)), "Column<'2026-01-02 03:04:05.000006'>"},
		{atlas.Lit(90 * time.Second), "Column<'1m30s'>"},
		{atlas.Col("s").GetField("f"), "Column<'UnresolvedExtractValue(s, f)'>"},
		{atlas.Lit(struct{}{}), "<invalid column: lit: unsupported literal type struct {} (use bool, int, int64, float64, string, []byte, time.Time, time.Duration or nil)>"},
	}
	for _, c := range cases {
		if got := c.got.String(); got != c.want {
			t.Errorf("String() = %s, want %s", got, c.want)
		}
	}
}
