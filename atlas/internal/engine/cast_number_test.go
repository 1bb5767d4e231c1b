package engine_test

import (
	"math"
	"testing"
)

// Spark's non-ANSI CAST (spark.sql.ansi.enabled=false; Spark 3.5's default) reads
// strings with UTF8String.toInt/toLong: whitespace trimmed, a fractional
// part of digits dropped (Spark's CastSuiteBase: cast("123.5", IntegerType)
// is 123, cast(" 123 ", ...) 123); booleans with StringUtils.isTrueString /
// isFalseString on the trimmed lower-cased text; doubles with Java's
// parseDouble and the special literals "inf"/"nan". A double beyond an
// integer's range saturates (the JVM's d2i/d2l): 1e10 as an int is
// 2147483647, never a wrapped 1410065408. Expected values are written by
// hand from those rules.
func TestCastStringsAndDoublesToNumbersAsSpark(t *testing.T) {
	s := sqlSession(t)
	s.SetConf("spark.sql.ansi.enabled", "false")
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.c")
	mustSQL(t, s, "CREATE TABLE lakehouse.c.raw (txt string, d double) USING iceberg")
	mustSQL(t, s, `INSERT INTO lakehouse.c.raw VALUES
		(' 12 ', 1e10), ('1.5', -1e10), ('-1.9', 1e20), ('abc', -1e20), ('1e3', CAST('NaN' AS double)),
		('2147483648', 2.9), (' yes ', -2.9), ('', 3000000000.5)`)
	type want struct {
		i       any // CAST(txt AS int)
		b       any // CAST(txt AS bigint)
		f       any // CAST(txt AS double)
		t       any // CAST(txt AS boolean)
		di, dbi any // CAST(d AS int), CAST(d AS bigint)
	}
	wants := map[string]want{
		" 12 ":       {int64(12), int64(12), 12.0, nil, int64(math.MaxInt32), int64(10_000_000_000)},
		"1.5":        {int64(1), int64(1), 1.5, nil, int64(math.MinInt32), int64(-10_000_000_000)},
		"-1.9":       {int64(-1), int64(-1), -1.9, nil, int64(math.MaxInt32), int64(math.MaxInt64)},
		"abc":        {nil, nil, nil, nil, int64(math.MinInt32), int64(math.MinInt64)},
		"1e3":        {nil, nil, 1000.0, nil, int64(0), int64(0)},
		"2147483648": {nil, int64(2147483648), 2147483648.0, nil, int64(2), int64(2)},
		" yes ":      {nil, nil, nil, true, int64(-2), int64(-2)},
		"":           {nil, nil, nil, nil, int64(math.MaxInt32), int64(3000000000)},
	}
	rows := rowsOf(t, mustSQL(t, s, `SELECT txt, CAST(txt AS int) AS i, CAST(txt AS bigint) AS b,
		CAST(txt AS double) AS f, CAST(txt AS boolean) AS t, CAST(d AS int) AS di, CAST(d AS bigint) AS dbi
		FROM lakehouse.c.raw`))
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d", len(rows), len(wants))
	}
	for _, r := range rows {
		w, ok := wants[r["txt"].(string)]
		if !ok {
			t.Fatalf("unexpected row %v", r)
		}
		for col, v := range map[string]any{"i": w.i, "b": w.b, "f": w.f, "t": w.t, "di": w.di, "dbi": w.dbi} {
			if r[col] != v {
				t.Errorf("txt=%q: %s = %v (%T), want %v (%T)", r["txt"], col, r[col], r[col], v, v)
			}
		}
	}
	// The same rules hold for literals, which are folded before running.
	lit := rowsOf(t, mustSQL(t, s, `SELECT CAST(' 7 ' AS int) AS a, CAST('2.5' AS bigint) AS b, CAST(1e10 AS int) AS c,
		CAST('t' AS boolean) AS d, CAST(' -inf ' AS double) AS e, CAST(1e10 AS smallint) AS f`))[0]
	for col, v := range map[string]any{"a": int64(7), "b": int64(2), "c": int64(math.MaxInt32), "d": true, "e": math.Inf(-1),
		"f": int64(-1)} { // smallint takes the saturated int's low bits, as Spark's toInt.toShort
		if lit[col] != v {
			t.Errorf("literal %s = %v (%T), want %v (%T)", col, lit[col], lit[col], v, v)
		}
	}
}

// CAST(double AS STRING), and concat() of a double, write Java's
// Double.toString, as Spark's Cast does: always a decimal point ("2.0"),
// scientific notation below 1e-3 and from 1e7 on ("1.0E-4", "1.0E7",
// "1.23456789E7"). Atlas wrote Go's "2", "1e-04", "1.23456789e+07". The
// expected strings are Java's, written by hand.
func TestCastDoubleToStringAsJava(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.c")
	mustSQL(t, s, "CREATE TABLE lakehouse.c.d (id int, d double, f float) USING iceberg")
	mustSQL(t, s, `INSERT INTO lakehouse.c.d VALUES (1, 2, 2), (2, 1e20, 1e20), (3, 0.0001, 0.0001), (4, 12345678.9, 0.1),
		(5, 0.001, -1.5), (6, 9999999, 1e7), (7, -2.5e-7, NULL), (8, CAST('NaN' AS double), CAST('-inf' AS float)), (9, 1.0D / 3, 0)`)
	sameLines(t, "double as string", render(rowsOf(t, mustSQL(t, s, "SELECT id, CAST(d AS string) AS ds, CAST(f AS string) AS fs, concat('v=', d) AS c FROM lakehouse.c.d")), "id", "ds", "fs", "c"), []string{
		"id=1 ds=2.0 fs=2.0 c=v=2.0",
		"id=2 ds=1.0E20 fs=1.0E20 c=v=1.0E20",
		"id=3 ds=1.0E-4 fs=1.0E-4 c=v=1.0E-4",
		"id=4 ds=1.23456789E7 fs=0.1 c=v=1.23456789E7",
		"id=5 ds=0.001 fs=-1.5 c=v=0.001",
		"id=6 ds=9999999.0 fs=1.0E7 c=v=9999999.0",
		"id=7 ds=-2.5E-7 fs=<nil> c=v=-2.5E-7",
		"id=8 ds=NaN fs=-Infinity c=v=NaN",
		"id=9 ds=0.3333333333333333 fs=0.0 c=v=0.3333333333333333",
	})
}
