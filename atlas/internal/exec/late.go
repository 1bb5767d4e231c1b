package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// The columns a late-rows table adds to the aggregation's input row.
const (
	// LateBatchIDColumn is the micro-batch that dropped the row.
	LateBatchIDColumn = "_batch_id"
	// LateWatermarkColumn is the watermark the row was older than.
	LateWatermarkColumn = "_watermark"
)

// LateRowsSchema is the schema of the rows a query keeps instead of
// silently dropping them as late: the row as it entered the aggregation
// (after parsing and projection), plus the batch id and the watermark that
// dropped it. It is nil when the query has no watermarked aggregation.
func LateRowsSchema(s *plan.Shape) *arrow.Schema {
	if s.Agg == nil || s.Watermark == nil {
		return nil
	}
	in := s.Agg.Input().Schema()
	fields := append(in.Fields(),
		arrow.Field{Name: LateBatchIDColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: LateWatermarkColumn, Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	)
	return arrow.NewSchema(fields, nil)
}

// lateRecord selects rows idx of rec (the aggregation's input) and adds
// the batch id and the watermark (µs) columns of schema.
func lateRecord(c *expr.Ctx, schema *arrow.Schema, rec arrow.RecordBatch, idx []int32, batchID, watermarkMicros int64) (arrow.RecordBatch, error) {
	taken, err := expr.TakeRows(c, rec, idx)
	if err != nil {
		return nil, fmt.Errorf("late rows: %w", err)
	}
	defer taken.Release()
	n := len(idx)
	bb := array.NewInt64Builder(c.Mem)
	defer bb.Release()
	wb := array.NewTimestampBuilder(c.Mem, schema.Field(schema.NumFields()-1).Type.(*arrow.TimestampType))
	defer wb.Release()
	for i := 0; i < n; i++ {
		bb.Append(batchID)
		wb.Append(arrow.Timestamp(watermarkMicros))
	}
	cols := append(append([]arrow.Array(nil), taken.Columns()...), bb.NewArray(), wb.NewArray())
	defer cols[len(cols)-1].Release()
	defer cols[len(cols)-2].Release()
	return array.NewRecordBatch(schema, cols, int64(n)), nil
}
