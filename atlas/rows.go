package atlas

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"time"
)

// Row is one result row by column name. Values are nil, bool, int64,
// float64, string, []byte, time.Time (UTC), time.Duration (day-time
// intervals), Row for structs, []any for arrays and map[any]any for maps.
type Row map[string]any

// toRows converts records to rows.
func toRows(schema *arrow.Schema, recs []arrow.RecordBatch) []Row {
	var out []Row
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			row := make(Row, schema.NumFields())
			for c, f := range schema.Fields() {
				row[f.Name] = value(r.Column(c), i)
			}
			out = append(out, row)
		}
	}
	return out
}

// value reads one cell as a Go value.
func value(a arrow.Array, i int) any {
	if a.IsNull(i) {
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
			row[f.Name] = value(c.Field(j), i)
		}
		return row
	case *array.Map:
		// Before *array.List: a Map is a List underneath.
		keys, items := c.Keys(), c.Items()
		start, end := c.ValueOffsets(i)
		m := make(map[any]any, end-start)
		for j := start; j < end; j++ {
			m[value(keys, int(j))] = value(items, int(j))
		}
		return m
	case *array.List:
		start, end := c.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, value(c.ListValues(), int(j)))
		}
		return out
	}
	return a.ValueStr(i)
}
