package rowconv

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestToRowsNullMapStruct checks the cells both DataFrame.Rows rely on: a
// NULL-typed column reads as nil (not "(null)"), a map as map[any]any, a
// struct as Row, a list as []any.
func TestToRowsNullMapStruct(t *testing.T) {
	mem := memory.DefaultAllocator
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.Null, Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
		{Name: "s", Type: st},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.NullBuilder).AppendNull()
	mb := b.Field(1).(*array.MapBuilder)
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append("a")
	mb.ItemBuilder().(*array.Int64Builder).Append(7)
	sb := b.Field(2).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int32Builder).Append(3)
	lb := b.Field(3).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"p", "q"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	got := ToRows(schema, []arrow.RecordBatch{rec})
	want := []Row{{
		"n": nil,
		"m": map[any]any{"a": int64(7)},
		"s": Row{"x": int64(3)},
		"l": []any{"p", "q"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ToRows = %#v, want %#v", got, want)
	}
}

// AppendValue writes Go values that Value reads back unchanged (ints
// widened to the column type), nil as null, and refuses a value of the
// wrong kind with the kind it wanted.
func TestAppendValueRoundTrip(t *testing.T) {
	ts := time.Date(2026, 12, 1, 3, 4, 5, 6000, time.UTC)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	in := [][]any{
		{"x", 7, int32(8), 1.5, true, ts, []byte("ab")},
		{nil, int64(-1), 3, 2, false, nil, "cd"},
	}
	want := []Row{
		{"s": "x", "i64": int64(7), "i32": int64(8), "f": 1.5, "b": true, "ts": ts, "bin": []byte("ab")},
		{"s": nil, "i64": int64(-1), "i32": int64(3), "f": 2.0, "b": false, "ts": nil, "bin": []byte("cd")},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, row := range in {
		for i, v := range row {
			if err := AppendValue(b.Field(i), v); err != nil {
				t.Fatalf("column %s, value %v: %v", schema.Field(i).Name, v, err)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	got := ToRows(schema, []arrow.RecordBatch{rec})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows\n%v\nwant\n%v", got, want)
	}
	for _, c := range []struct {
		col  int
		v    any
		want string
	}{{0, 1, "want string"}, {1, "1", "want an integer"}, {3, "x", "want a number"}, {4, 1, "want bool"}, {5, "t", "want time.Time"}} {
		if err := AppendValue(b.Field(c.col), c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("column %s, value %#v: %v, want %q", schema.Field(c.col).Name, c.v, err, c.want)
		}
	}
}
