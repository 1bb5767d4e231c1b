package rowconv

import (
	"reflect"
	"testing"

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
