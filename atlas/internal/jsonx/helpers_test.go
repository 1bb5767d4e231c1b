package jsonx

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// str returns a pointer to s, for input columns where nil is a null value.
func str(s string) *string { return &s }

// binaryColumn builds a binary column of JSON texts; nil entries are nulls.
func binaryColumn(mem memory.Allocator, values []*string) *array.Binary {
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	for _, v := range values {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append([]byte(*v))
		}
	}
	return b.NewBinaryArray()
}

// decodeAll decodes values with a fresh Decoder on a checked allocator and
// returns the rows as Go values (see goRows) and the stats.
func decodeAll(t *testing.T, schema *arrow.Schema, opts Options, values []*string) ([][]any, Stats) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d, err := NewDecoder(schema, opts)
	if err != nil {
		t.Fatalf("NewDecoder: %v", err)
	}
	defer d.Release()
	in := binaryColumn(mem, values)
	defer in.Release()
	out, stats, err := d.Decode(in)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	defer out.Release()
	if err := out.ValidateFull(); err != nil {
		t.Fatalf("decoded array is invalid: %v", err)
	}
	if out.Len() != len(values) {
		t.Fatalf("decoded %d rows from %d values", out.Len(), len(values))
	}
	return goRows(out), stats
}

// goRows reads a struct array back into Go values through the plain Arrow
// accessors: a nil row for a null struct, else one value per field (nil for
// null; string, []byte, int64 for every integer width, float64 for both
// float widths, bool, time.Time in UTC for timestamps, "yyyy-mm-dd" for
// dates, []any for nested structs).
func goRows(a *array.Struct) [][]any {
	rows := make([][]any, a.Len())
	for r := range rows {
		if a.IsNull(r) {
			continue
		}
		rows[r] = structRow(a, r)
	}
	return rows
}

func structRow(a *array.Struct, r int) []any {
	row := make([]any, a.NumField())
	for f := range row {
		row[f] = cell(a.Field(f), r)
	}
	return row
}

func cell(col arrow.Array, r int) any {
	if col.IsNull(r) {
		return nil
	}
	switch c := col.(type) {
	case *array.String:
		return c.Value(r)
	case *array.Binary:
		return append([]byte{}, c.Value(r)...)
	case *array.Int8:
		return int64(c.Value(r))
	case *array.Int16:
		return int64(c.Value(r))
	case *array.Int32:
		return int64(c.Value(r))
	case *array.Int64:
		return c.Value(r)
	case *array.Float32:
		return float64(c.Value(r))
	case *array.Float64:
		return c.Value(r)
	case *array.Boolean:
		return c.Value(r)
	case *array.Timestamp:
		return time.UnixMicro(int64(c.Value(r))).UTC()
	case *array.Date32:
		return c.Value(r).ToTime().Format(time.DateOnly)
	case *array.Struct:
		return structRow(c, r)
	}
	panic("unexpected column type " + col.DataType().String())
}

// ddl parses a Spark DDL schema or fails the test.
func ddl(t testing.TB, s string) *arrow.Schema {
	t.Helper()
	sc, err := types.ParseDDL(s)
	if err != nil {
		t.Fatalf("ParseDDL(%q): %v", s, err)
	}
	return sc
}

// ts is a UTC time for expected timestamp cells.
func ts(y int, mo time.Month, d, h, mi, s, micro int) time.Time {
	return time.Date(y, mo, d, h, mi, s, micro*1000, time.UTC)
}

// sameCell compares cells, treating NaN as equal to NaN.
func sameCell(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y) || math.IsNaN(x) && math.IsNaN(y))
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameCell(x[i], y[i]) {
				return false
			}
		}
		return true
	case nil:
		if b == nil {
			return true
		}
		y, ok := b.([]any)
		return ok && y == nil
	}
	return a == b
}
