package atlas_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestCastANSIOverConnect: the client's Cast of a malformed string fails
// the query with Spark 4's CAST_INVALID_INPUT (spark.sql.ansi.enabled is
// true by default), TryCast gives NULL, and spark.conf.set of
// spark.sql.ansi.enabled to false brings back Spark's non-ANSI NULL for
// Cast; an int column compared with the string '5' (an implicit cast)
// works either way.
func TestCastANSIOverConnect(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	ctx := context.Background()
	df, err := spark.SQL("SELECT '12' AS s, 5 AS n UNION ALL SELECT 'abc', 6")
	if err != nil {
		t.Fatal(err)
	}
	const want = `[CAST_INVALID_INPUT] The value 'abc' of the type "STRING" cannot be cast to "INT" because it is malformed.`
	if _, err := df.Select(atlas.Col("s").Cast("int")).Rows(ctx); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Cast: got %v, want %s", err, want)
	}
	values := func(c atlas.Column) []any {
		t.Helper()
		rows, err := df.Select(atlas.Col("n"), c.Alias("v")).OrderBy("n").Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []any
		for _, r := range rows {
			out = append(out, r["v"])
		}
		return out
	}
	check := func(what string, got []any) {
		t.Helper()
		if len(got) != 2 || got[0] != int64(12) || got[1] != nil {
			t.Fatalf("%s: %v, want [12 <nil>]", what, got)
		}
	}
	check("TryCast", values(atlas.Col("s").TryCast("int")))
	if err := spark.Conf().Set("spark.sql.ansi.enabled", "false"); err != nil {
		t.Fatal(err)
	}
	check("Cast with ansi off", values(atlas.Col("s").Cast("int")))
	rows, err := df.Filter(atlas.Col("n").Eq("5")).Rows(ctx)
	if err != nil || len(rows) != 1 || rows[0]["s"] != "12" {
		t.Fatalf("n = '5': %v, %v", rows, err)
	}
}
