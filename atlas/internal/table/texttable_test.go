package table

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// windowSchema is a small result of a windowed count, as an engine would
// produce it.
var windowSchema = arrow.NewSchema([]arrow.Field{
	{Name: "window_start", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "country", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "clicks", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "revenue", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

type windowRow struct {
	start   time.Time
	country *string
	clicks  *int64
	revenue float64
	ok      bool
}

func strp(s string) *string { return &s }
func i64p(v int64) *int64   { return &v }

// windowRecord builds one record batch of windowSchema from rows.
func windowRecord(t *testing.T, rows []windowRow) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), windowSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(r.start.UnixMicro()))
		if r.country == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(*r.country)
		}
		if r.clicks == nil {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(*r.clicks)
		}
		b.Field(3).(*array.Float64Builder).Append(r.revenue)
		b.Field(4).(*array.BooleanBuilder).Append(r.ok)
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

func sampleRecords(t *testing.T) []arrow.RecordBatch {
	t0 := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	return []arrow.RecordBatch{
		windowRecord(t, []windowRow{
			{t0, strp("DE"), i64p(3), 2.55, true},
			{t0.Add(5 * time.Minute), strp("United Kingdom of Great Britain"), i64p(120), 17850, false},
		}),
		windowRecord(t, []windowRow{
			{t0.Add(10*time.Minute + 250*time.Millisecond), nil, nil, 1e7, true},
		}),
	}
}

func TestTextTableMatchesSparkShow(t *testing.T) {
	// Written by hand the way Spark 3.5+ prints df.show() for these rows
	// (session time zone UTC): widths are the longest cell or header, at
	// least 3; cells right-aligned; cells over 20 characters (the
	// 31-character country and the 22-character timestamp with a fraction)
	// cut to 17 characters and "...".
	want := "" +
		"+--------------------+--------------------+------+-------+-----+\n" +
		"|        window_start|             country|clicks|revenue|   ok|\n" +
		"+--------------------+--------------------+------+-------+-----+\n" +
		"| 2026-11-30 10:05:00|                  DE|     3|   2.55| true|\n" +
		"| 2026-11-30 10:10:00|United Kingdom of...|   120|17850.0|false|\n" +
		"|2026-11-30 10:15:...|                NULL|  NULL|  1.0E7| true|\n" +
		"+--------------------+--------------------+------+-------+-----+\n"
	got := TextTable(windowSchema, sampleRecords(t), 20, true)
	if got != want {
		t.Fatalf("TextTable:\n got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTextTableFooterAndNoTruncate(t *testing.T) {
	want := "" +
		"+-------------------+-------------------------------+------+-------+-----+\n" +
		"|window_start       |country                        |clicks|revenue|ok   |\n" +
		"+-------------------+-------------------------------+------+-------+-----+\n" +
		"|2026-11-30 10:05:00|DE                             |3     |2.55   |true |\n" +
		"|2026-11-30 10:10:00|United Kingdom of Great Britain|120   |17850.0|false|\n" +
		"+-------------------+-------------------------------+------+-------+-----+\n" +
		"only showing top 2 rows\n"
	got := TextTable(windowSchema, sampleRecords(t), 2, false)
	if got != want {
		t.Fatalf("TextTable(2, false):\n got:\n%s\nwant:\n%s", got, want)
	}
	one := TextTable(windowSchema, sampleRecords(t), 1, true)
	if !strings.HasSuffix(one, "\nonly showing top 1 row\n") {
		t.Fatalf("TextTable(1) footer: %q", one)
	}
	if all := TextTable(windowSchema, sampleRecords(t), 3, true); strings.Contains(all, "only showing") {
		t.Fatalf("exactly 3 rows with maxRows 3 must have no footer:\n%s", all)
	}
}

func TestTextTableEmptyAndEscaped(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String}}, nil)
	want := "+---+\n|  a|\n+---+\n+---+\n"
	if got := TextTable(schema, nil, 20, true); got != want {
		t.Fatalf("empty table: got %q want %q", got, want)
	}
	b := array.NewStringBuilder(memory.NewGoAllocator())
	b.AppendValues([]string{"x\ty", "日本"}, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 2)
	defer rec.Release()
	// "x\ty" shows as the 4 characters x \ t y; "日本" is 4 columns wide.
	want = "+----+\n|   a|\n+----+\n|x\\ty|\n|日本|\n+----+\n"
	if got := TextTable(schema, []arrow.RecordBatch{rec}, 20, true); got != want {
		t.Fatalf("escaped/wide table:\n got %q\nwant %q", got, want)
	}
}

func TestJavaFloatString(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: a constant 0.1+0.2 is exactly 0.3
	cases := []struct {
		v    float64
		bits int
		want string
	}{
		{2.55, 64, "2.55"}, {17850, 64, "17850.0"}, {0, 64, "0.0"}, {-1.5, 64, "-1.5"},
		{1e7, 64, "1.0E7"}, {9999999, 64, "9999999.0"}, {12345678.9, 64, "1.23456789E7"},
		{0.001, 64, "0.001"}, {0.0001, 64, "1.0E-4"}, {1.5e-10, 64, "1.5E-10"},
		{tenth + fifth, 64, "0.30000000000000004"}, {100, 64, "100.0"}, {0.5, 64, "0.5"},
		{float64(float32(0.1)), 32, "0.1"}, {float64(float32(3.3e10)), 32, "3.3E10"},
	}
	for _, c := range cases {
		if got := javaFloatString(c.v, c.bits); got != c.want {
			t.Errorf("javaFloatString(%v, %d) = %q, want %q", c.v, c.bits, got, c.want)
		}
	}
}

func TestTextTableUntruncatedFraction(t *testing.T) {
	// Without truncation the fractional timestamp shows in full, trailing
	// zeros dropped (Spark prints .25, not .250000).
	got := TextTable(windowSchema, sampleRecords(t), -1, false)
	if !strings.Contains(got, "|2026-11-30 10:15:00.25|NULL   ") {
		t.Fatalf("untruncated table lacks the fractional timestamp row:\n%s", got)
	}
}
