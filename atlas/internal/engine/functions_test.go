package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

// oneRow runs a SELECT without FROM and returns its only row.
func oneRow(t *testing.T, s *engine.Session, q string) engine.Row {
	t.Helper()
	rows := rowsOf(t, mustSQL(t, s, q))
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows", q, len(rows))
	}
	return rows[0]
}

// runErr runs q and returns its error text (planning or execution).
func runErr(t *testing.T, s *engine.Session, q string) string {
	t.Helper()
	df, err := s.SQL(q)
	if err == nil {
		_, err = df.Rows(context.Background())
	}
	if err == nil {
		t.Fatalf("%s: no error", q)
	}
	return err.Error()
}

// show renders a value with its Go type, strings quoted, so "1" and 1
// differ.
func show(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case string:
		return fmt.Sprintf("%q", x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case nil:
		return "NULL"
	}
	return fmt.Sprintf("%v(%T)", v, v)
}

// expectRow checks every column of want against the single row of q.
func expectRow(t *testing.T, s *engine.Session, q string, want map[string]any) {
	t.Helper()
	got := oneRow(t, s, q)
	for k, w := range want {
		if show(got[k]) != show(w) {
			t.Errorf("%s\n  %s = %s, want %s", q, k, show(got[k]), show(w))
		}
	}
}

// The examples of Spark's SQL function reference (sql-ref-functions, the
// "Examples:" of each function) with the results printed there.
func TestSparkDocExamplesOfStringAndArrayFunctions(t *testing.T) {
	s := sqlSession(t)
	expectRow(t, s, `SELECT concat('Spark', 'SQL') AS a, concat('Spark', NULL) AS b,
		concat_ws(' ', 'Spark', 'SQL') AS c, concat_ws('s') AS d, concat_ws('/', 'foo', null, 'bar') AS e,
		concat_ws(NULL, 'a', 'b') AS f,
		upper('SparkSql') AS g, lower('SparkSql') AS h, ucase('é') AS i,
		coalesce(NULL, 1, NULL) AS j, coalesce(NULL, NULL) AS k, nvl(NULL, 'x') AS l,
		concat_ws(',', 'a', array('b', NULL, 'c'), NULL, split('d e', ' ')) AS m`, map[string]any{
		"m": "a,b,c,d,e",
		"a": "SparkSQL", "b": nil, "c": "Spark SQL", "d": "", "e": "foo/bar", "f": nil,
		"g": "SPARKSQL", "h": "sparksql", "i": "É", "j": int64(1), "k": nil, "l": "x",
	})
	expectRow(t, s, `SELECT split('oneAtwoBthreeC', '[ABC]') AS a, split('oneAtwoBthreeC', '[ABC]', -1) AS b,
		split('oneAtwoBthreeC', '[ABC]', 2) AS c, split('', ',') AS d, split('a,b,,', ',') AS e,
		split('a,b,,', ',', 0) AS f, split('abc', '') AS g, split(NULL, ',') AS h`, map[string]any{
		"a": []any{"one", "two", "three", ""}, "b": []any{"one", "two", "three", ""},
		"c": []any{"one", "twoBthreeC"}, "d": []any{""}, "e": []any{"a", "b", "", ""},
		"f": []any{"a", "b", "", ""}, "g": []any{"a", "b", "c"}, "h": nil,
	})
	expectRow(t, s, `SELECT array(1, 2, 3) AS a, element_at(array(1, 2, 3), 2) AS b, element_at(array(1, 2, 3), -1) AS c,
		try_element_at(array(1, 2, 3), 5) AS d, try_element_at(array(1, 2, 3), -4) AS e, element_at(array(1, 2), NULL) AS f,
		size(array('b', 'd', 'c', 'a')) AS g, array(1, 2.5, NULL) AS h, array('a', 1) AS i,
		element_at(split('a b c', ' '), 3) AS j, element_at(array('a', 1), 2) AS k, element_at(array('a', NULL), -1) AS l,
		try_element_at(array('a', 'b'), 3) AS m, element_at(array(1.5, 2), 1) AS n`, map[string]any{
		"k": "1", "l": nil, "m": nil, "n": "1.5", // array(1.5, 2): array<decimal(11,1)>, a decimal reads as its digits
		"a": []any{int64(1), int64(2), int64(3)}, "b": int64(2), "c": int64(3), "d": nil, "e": nil, "f": nil,
		"g": int64(4), "h": []any{"1.0", "2.5", nil}, // array<decimal(11,1)> "i": []any{"a", "1"}, "j": "c",
	})
	// ANSI mode (Spark 4's default): out of range and index 0 are errors.
	for q, want := range map[string]string{
		"SELECT element_at(array(1, 2, 3), 5)":  "[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index 5 is out of bounds. The array has 3 elements. Use `try_element_at`",
		"SELECT element_at(array(1, 2, 3), -4)": "[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index -4 is out of bounds. The array has 3 elements.",
		"SELECT element_at(array(1, 2, 3), 0)":  "[INVALID_INDEX_OF_ZERO]",
		"SELECT element_at('abc', 1)":           "the first argument must be an array or a map, got string",
		"SELECT split('a', '(')":                "invalid regex",
	} {
		if got := runErr(t, s, q); !strings.Contains(got, want) {
			t.Errorf("%s: error %q, want it to contain %q", q, got, want)
		}
	}
}

// CASE in both forms and when/otherwise; null conditions count as false.
func TestCaseWhenSearchedAndSimple(t *testing.T) {
	s := sqlSession(t)
	// Spark docs: SELECT CASE WHEN 1 > 0 THEN 1 WHEN 2 > 0 THEN 2.0 ELSE 1.2 END -> 1.0
	expectRow(t, s, `SELECT CASE WHEN 1 > 0 THEN 1 WHEN 2 > 0 THEN 2.0 ELSE 1.2 END AS a,
		CASE WHEN 1 < 0 THEN 1 WHEN 2 < 0 THEN 2.0 END AS b,
		CASE WHEN NULL THEN 'x' ELSE 'y' END AS c,
		CASE 3 WHEN 1 THEN 'one' WHEN 3 THEN 'three' ELSE 'other' END AS d,
		CASE 'z' WHEN 'a' THEN 1 END AS e,
		if(1 = 1, 'yes', 'no') AS f`, map[string]any{
		"a": "1.0", "b": nil, "c": "y", "d": "three", "e": nil, "f": "yes", // a: decimal(11,1), read as its digits
	})
}

// to_timestamp, try_to_timestamp and date_format with Spark datetime
// patterns; the expected instants are built with package time.
func TestDatetimePatternsParseAndFormat(t *testing.T) {
	s := sqlSession(t)
	at := func(y int, mo time.Month, d, h, mi, sec, us int) time.Time {
		return time.Date(y, mo, d, h, mi, sec, us*1000, time.UTC)
	}
	expectRow(t, s, `SELECT to_timestamp('2016-12-31 00:12:00') AS a, to_timestamp('2016-12-31', 'yyyy-MM-dd') AS b,
		try_to_timestamp('foo', 'yyyy-MM-dd') AS c, try_to_timestamp('2016-12-31 abc') AS d,
		to_timestamp('2019-10-06 10:11:12.345', 'yyyy-MM-dd HH:mm:ss.SSS') AS e,
		to_timestamp('20240102', 'yyyyMMdd') AS f, to_timestamp('06/12/2024 03:04 PM', 'MM/dd/yyyy hh:mm a') AS g,
		to_timestamp('12 Mar 2024 01:02:03 +0200', 'dd MMM yyyy HH:mm:ss Z') AS h,
		to_timestamp('2024-03-05T07:08:09Z', "yyyy-MM-dd'T'HH:mm:ssX") AS i,
		try_to_timestamp('2024-02-30', 'yyyy-MM-dd') AS j, to_timestamp(NULL, 'yyyy') AS k,
		to_timestamp('2024-01-02 03:04', 'yyyy-MM-dd HH:mm[:ss]') AS l,
		CAST('2016-12-31 00:12:00' AS timestamp) AS m, CAST('2016-12-31T00:12:00.5+01:00' AS timestamp) AS n,
		CAST('2016-12' AS timestamp) AS o, try_cast('2016-13-01' AS timestamp) AS p`, map[string]any{
		"m": at(2016, 12, 31, 0, 12, 0, 0), "n": at(2016, 12, 30, 23, 12, 0, 500000), "o": at(2016, 12, 1, 0, 0, 0, 0), "p": nil,
		"a": at(2016, 12, 31, 0, 12, 0, 0), "b": at(2016, 12, 31, 0, 0, 0, 0), "c": nil, "d": nil,
		"e": at(2019, 10, 6, 10, 11, 12, 345000), "f": at(2024, 1, 2, 0, 0, 0, 0), "g": at(2024, 6, 12, 15, 4, 0, 0),
		"h": at(2024, 3, 11, 23, 2, 3, 0), "i": at(2024, 3, 5, 7, 8, 9, 0), "j": nil, "k": nil,
		"l": at(2024, 1, 2, 3, 4, 0, 0),
	})
	expectRow(t, s, `SELECT date_format('2016-04-08', 'y') AS a,
		date_format(TIMESTAMP '2024-03-05 07:08:09.123456', "EEEE, MMM d yyyy 'at' hh:mm:ss.SSS a") AS b,
		date_format(TIMESTAMP '2024-03-05 17:08:09.123456', 'yyyy-MM-dd HH:mm:ss.SSSSSS') AS c,
		date_format(TIMESTAMP '2024-12-31 00:00:00', "D yy MM/dd EEE 'o''clock'") AS d,
		CAST(TIMESTAMP '2024-01-01 00:00:00.5' AS string) AS e, concat('t=', TIMESTAMP '2024-01-01 00:00:00') AS f`, map[string]any{
		"e": "2024-01-01 00:00:00.5", "f": "t=2024-01-01 00:00:00",
		"a": "2016", "b": "Tuesday, Mar 5 2024 at 07:08:09.123 AM", "c": "2024-03-05 17:08:09.123456", "d": "366 24 12/31 Tue o'clock",
	})
	for q, want := range map[string]string{
		"SELECT to_timestamp('2016-12-31 abc')":                                "[CAST_INVALID_INPUT] The value '2016-12-31 abc'",
		"SELECT to_timestamp('foo', 'yyyy-MM-dd')":                             "[CANNOT_PARSE_TIMESTAMP] Text 'foo' could not be parsed",
		"SELECT to_timestamp('2024-02-30', 'yyyy-MM-dd')":                      "[CANNOT_PARSE_TIMESTAMP] Text '2024-02-30'",
		"SELECT date_format(TIMESTAMP '2024-01-01 00:00:00', 'yyyy-MM-dd uu')": "unsupported pattern letter 'u'",
	} {
		if got := runErr(t, s, q); !strings.Contains(got, want) {
			t.Errorf("%s: error %q, want it to contain %q", q, got, want)
		}
	}
}

// Interval arithmetic: timestamp ± interval, timestamp - timestamp (a
// day-time interval, as Spark 3.x+), shown as Spark shows it.
func TestIntervalArithmetic(t *testing.T) {
	s := sqlSession(t)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	expectRow(t, s, `SELECT TIMESTAMP '2024-01-01 00:00:00' + INTERVAL 10 MINUTES AS a,
		TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '1' HOUR AS b,
		INTERVAL 1 DAY + TIMESTAMP '2024-01-01 00:00:00' AS c,
		TIMESTAMP '2024-01-01 00:10:00' - TIMESTAMP '2024-01-01 00:00:00' AS d,
		TIMESTAMP '2024-01-01 00:00:00' - TIMESTAMP '2024-01-02 01:02:03.5' AS e,
		INTERVAL 1 HOUR - INTERVAL 90 MINUTES AS f,
		TIMESTAMP '2024-01-01 00:10:00' - TIMESTAMP '2024-01-01 00:00:00' > INTERVAL 5 MINUTES AS g,
		CAST(NULL AS timestamp) + INTERVAL 1 SECOND AS h`, map[string]any{
		"a": base.Add(10 * time.Minute), "b": base.Add(-time.Hour), "c": base.Add(24 * time.Hour),
		"d": 10 * time.Minute, "e": -(25*time.Hour + 2*time.Minute + 3500*time.Millisecond),
		"f": -30 * time.Minute, "g": true, "h": nil,
	})
	df := mustSQL(t, s, `SELECT TIMESTAMP '2024-01-01 00:10:00' - TIMESTAMP '2024-01-01 00:00:00' AS d,
		TIMESTAMP '2024-01-01 00:00:00' - TIMESTAMP '2024-01-02 01:02:03.5' AS e`)
	schema, recs, err := df.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := table.TextTable(schema, recs, 20, false)
	for _, want := range []string{"INTERVAL '0 00:10:00' DAY TO SECOND", "INTERVAL '-1 01:02:03.5' DAY TO SECOND"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	// The DataFrame API: a time.Duration is an interval literal.
	two := mustSQL(t, s, "SELECT TIMESTAMP '2024-01-01 00:00:00' AS a, TIMESTAMP '2024-01-01 00:45:30' AS b")
	row := rowsOf(t, two.Select(engine.Col("a").Plus(10*time.Minute).Alias("later"), engine.Col("b").Minus(engine.Col("a")).Alias("gap"),
		engine.Col("b").Minus(engine.Col("a")).Gt(45*time.Minute).Alias("long")))[0]
	if !row["later"].(time.Time).Equal(base.Add(10*time.Minute)) || row["gap"] != 45*time.Minute+30*time.Second || row["long"] != true {
		t.Errorf("DataFrame interval arithmetic: %v", row)
	}
	if got := runErr(t, s, "SELECT TIMESTAMP '2024-01-01 00:00:00' + TIMESTAMP '2024-01-01 00:00:00'"); !strings.Contains(got, "timestamp - timestamp") {
		t.Errorf("ts + ts: %s", got)
	}
}

// Grouping by a struct column: a window selected as a column, then
// GroupBy(Col("window")), and by an array; Union and Distinct through the
// DataFrame API. References are computed with Go maps over the same rows.
func TestGroupByStructAndArrayColumns(t *testing.T) {
	s := ordersSession(t)
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.clicks (ts timestamp, page string) USING iceberg")
	want := map[string]int64{}
	var vals []string
	for i := 0; i < 40; i++ {
		ts := base.Add(time.Duration(i*i*7) * time.Second)
		page := []string{"home", "cart", "pay"}[i%3]
		vals = append(vals, fmt.Sprintf("(TIMESTAMP '%s', '%s')", ts.Format("2006-01-02 15:04:05"), page))
		want[ts.Truncate(5*time.Minute).Format(time.TimeOnly)+" "+page]++
	}
	vals = append(vals, "(NULL, 'home')")
	want["<nil> home"]++ // a null time gives a null window struct, one group
	mustSQL(t, s, "INSERT INTO lakehouse.silver.clicks VALUES "+strings.Join(vals, ", "))
	clicks := s.Table("lakehouse.silver.clicks")
	windowed := clicks.Select(engine.Window(engine.Col("ts"), "5 minutes").Alias("window"), engine.Col("page"))
	for name, df := range map[string]*engine.DataFrame{
		"struct + string": windowed.GroupBy(engine.Col("window"), "page").Count(),
		"one struct":      windowed.Select(engine.Col("window"), engine.Array(engine.Col("page")).Alias("pages")).GroupBy("window", "pages").Count(),
	} {
		got := map[string]int64{}
		for _, r := range rowsOf(t, df) {
			k := "<nil>"
			if w, ok := r["window"].(engine.Row); ok {
				k = w["start"].(time.Time).Format(time.TimeOnly)
			}
			page, _ := r["page"].(string)
			if ps, ok := r["pages"].([]any); ok {
				page = ps[0].(string)
			}
			got[k+" "+page] = r["count"].(int64)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}

	orders := s.Table("lakehouse.silver.orders")
	both := orders.Select("country").Union(orders.Select("country")).Distinct()
	set := map[string]bool{}
	for _, r := range orderRows {
		set["country="+r.country] = true
	}
	var wantC []string
	for k := range set {
		wantC = append(wantC, k)
	}
	sameLines(t, "union + distinct", render(rowsOf(t, both), "country"), wantC)
	n, err := orders.UnionAll(orders).Count(context.Background())
	if err != nil || n != int64(2*len(orderRows)) {
		t.Errorf("unionAll count = %d, %v; want %d", n, err, 2*len(orderRows))
	}
}

// current_timestamp() is one value per micro-batch, the batch's timestamp
// (the same for every row of a batch, later batches never earlier), and
// one value for a whole batch query.
func TestCurrentTimestampIsFixedPerBatch(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("ev", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	var perBatch [][]time.Time
	q, err := ms.ToDF().Select(engine.Col("v"), engine.CurrentTimestamp().Alias("now")).
		WriteStream().Progress(false).Option("checkpointLocation", t.TempDir()).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(t.Context())
			if err != nil {
				return err
			}
			var ts []time.Time
			for _, r := range rows {
				ts = append(ts, r["now"].(time.Time))
			}
			perBatch = append(perBatch, ts)
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	for b := 0; b < 3; b++ {
		var rows [][]any
		for i := 0; i < 500; i++ {
			rows = append(rows, []any{int64(i)})
		}
		if err := ms.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // batch timestamps are in milliseconds
	}
	var prev time.Time
	for i, ts := range perBatch {
		if len(ts) == 0 {
			continue
		}
		for _, x := range ts {
			if !x.Equal(ts[0]) {
				t.Fatalf("batch %d: current_timestamp %v and %v in one batch", i, ts[0], x)
			}
		}
		if ts[0].Before(prev) || ts[0].Nanosecond()%int(time.Millisecond) != 0 {
			t.Fatalf("batch %d: current_timestamp %v (previous %v) is not a later batch timestamp", i, ts[0], prev)
		}
		prev = ts[0]
	}
	// A batch query: one value across all rows of all its records.
	rows := rowsOf(t, mustSQL(t, sqlSession(t), "SELECT current_timestamp() AS a, now() AS b"))
	if !rows[0]["a"].(time.Time).Equal(rows[0]["b"].(time.Time)) {
		t.Errorf("current_timestamp() %v != now() %v in one query", rows[0]["a"], rows[0]["b"])
	}
}

// Arrays end to end through Iceberg: CREATE TABLE with array<string>,
// INSERT of split() and array() values, CTAS, and reading them back.
func TestArraysRoundTripThroughIceberg(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.silver")
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.tags (id int, tags array<string>) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.tags SELECT 1, split('a,b,,c', ',')")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.tags VALUES (2, array('x', NULL)), (3, NULL)")
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.tags2 USING iceberg AS SELECT id, tags, size(tags) AS n, element_at(tags, -1) AS last FROM lakehouse.silver.tags WHERE id < 3")
	got := render(rowsOf(t, mustSQL(t, s, "SELECT id, tags FROM lakehouse.silver.tags")), "id", "tags")
	sameLines(t, "tags", got, []string{"id=1 tags=[a b  c]", "id=2 tags=[x <nil>]", "id=3 tags=<nil>"})
	got = render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.silver.tags2")), "id", "n", "last")
	sameLines(t, "ctas", got, []string{"id=1 n=4 last=c", "id=2 n=2 last=<nil>"})
	schema := s.Table("lakehouse.silver.tags2").SchemaString()
	if !strings.Contains(schema, "|-- tags: array (nullable = true)\n |    |-- element: string (containsNull = true)") {
		t.Errorf("printSchema:\n%s", schema)
	}
}

// A window selected as a column and then grouped by (GroupBy(Col("window")))
// is evicted by the watermark like a window key: append mode emits each
// closed window once, the same rows as modes_test's reference for
// GroupBy(Window(...)).
func TestGroupBySelectedWindowInAppendMode(t *testing.T) {
	batches := genBatches(5, 5, 300)
	wantAppend, _, _ := modeReference(batches)
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("ev", "event string, ts timestamp")
	if err != nil {
		t.Fatal(err)
	}
	counts := ms.ToDF().WithWatermark("ts", "10 minutes").
		Select(engine.Window(engine.Col("ts"), "5 minutes").Alias("window"), engine.Col("event")).
		GroupBy(engine.Col("window"), "event").Count()
	var got []map[wkey]int64
	q, err := counts.WriteStream().OutputMode("append").Progress(false).
		Option("checkpointLocation", t.TempDir()).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(t.Context())
			if err != nil {
				return err
			}
			m := map[wkey]int64{}
			for _, r := range rows {
				w := r["window"].(engine.Row)
				m[wkey{r["event"].(string), w["start"].(time.Time)}] = r["count"].(int64)
			}
			got = append(got, m)
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	for _, b := range batches {
		if err := ms.AddRows(b...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
	}
	q.Stop()
	diffMap(t, "append over a selected window", union(t, got), union(t, wantAppend))
}
