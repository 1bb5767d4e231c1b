package functions

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// monotonicID is monotonically_increasing_id(). Spark numbers each
// partition's rows from partitionId << 33; Atlas evaluates a plan as one
// partition (spark_partition_id() is 0), so the ids are the rows'
// positions, counted across the batches of one binding (plans bind per
// execution).
type monotonicID struct{}

func (*monotonicID) String() string { return "monotonically_increasing_id()" }

// Bind starts a new count.
func (*monotonicID) Bind(*arrow.Schema) (expr.Bound, error) { return &monotonicBound{}, nil }

type monotonicBound struct{ next atomic.Int64 }

func (*monotonicBound) Type() arrow.DataType { return tLong }
func (*monotonicBound) Nullable() bool       { return false }

// Eval numbers the batch's rows after those of the batches before it.
func (b *monotonicBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n := rec.NumRows()
	first := b.next.Add(n) - n
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	bld := array.NewInt64Builder(mem)
	defer bld.Release()
	bld.Reserve(int(n))
	for i := int64(0); i < n; i++ {
		bld.UnsafeAppend(first + i)
	}
	return bld.NewArray(), nil
}
