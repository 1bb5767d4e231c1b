package types

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseDDL(t *testing.T) {
	s, err := ParseDDL("user_id string, event STRING, ts timestamp, n bigint NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		id   arrow.Type
		null bool
	}{{"user_id", arrow.STRING, true}, {"event", arrow.STRING, true}, {"ts", arrow.TIMESTAMP, true}, {"n", arrow.INT64, false}}
	if s.NumFields() != len(want) {
		t.Fatalf("got %d fields", s.NumFields())
	}
	for i, w := range want {
		f := s.Field(i)
		if f.Name != w.name || f.Type.ID() != w.id || f.Nullable != w.null {
			t.Errorf("field %d = %v, want %+v", i, f, w)
		}
	}
}

func TestParseDDLErrors(t *testing.T) {
	for ddl, msg := range map[string]string{
		"a string, b":        "needs a name and a type",
		"a strang":           "unknown type \"strang\"",
		"a string, a int":    "appears twice",
		"a string,":          "is empty",
		"a string not nulls": "unexpected",
	} {
		_, err := ParseDDL(ddl)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseDDL(%q) = %v, want error containing %q", ddl, err, msg)
		}
	}
}

func TestTreeString(t *testing.T) {
	s, _ := ParseDDL("user_id string, ts timestamp")
	got := TreeString(s)
	want := "root\n |-- user_id: string (nullable = true)\n |-- ts: timestamp (nullable = true)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTreeStringNestedTypes checks printSchema's nested lines against
// Spark's DataType.buildFormattedString (sql/api/src/main/scala/org/apache/
// spark/sql/types/{ArrayType,MapType,StructType}.scala, 3.5 and 4.0):
// arrays show "element: T (containsNull = b)", maps "key: T" and
// "value: T (valueContainsNull = b)", each nested one level deeper, and a
// decimal's typeName is decimal(p,s) without a space.
func TestTreeStringNestedTypes(t *testing.T) {
	inner := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	s := arrow.NewSchema([]arrow.Field{
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "aa", Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), Nullable: true},
		{Name: "as", Type: arrow.ListOf(inner), Nullable: false},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "ntz", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	}, nil)
	want := `root
 |-- m: map (nullable = true)
 |    |-- key: string
 |    |-- value: long (valueContainsNull = true)
 |-- aa: array (nullable = true)
 |    |-- element: array (containsNull = true)
 |    |    |-- element: string (containsNull = true)
 |-- as: array (nullable = false)
 |    |-- element: struct (containsNull = true)
 |    |    |-- a: integer (nullable = true)
 |-- d: decimal(10,2) (nullable = true)
 |-- ntz: timestamp_ntz (nullable = true)
`
	if got := TreeString(s); got != want {
		t.Errorf("TreeString:\n got\n%s\nwant\n%s", got, want)
	}
	// dtypes and column names use simpleString and sql (DataType.scala).
	for _, c := range []struct {
		t             arrow.DataType
		simple, sqlUp string
	}{
		{arrow.StructOf(arrow.Field{Name: "start", Type: Timestamp}, arrow.Field{Name: "end", Type: Timestamp}), "struct<start:timestamp,end:timestamp>", "STRUCT<start: TIMESTAMP, end: TIMESTAMP>"},
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), "array<int>", "ARRAY<INT>"},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), "map<string,bigint>", "MAP<STRING, BIGINT>"},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, "decimal(10,2)", "DECIMAL(10,2)"},
		{arrow.PrimitiveTypes.Int64, "bigint", "BIGINT"},
		{DayTimeInterval, "interval day to second", "INTERVAL DAY TO SECOND"},
	} {
		if got := SQLName(c.t); got != c.simple {
			t.Errorf("SQLName(%s) = %q, want %q", c.t, got, c.simple)
		}
		if got := SQL(c.t); got != c.sqlUp {
			t.Errorf("SQL(%s) = %q, want %q", c.t, got, c.sqlUp)
		}
	}
}
