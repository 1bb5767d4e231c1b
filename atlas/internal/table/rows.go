package table

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// tableRows is the part of a result that a table shows: column names and
// formatted cells, at most limit rows, plus whether rows were left out.
type tableRows struct {
	names []string
	cells [][]string
	// numeric marks columns whose values are numbers (right-aligned in HTML).
	numeric []bool
	// more is true when the records hold more rows than were taken.
	more bool
}

// collectRows formats up to limit rows of records (all rows when limit < 0)
// with [cellText]. Records whose column count differs from the schema's are
// read by position up to the smaller count; missing cells show as NULL.
func collectRows(schema *arrow.Schema, records []arrow.RecordBatch, limit int) tableRows {
	return collectRowsIn(schema, records, limit, time.UTC)
}

// collectRowsIn is collectRows showing timestamps in loc.
func collectRowsIn(schema *arrow.Schema, records []arrow.RecordBatch, limit int, loc *time.Location) tableRows {
	var t tableRows
	if schema == nil && len(records) > 0 {
		schema = records[0].Schema()
	}
	if schema != nil {
		for _, f := range schema.Fields() {
			t.names = append(t.names, f.Name)
			t.numeric = append(t.numeric, isNumeric(f.Type))
		}
	}
	ncols := len(t.names)
	for _, rec := range records {
		if rec == nil {
			continue
		}
		n := int(rec.NumRows())
		for r := 0; r < n; r++ {
			if limit >= 0 && len(t.cells) >= limit {
				t.more = true
				return t
			}
			row := make([]string, ncols)
			for c := 0; c < ncols; c++ {
				if c < int(rec.NumCols()) {
					row[c] = cellTextIn(rec.Column(c), r, loc)
				} else {
					row[c] = NullText
				}
			}
			t.cells = append(t.cells, row)
		}
	}
	return t
}

func isNumeric(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}
