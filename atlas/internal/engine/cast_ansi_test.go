package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

const (
	invalidInputTail = " because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead."
	overflowTail     = " due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead."
)

// Spark 4 runs with spark.sql.ansi.enabled=true, and so does Atlas: an
// explicit CAST of a string that is not a number or boolean of the target
// type, or of a number outside the target's range, fails the query with
// CAST_INVALID_INPUT or CAST_OVERFLOW (error-conditions.json; the values
// written as Spark's toSQLValue: 3000000000L, 1.0E10D, NaN). Atlas
// returned NULL or saturated. The expected messages are written by hand
// from Spark's templates.
func TestCastANSIFailsWithSparkErrorClass(t *testing.T) {
	s := sqlSession(t)
	cases := map[string]string{
		"SELECT CAST('abc' AS int)":                      `[CAST_INVALID_INPUT] The value 'abc' of the type "STRING" cannot be cast to "INT"` + invalidInputTail,
		"SELECT CAST('1.5' AS bigint)":                   `[CAST_INVALID_INPUT] The value '1.5' of the type "STRING" cannot be cast to "BIGINT"` + invalidInputTail,
		"SELECT CAST('2147483648' AS int)":               `[CAST_INVALID_INPUT] The value '2147483648' of the type "STRING" cannot be cast to "INT"` + invalidInputTail,
		"SELECT CAST('' AS smallint)":                    `[CAST_INVALID_INPUT] The value '' of the type "STRING" cannot be cast to "SMALLINT"` + invalidInputTail,
		"SELECT CAST('it''s' AS double)":                 `[CAST_INVALID_INPUT] The value 'it\'s' of the type "STRING" cannot be cast to "DOUBLE"` + invalidInputTail,
		"SELECT CAST('2024-13-01' AS timestamp)":         `[CAST_INVALID_INPUT] The value '2024-13-01' of the type "STRING" cannot be cast to "TIMESTAMP"` + invalidInputTail,
		"SELECT CAST('maybe' AS boolean)":                `[CAST_INVALID_INPUT] The value 'maybe' of the type "STRING" cannot be cast to "BOOLEAN"` + invalidInputTail,
		"SELECT CAST(3000000000 AS int)":                 `[CAST_OVERFLOW] The value 3000000000L of the type "BIGINT" cannot be cast to "INT"` + overflowTail,
		"SELECT CAST(1e10 AS int)":                       `[CAST_OVERFLOW] The value 1.0E10D of the type "DOUBLE" cannot be cast to "INT"` + overflowTail,
		"SELECT CAST(CAST('NaN' AS double) AS bigint)":   `[CAST_OVERFLOW] The value NaN of the type "DOUBLE" cannot be cast to "BIGINT"` + overflowTail,
		"SELECT CAST(CAST('-inf' AS double) AS int)":     `[CAST_OVERFLOW] The value -Infinity of the type "DOUBLE" cannot be cast to "INT"` + overflowTail,
		"SELECT CAST(CAST(200 AS int) AS tinyint)":       `[CAST_OVERFLOW] The value 200 of the type "INT" cannot be cast to "TINYINT"` + overflowTail,
		"SELECT CAST(CAST(40000 AS bigint) AS smallint)": `[CAST_OVERFLOW] The value 40000L of the type "BIGINT" cannot be cast to "SMALLINT"` + overflowTail,
	}
	for q, want := range cases {
		rows, err := sqlRowsErr(s, q)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, %v\nwant %s", q, rows, err, want)
		}
	}
	// What ANSI accepts converts as before: trimmed text, in-range numbers.
	r := rowsOf(t, mustSQL(t, s, `SELECT CAST(' 12 ' AS int) AS a, CAST('-9223372036854775808' AS bigint) AS b,
		CAST(' yes ' AS boolean) AS c, CAST('1e3' AS double) AS d, CAST(2.9 AS int) AS e, CAST(-2147483648.9 AS int) AS f,
		CAST(127 AS tinyint) AS g`))[0]
	for col, v := range map[string]any{"a": int64(12), "b": int64(-9223372036854775808), "c": true, "d": 1000.0, "e": int64(2),
		"f": int64(-2147483648), "g": int64(127)} {
		if r[col] != v {
			t.Errorf("%s = %v (%T), want %v (%T)", col, r[col], r[col], v, v)
		}
	}
}

// A column's first value that does not convert fails the query, named.
func TestCastANSIColumnNamesTheValue(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.c")
	mustSQL(t, s, "CREATE TABLE lakehouse.c.raw (txt string, d double) USING iceberg")
	mustSQL(t, s, `INSERT INTO lakehouse.c.raw VALUES ('12', 1.5), ('x7', 1e10)`)
	for q, want := range map[string]string{
		"SELECT CAST(txt AS int) FROM lakehouse.c.raw": `[CAST_INVALID_INPUT] The value 'x7' of the type "STRING" cannot be cast to "INT"` + invalidInputTail,
		"SELECT CAST(d AS int) FROM lakehouse.c.raw":   `[CAST_OVERFLOW] The value 1.0E10D of the type "DOUBLE" cannot be cast to "INT"` + overflowTail,
	} {
		if rows, err := sqlRowsErr(s, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, %v\nwant %s", q, rows, err, want)
		}
	}
	// The DataFrame API's Cast is explicit too; TryCast gives NULL.
	df := mustSQL(t, s, "SELECT txt, d FROM lakehouse.c.raw")
	if _, err := df.Select(engine.Col("txt").Cast("int")).Rows(context.Background()); err == nil || !strings.Contains(err.Error(), "[CAST_INVALID_INPUT] The value 'x7'") {
		t.Errorf("Col.Cast: got %v, want CAST_INVALID_INPUT", err)
	}
	got := render(rowsOf(t, df.Select(engine.Col("txt"), engine.Col("txt").TryCast("int").Alias("i"), engine.Col("d").TryCast("int").Alias("di")).OrderBy("txt")), "txt", "i", "di")
	sameLines(t, "TryCast", got, []string{"txt=12 i=12 di=1", "txt=x7 i=<nil> di=<nil>"})
}

// try_cast is ANSI's parsing with NULL for what does not convert; a
// fraction in a string is malformed for an integer there (Spark's
// UTF8String.toIntExact), where non-ANSI CAST drops it.
func TestTryCastGivesNull(t *testing.T) {
	s := sqlSession(t)
	r := rowsOf(t, mustSQL(t, s, `SELECT try_cast('abc' AS int) AS a, try_cast(3000000000 AS int) AS b, try_cast('1.5' AS int) AS c,
		try_cast(' 12 ' AS int) AS d, try_cast(1e10 AS int) AS e, try_cast('maybe' AS boolean) AS f, try_cast('2.5' AS double) AS g,
		try_cast(NULL AS int) AS h, try_cast('x' AS timestamp) AS i, try_cast('1970-01-01 00:00:01' AS timestamp) AS j`))[0]
	for col, v := range map[string]any{"a": nil, "b": nil, "c": nil, "d": int64(12), "e": nil, "f": nil, "g": 2.5, "h": nil, "i": nil,
		"j": time.Unix(1, 0).UTC()} {
		if r[col] != v {
			t.Errorf("%s = %v (%T), want %v (%T)", col, r[col], r[col], v, v)
		}
	}
}

// spark.sql.ansi.enabled=false, set when the session is built or at run
// time, gives Spark's non-ANSI NULL and saturation back; try_cast stays
// NULL.
func TestCastANSIOff(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).Config("spark.sql.ansi.enabled", "false").GetOrCreate()
	t.Cleanup(s.Stop)
	const q = "SELECT CAST('abc' AS int) AS a, CAST(1e10 AS int) AS b, CAST('1.9' AS int) AS c, try_cast('1.9' AS int) AS d"
	want := map[string]any{"a": nil, "b": int64(2147483647), "c": int64(1), "d": nil}
	check := func(what string) {
		t.Helper()
		r := rowsOf(t, mustSQL(t, s, q))[0]
		for col, v := range want {
			if r[col] != v {
				t.Errorf("%s: %s = %v (%T), want %v (%T)", what, col, r[col], r[col], v, v)
			}
		}
	}
	check("Config")
	s.SetConf("spark.sql.ansi.enabled", "true")
	if _, err := sqlRowsErr(s, q); err == nil || !strings.Contains(err.Error(), "[CAST_INVALID_INPUT] The value 'abc'") {
		t.Fatalf("SetConf true: got %v, want CAST_INVALID_INPUT", err)
	}
	s.SetConf("spark.sql.ansi.enabled", "FALSE")
	check("SetConf false")
}

// Implicit casts are not explicit casts: comparing an int column with the
// string '5', a union of an int and a string column, and an int joined to
// a string key convert as before (no error for 'x').
func TestCastANSIImplicitUnchanged(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.c")
	mustSQL(t, s, "CREATE TABLE lakehouse.c.n (n int, s string) USING iceberg")
	mustSQL(t, s, `INSERT INTO lakehouse.c.n VALUES (5, '5'), (6, 'x'), (7, '7')`)
	sameLines(t, "n = '5'", render(rowsOf(t, mustSQL(t, s, "SELECT n FROM lakehouse.c.n WHERE n = '5'")), "n"), []string{"n=5"})
	sameLines(t, "n > '5'", render(rowsOf(t, mustSQL(t, s, "SELECT n FROM lakehouse.c.n WHERE n > '5' ORDER BY n")), "n"), []string{"n=6", "n=7"})
	got := render(rowsOf(t, mustSQL(t, s, "SELECT a.n FROM lakehouse.c.n a JOIN lakehouse.c.n b ON a.n = b.s ORDER BY a.n")), "n")
	sameLines(t, "join int = string", got, []string{"n=5", "n=7"})
	u := render(rowsOf(t, mustSQL(t, s, "SELECT n AS v FROM lakehouse.c.n UNION ALL SELECT s FROM lakehouse.c.n")), "v")
	sort.Strings(u)
	sameLines(t, "union", u, []string{"v=5", "v=5", "v=6", "v=7", "v=7", "v=x"})
}

// In a streaming query an ANSI cast error fails the micro-batch, and the
// query with it, as in Spark: Exception() carries the error class, and the
// failed batch commits nothing (the table keeps batch 0's rows, the
// checkpoint's commit log only batch 0).
func TestCastANSIFailsStreamingQuery(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.c")
	ms, err := s.MemoryStream("src", "txt string")
	if err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	q, err := ms.ToDF().Select(engine.Col("txt").Cast("int").Alias("n")).WriteStream().
		Option("checkpointLocation", ck).Progress(false).ToTable("lakehouse.c.nums")
	if err != nil {
		t.Fatal(err)
	}
	if err := ms.AddRows([]any{"1"}, []any{"2"}); err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	if err := ms.AddRows([]any{"3"}, []any{"abc"}); err != nil {
		t.Fatal(err)
	}
	const want = `[CAST_INVALID_INPUT] The value 'abc' of the type "STRING" cannot be cast to "INT"` + invalidInputTail
	if err := q.ProcessAllAvailable(); err == nil {
		q.Stop()
		t.Fatalf("the batch with 'abc' succeeded, want it failed with %s", want)
	}
	ended, err := q.AwaitTerminationTimeout(time.Minute)
	if !ended {
		q.Stop()
		t.Fatalf("the query still runs after 'abc', want it failed with %s", want)
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("AwaitTermination = %v, want %s", err, want)
	}
	if ex := q.Exception(); ex == nil || !strings.Contains(ex.Error(), "[CAST_INVALID_INPUT]") {
		t.Fatalf("Exception() = %v, want CAST_INVALID_INPUT", ex)
	}
	sameLines(t, "table after the failed batch", render(rowsOf(t, mustSQL(t, s, "SELECT n FROM lakehouse.c.nums ORDER BY n")), "n"), []string{"n=1", "n=2"})
	entries, err := os.ReadDir(filepath.Join(ck, "commits"))
	if err != nil {
		t.Fatal(err)
	}
	var commits []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			commits = append(commits, e.Name())
		}
	}
	sameLines(t, "commit log", commits, []string{"0"})
}
