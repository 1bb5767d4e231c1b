// Package rowconv turns Arrow record batches into Go rows, the one
// conversion behind both the engine's and the Connect client's
// DataFrame.Rows. It depends on Arrow only.
package rowconv

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Row is one result row by column name. Values are nil, bool, int64,
// float64, string, []byte, time.Time (UTC), time.Duration (day-time
// intervals), Row for structs, []any for arrays and map[any]any for maps.
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
