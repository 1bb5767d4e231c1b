package table

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCellTextNested checks the Spark spellings of nested and less common
// types, one JSON-built column each.
func TestCellTextNested(t *testing.T) {
	cases := []struct {
		typ  arrow.DataType
		json string
		want []string
	}{
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1,null,3],[],null]`, []string{"[1, NULL, 3]", "[]", "NULL"}},
		{arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}),
			`[{"a":1,"b":"x"},{"a":null,"b":"y"}]`, []string{"{1, x}", "{NULL, y}"}},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), `[[{"key":"a","value":1},{"key":"b","value":2}]]`,
			[]string{"{a -> 1, b -> 2}"}},
		{arrow.BinaryTypes.Binary, `["SGk=",""]`, []string{"[48 69]", "[]"}},
		{arrow.FixedWidthTypes.Date32, `["2026-11-30"]`, []string{"2026-11-30"}},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, `["2.50","-17850.00"]`, []string{"2.50", "-17850.00"}},
		{arrow.PrimitiveTypes.Float32, `[2.55, 17850]`, []string{"2.55", "17850.0"}},
	}
	for _, c := range cases {
		arr, _, err := array.FromJSON(memory.NewGoAllocator(), c.typ, strings.NewReader(c.json))
		if err != nil {
			t.Fatalf("%s from %s: %v", c.typ, c.json, err)
		}
		for i, want := range c.want {
			if got := cellText(arr, i); got != want {
				t.Errorf("%s row %d: got %q want %q", c.typ, i, got, want)
			}
		}
		arr.Release()
	}
}
