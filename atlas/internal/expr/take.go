package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// TakeRows returns rows idx of rec, in that order (arrow-go's Take
// kernel). The caller releases the result.
func TakeRows(c *Ctx, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	b := array.NewInt32Builder(c.Mem)
	b.AppendValues(idx, nil)
	ind := b.NewInt32Array()
	b.Release()
	defer ind.Release()
	res, err := compute.Take(c.Context, *compute.DefaultTakeOptions(), compute.NewDatumWithoutOwning(rec), compute.NewDatumWithoutOwning(ind))
	if err != nil {
		return nil, fmt.Errorf("take %d rows: %w", len(idx), err)
	}
	return res.(*compute.RecordDatum).Value, nil
}
