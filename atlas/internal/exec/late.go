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
	// LateWatermarkColumn is the batch's watermark for late events (the
	// previous batch's watermark, SPARK-40925): for a late row, the
	// watermark it was older than.
	LateWatermarkColumn = "_watermark"
	// LateReasonColumn says why the row joined no window: one of
	// LateReasonLate, LateReasonNullEventTime, LateReasonFutureEventTime.
	// Late-rows tables created before it existed lack it and keep being
	// written without it (LegacyLateRowsSchema).
	LateReasonColumn = "_reason"
)

// The values of LateReasonColumn.
const (
	// LateReasonLate: the row's window ended at or before the watermark for
	// late events; Spark drops it and counts it in numRowsDroppedByWatermark.
	LateReasonLate = "late"
	// LateReasonNullEventTime: the row has no event time; Spark's window()
	// filters it out without a count (numRowsWithNullEventTime here).
	LateReasonNullEventTime = "null_event_time"
	// LateReasonFutureEventTime: the row's event time is further ahead of the
	// batch's processing time than eventTimeMaxAheadOfProcessing; it was kept
	// out of the watermark and the aggregation (numRowsWithFutureEventTime).
	LateReasonFutureEventTime = "future_event_time"
)

// LateRowsSchema is the schema of the rows a query keeps instead of
// silently dropping them: the row as it entered the aggregation (after
// parsing and projection), plus the batch id, the watermark for late
// events and the reason. It is nil when the query has no watermarked
// aggregation.
func LateRowsSchema(s *plan.Shape) *arrow.Schema {
	legacy := LegacyLateRowsSchema(s)
	if legacy == nil {
		return nil
	}
	return arrow.NewSchema(append(legacy.Fields(), arrow.Field{Name: LateReasonColumn, Type: arrow.BinaryTypes.String}), nil)
}

// LegacyLateRowsSchema is LateRowsSchema without the reason column: the
// schema of late-rows tables created before it, which Atlas keeps writing
// in their own shape (a late row is told from a null-time row by its null
// event time, and from a future row by an event time above _watermark).
func LegacyLateRowsSchema(s *plan.Shape) *arrow.Schema {
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
// the batch id, the watermark (µs) and, when schema has the column, the
// reason.
func lateRecord(c *expr.Ctx, schema *arrow.Schema, rec arrow.RecordBatch, idx []int32, batchID, watermarkMicros int64, reason string) (arrow.RecordBatch, error) {
	taken, err := expr.TakeRows(c, rec, idx)
	if err != nil {
		return nil, fmt.Errorf("late rows: %w", err)
	}
	defer taken.Release()
	n := len(idx)
	in := int(taken.NumCols())
	bb := array.NewInt64Builder(c.Mem)
	defer bb.Release()
	wb := array.NewTimestampBuilder(c.Mem, schema.Field(in+1).Type.(*arrow.TimestampType))
	defer wb.Release()
	for i := 0; i < n; i++ {
		bb.Append(batchID)
		wb.Append(arrow.Timestamp(watermarkMicros))
	}
	cols := append(append([]arrow.Array(nil), taken.Columns()...), bb.NewArray(), wb.NewArray())
	if schema.NumFields() > in+2 {
		rb := array.NewStringBuilder(c.Mem)
		defer rb.Release()
		for i := 0; i < n; i++ {
			rb.Append(reason)
		}
		cols = append(cols, rb.NewArray())
	}
	for _, a := range cols[in:] {
		defer a.Release()
	}
	return array.NewRecordBatch(schema, cols, int64(n)), nil
}
