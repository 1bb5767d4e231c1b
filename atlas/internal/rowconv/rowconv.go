// Package rowconv turns Arrow record batches into Go rows, the one
// conversion behind both the engine's and the Connect client's
// DataFrame.Rows, and Go values back into Arrow builders (AppendValue). It
// depends on Arrow only.
package rowconv

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Row is one result row by column name. Values are nil, bool, int64,
// float64, string (also a decimal, as its exact digits: "2.50"), []byte,
// time.Time (UTC), time.Duration (day-time intervals), Row for structs, []any for arrays and map[any]any for maps.
type Row map[string]any

// ToRows converts records to rows.
func ToRows(schema *arrow.Schema, recs []arrow.RecordBatch) []Row {
	var out []Row
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			row := make(Row, schema.NumFields())
			for c, f := range schema.Fields() {
				row[f.Name] = Value(r.Column(c), i)
			}
			out = append(out, row)
		}
	}
	return out
}

// Value reads one cell as a Go value; a column of Arrow type NULL reads
// as nil.
func Value(a arrow.Array, i int) any {
	if a.IsNull(i) || a.DataType().ID() == arrow.NULL {
		return nil
	}
	switch c := a.(type) {
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	case *array.Binary:
		return append([]byte(nil), c.Value(i)...)
	case *array.Int64:
		return c.Value(i)
	case *array.Int32:
		return int64(c.Value(i))
	case *array.Int16:
		return int64(c.Value(i))
	case *array.Int8:
		return int64(c.Value(i))
	case *array.Float64:
		return c.Value(i)
	case *array.Float32:
		return float64(c.Value(i))
	case *array.Boolean:
		return c.Value(i)
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		return c.Value(i).ToTime(unit).UTC()
	case *array.Date32:
		return c.Value(i).ToTime().UTC()
	case *array.Decimal128:
		// A decimal reads as its exact digits with its scale kept
		// (BigDecimal.toPlainString: 2.50), never a rounded float64.
		return decimalText(c.Value(i).BigInt(), c.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Duration:
		// A day-time interval (DayTimeIntervalType): microseconds.
		return time.Duration(c.Value(i)) * time.Microsecond
	case *array.Struct:
		st := c.DataType().(*arrow.StructType)
		row := Row{}
		for j, f := range st.Fields() {
			row[f.Name] = Value(c.Field(j), i)
		}
		return row
	case *array.Map:
		// Before *array.List: a Map is a List underneath.
		keys, items := c.Keys(), c.Items()
		start, end := c.ValueOffsets(i)
		m := make(map[any]any, end-start)
		for j := start; j < end; j++ {
			m[Value(keys, int(j))] = Value(items, int(j))
		}
		return m
	case *array.List:
		start, end := c.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, Value(c.ListValues(), int(j)))
		}
		return out
	}
	return a.ValueStr(i)
}

// AppendValue appends a Go value to a builder: nil as null, a string,
// an integer (int, int32, int64) to an integer or float64 column, float64,
// bool, time.Time to a timestamp (microseconds), []byte or a string to
// binary.
func AppendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch x := b.(type) {
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want string, got %T", v)
		}
		x.Append(s)
	case *array.Int64Builder:
		n, ok := toInt(v)
		if !ok {
			return fmt.Errorf("want an integer, got %T", v)
		}
		x.Append(n)
	case *array.Int32Builder:
		n, ok := toInt(v)
		if !ok {
			return fmt.Errorf("want an integer, got %T", v)
		}
		x.Append(int32(n))
	case *array.Float64Builder:
		switch f := v.(type) {
		case float64:
			x.Append(f)
		default:
			n, ok := toInt(v)
			if !ok {
				return fmt.Errorf("want a number, got %T", v)
			}
			x.Append(float64(n))
		}
	case *array.BooleanBuilder:
		t, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want bool, got %T", v)
		}
		x.Append(t)
	case *array.TimestampBuilder:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("want time.Time, got %T", v)
		}
		x.Append(arrow.Timestamp(t.UnixMicro()))
	case *array.BinaryBuilder:
		switch d := v.(type) {
		case []byte:
			x.Append(d)
		case string:
			x.Append([]byte(d))
		default:
			return fmt.Errorf("want []byte, got %T", v)
		}
	default:
		return fmt.Errorf("unsupported column type %s", b.Type())
	}
	return nil
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	}
	return 0, false
}

// decimalText writes an unscaled value at a scale as plain digits.
func decimalText(v *big.Int, scale int32) string {
	s := new(big.Int).Abs(v).String()
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	if scale <= 0 {
		return sign + s
	}
	if len(s) <= int(scale) {
		s = strings.Repeat("0", int(scale)-len(s)+1) + s
	}
	at := len(s) - int(scale)
	return sign + s[:at] + "." + s[at:]
}
