package engine

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/rowconv"
)

// Row is one result row by column name. Values are nil, bool, int64,
// float64, string, []byte, time.Time (UTC), time.Duration (day-time
// intervals), Row for structs, []any for arrays and map[any]any for maps.
type Row = rowconv.Row

// toRows converts records to rows.
func toRows(schema *arrow.Schema, recs []arrow.RecordBatch) []Row {
	return rowconv.ToRows(schema, recs)
}

// value reads one cell as a Go value.
func value(a arrow.Array, i int) any { return rowconv.Value(a, i) }

// appendValue appends a Go value to a builder.
func appendValue(b array.Builder, v any) error {
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
