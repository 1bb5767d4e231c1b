package engine_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// Spark casts numbers to timestamps as seconds since the epoch (fractions
// allowed) and timestamps to bigint as whole seconds (floor), to double as
// fractional seconds. The expected values are computed with package time
// from the same instants.
func TestCastNumbersAndTimestampsCountSeconds(t *testing.T) {
	s := sqlSession(t)
	at := func(sec int64, micro int64) time.Time { return time.Unix(sec, micro*1000).UTC() }
	minute := time.Date(2024, 1, 1, 0, 1, 0, 0, time.UTC)

	row := rowsOf(t, mustSQL(t, s, `SELECT
		CAST(1704067260 AS timestamp) AS a,
		CAST(1.5 AS timestamp) AS b,
		CAST(CAST(-1.5 AS double) AS timestamp) AS c,
		CAST(CAST(1704067260 AS int) AS timestamp) AS d,
		CAST(CAST('NaN' AS double) AS timestamp) AS e,
		CAST(TIMESTAMP '2024-01-01 00:01:00.75' AS bigint) AS f,
		CAST(TIMESTAMP '2024-01-01 00:01:00.75' AS double) AS g,
		CAST(TIMESTAMP '1969-12-31 23:59:59.5' AS bigint) AS h,
		CAST(TIMESTAMP '1969-12-31 23:59:59.5' AS double) AS i,
		CAST(TIMESTAMP '2024-01-01 00:01:00' AS int) AS j,
		CAST(TIMESTAMP '2024-01-01 00:01:00' AS smallint) AS k,
		CAST(TIMESTAMP '2024-01-01 00:01:00' AS tinyint) AS l,
		CAST(CAST(9223372036854775807 AS timestamp) AS bigint) AS m`))[0]
	want := engine.Row{
		"a": minute,
		"b": at(1, 500000),
		"c": at(-2, 500000),
		"d": minute,
		"e": nil,
		"f": minute.Unix(),
		"g": float64(minute.Unix()) + 0.75,
		"h": int64(-1),
		"i": -0.5,
		"j": int64(int32(minute.Unix())), // rows widen integers to int64
		"k": int64(int16(minute.Unix())), // Go's conversion wraps, as Scala's toShort
		"l": int64(int8(minute.Unix())),
		"m": int64(math.MaxInt64 / 1_000_000), // saturated, then floor to seconds
	}
	for k, w := range want {
		if g := row[k]; g != w {
			if gt, ok := g.(time.Time); ok && w != nil && gt.Equal(w.(time.Time)) {
				continue
			}
			t.Errorf("%s = %v (%T), want %v (%T)", k, g, g, w, w)
		}
	}

	// The same through columns of a table: SQL, SelectExpr and Column.Cast.
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.silver")
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.epochs (n bigint, x double, ts timestamp) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.epochs VALUES (1704067260, 1704067260.25, TIMESTAMP '1969-12-31 23:59:59.5'), (NULL, NULL, NULL)")
	tbl := s.Table("lakehouse.silver.epochs")
	for name, df := range map[string]*engine.DataFrame{
		"sql":        mustSQL(t, s, "SELECT CAST(n AS timestamp) AS a, CAST(x AS timestamp) AS b, CAST(ts AS bigint) AS c, CAST(ts AS double) AS d FROM lakehouse.silver.epochs"),
		"selectExpr": tbl.SelectExpr("CAST(n AS timestamp) AS a", "CAST(x AS timestamp) AS b", "CAST(ts AS long) AS c", "CAST(ts AS double) AS d"),
		"column": tbl.Select(engine.Col("n").Cast("timestamp").Alias("a"), engine.Col("x").Cast("timestamp").Alias("b"),
			engine.Col("ts").Cast("bigint").Alias("c"), engine.Col("ts").Cast("double").Alias("d")),
	} {
		got := render(rowsOf(t, df), "a", "b", "c", "d")
		sameLines(t, name, got, []string{
			"a=" + minute.String() + " b=" + minute.Add(250*time.Millisecond).String() + " c=-1 d=-0.5",
			"a=<nil> b=<nil> c=<nil> d=<nil>",
		})
	}
}

// A boolean is not a point in time: the cast is refused when the query is
// planned, in SQL and through Column.Cast.
func TestCastBooleanToTimestampIsRefused(t *testing.T) {
	s := sqlSession(t)
	if _, err := s.SQL("SELECT CAST(true AS timestamp) AS x"); err == nil || !strings.Contains(err.Error(), "cannot cast boolean to timestamp") {
		t.Fatalf("want a refusal, got %v", err)
	}
	df := mustSQL(t, s, "SELECT true AS flag").Select(engine.Col("flag").Cast("timestamp"))
	if _, err := df.Rows(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot cast boolean to timestamp") {
		t.Fatalf("want a refusal, got %v", err)
	}
}
