package engine

import (
	"github.com/apache/arrow-go/v18/arrow"

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
