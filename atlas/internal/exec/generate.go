package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// generateOp runs a plan.Generate: the projection's other items are
// evaluated once per input row and repeated for every element of the
// generator's array.
type generateOp struct {
	arr      expr.Bound
	others   []expr.Bound
	genIndex int
	outer    bool
	schema   *arrow.Schema
}

func newGenerateOp(g *plan.Generate) (*generateOp, error) {
	arr, others, err := g.Bind()
	if err != nil {
		return nil, err
	}
	return &generateOp{arr: arr, others: others, genIndex: g.GenIndex, outer: g.Gen.Outer, schema: g.Out}, nil
}

func (g *generateOp) apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	a, err := g.arr.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	list, ok := a.(*array.List)
	if !ok {
		return nil, fmt.Errorf("generate: the array evaluated to %s", a.DataType())
	}
	// rows[k] is the input row of output row k; elems[k] the element
	// (null for explode_outer's row of a null or empty array).
	rows := array.NewInt32Builder(c.Mem)
	defer rows.Release()
	elems := array.NewInt32Builder(c.Mem)
	defer elems.Release()
	offsets := list.Offsets()
	for i := 0; i < list.Len(); i++ {
		start, end := offsets[i], offsets[i+1]
		if list.IsNull(i) || start == end {
			if g.outer {
				rows.Append(int32(i))
				elems.AppendNull()
			}
			continue
		}
		for j := start; j < end; j++ {
			rows.Append(int32(i))
			elems.Append(j)
		}
	}
	rowIdx, elemIdx := rows.NewInt32Array(), elems.NewInt32Array()
	defer rowIdx.Release()
	defer elemIdx.Release()
	n := int64(rowIdx.Len())
	cols := make([]arrow.Array, len(g.others))
	defer func() {
		for _, x := range cols {
			if x != nil {
				x.Release()
			}
		}
	}()
	for i, b := range g.others {
		if i == g.genIndex {
			if cols[i], err = compute.TakeArray(c.Context, list.ListValues(), elemIdx); err != nil {
				return nil, fmt.Errorf("generate: %w", err)
			}
			continue
		}
		v, err := b.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		if v.DataType().ID() == arrow.NULL && g.schema.Field(i).Type.ID() != arrow.NULL {
			nulls := array.MakeArrayOfNull(c.Mem, g.schema.Field(i).Type, v.Len())
			v.Release()
			v = nulls
		}
		cols[i], err = compute.TakeArray(c.Context, v, rowIdx)
		v.Release()
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
	}
	return array.NewRecordBatch(g.schema, cols, n), nil
}
