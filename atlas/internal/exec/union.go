package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// collectUnion collects every input of a batch Union in turn and converts
// its columns, by position, to the union's schema.
func collectUnion(ctx context.Context, u *plan.Union) ([]arrow.RecordBatch, error) {
	c := expr.NewCtx(ctx)
	var out []arrow.RecordBatch
	for k, in := range u.Inputs {
		_, recs, err := Collect(ctx, in)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		for _, r := range recs {
			conv, err := conformTo(c, r, u.Out)
			r.Release()
			if err != nil {
				releaseAll(out)
				return nil, fmt.Errorf("union input %d: %w", k+1, err)
			}
			out = append(out, conv)
		}
	}
	return out, nil
}

// conformTo relabels r's columns with schema's names and casts those whose
// type differs.
func conformTo(c *expr.Ctx, r arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		a, err := expr.CastArray(c, r.Column(i), f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		cols[i] = a
	}
	return array.NewRecordBatch(schema, cols, r.NumRows()), nil
}

// unionOp is a streaming Union: each input's rows pass on as they come,
// with the union's column names and types.
type unionOp struct {
	stateless
	out *arrow.Schema
}

func newUnionOp(u *plan.Union) *unionOp { return &unionOp{out: u.Out} }

func (o *unionOp) Kind() string { return "union" }

func (o *unionOp) Process(c *expr.Ctx, child int, rec arrow.RecordBatch, emit emitFunc) error {
	conv, err := conformTo(c, rec, o.out)
	if err != nil {
		return fmt.Errorf("union input %d: %w", child+1, err)
	}
	defer conv.Release()
	return emit(conv)
}
