package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/state"
)

// Collect runs a batch plan to completion and returns its rows. The caller
// owns (must Release) the records.
func Collect(ctx context.Context, root plan.Node) (*arrow.Schema, []arrow.RecordBatch, error) {
	if root.IsStreaming() {
		return nil, nil, fmt.Errorf("queries with streaming sources must be executed with WriteStream().Start(); use Show or Collect inside ForeachBatch, or read a table with Session.Table")
	}
	shape, err := plan.Analyze(root)
	if err != nil {
		return nil, nil, err
	}
	var input []arrow.RecordBatch
	switch leaf := shape.Leaf.(type) {
	case *plan.LocalScan:
		input = leaf.Records
		if leaf.Refresh != nil && refreshTables(ctx) {
			if input, err = leaf.Refresh(ctx); err != nil {
				return nil, nil, err
			}
			defer releaseAll(input)
		}
	case *plan.Join:
		if input, err = collectJoin(ctx, leaf); err != nil {
			return nil, nil, err
		}
		defer releaseAll(input)
	case *plan.Union:
		if input, err = collectUnion(ctx, leaf); err != nil {
			return nil, nil, err
		}
		defer releaseAll(input)
	case *plan.Window:
		if input, err = collectWindow(ctx, leaf); err != nil {
			return nil, nil, err
		}
		defer releaseAll(input)
	default:
		return nil, nil, fmt.Errorf("cannot run %s as a batch", shape.Leaf.Describe())
	}
	c := expr.NewCtx(ctx)
	var stats EventTimeStats
	pre, err := compileOps(shape.Pre, &stats)
	if err != nil {
		return nil, nil, err
	}
	var out []arrow.RecordBatch
	release := func() {
		for _, r := range out {
			r.Release()
		}
	}
	var agg state.GroupState
	if shape.Agg != nil {
		keys, aggs, err := shape.Agg.Bind()
		if err != nil {
			return nil, nil, err
		}
		if agg, err = state.NewGroupState(state.Config{Keys: keys, KeyNames: shape.Agg.KeyNames, Aggs: aggs, EvictKey: -1}); err != nil {
			return nil, nil, err
		}
	}
	for _, rec := range input {
		r, err := runOps(c, pre, rec)
		if err != nil {
			release()
			return nil, nil, err
		}
		if agg != nil {
			_, err = agg.Update(c, r, 0, 0, false)
			r.Release()
			if err != nil {
				return nil, nil, err
			}
			continue
		}
		out = append(out, r)
	}
	schema := ShapeOutputSchema(shape)
	if agg != nil {
		rec, err := agg.Emit(c.Mem, nil)
		if err != nil {
			return nil, nil, err
		}
		if g, ok := agg.(*state.Aggregator); ok && rec.NumRows() == 0 && len(shape.Agg.KeyNames) == 0 {
			// A global aggregate over no rows is one row, as in Spark.
			rec.Release()
			if rec, err = g.EmitEmptyGlobal(c.Mem); err != nil {
				return nil, nil, err
			}
		}
		post, err := compileOps(shape.Post, &stats)
		if err != nil {
			rec.Release()
			return nil, nil, err
		}
		r, err := runOps(c, post, rec)
		rec.Release()
		if err != nil {
			return nil, nil, err
		}
		out = []arrow.RecordBatch{r}
	}
	return finish(c, shape, schema, out)
}

// finish applies Sort and Limit.
func finish(c *expr.Ctx, shape *plan.Shape, schema *arrow.Schema, recs []arrow.RecordBatch) (*arrow.Schema, []arrow.RecordBatch, error) {
	if shape.Sort != nil {
		bound, err := shape.Sort.Bind()
		if err != nil {
			releaseAll(recs)
			return nil, nil, err
		}
		sorted, err := sortRecords(c, schema, recs, shape.Sort.Keys, bound)
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			return nil, nil, err
		}
		recs = []arrow.RecordBatch{sorted}
	}
	if shape.Limit != nil {
		recs = limitRecords(recs, shape.Limit.N)
	}
	return schema, recs, nil
}

// Concat merges records into one.
func Concat(c *expr.Ctx, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, 0, len(recs))
		for _, r := range recs {
			parts = append(parts, r.Column(i))
		}
		if len(parts) == 0 {
			cols[i] = array.MakeArrayOfNull(c.Mem, schema.Field(i).Type, 0)
			continue
		}
		a, err := array.Concatenate(parts, c.Mem)
		if err != nil {
			return nil, fmt.Errorf("concatenate column %s: %w", schema.Field(i).Name, err)
		}
		cols[i] = a
	}
	out := array.NewRecordBatch(schema, cols, n)
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// sortRecords orders recs by keys, whose expressions bound holds in order.
func sortRecords(c *expr.Ctx, schema *arrow.Schema, recs []arrow.RecordBatch, keys []plan.SortKey, bound []expr.Bound) (arrow.RecordBatch, error) {
	all, err := Concat(c, schema, recs)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	cols := make([]arrow.Array, len(keys))
	fields := make([]arrow.Field, len(keys))
	sk := make([]compute.SortKey, len(keys))
	for i, k := range keys {
		a, err := bound[i].Eval(c, all)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		if a.DataType().ID() == arrow.FLOAT64 || a.DataType().ID() == arrow.FLOAT32 {
			// Spark sorts NaN after every number and -0.0 with 0.0; arrow
			// places NaN beside the nulls.
			a = floatOrderKeys(c, a)
			defer a.Release()
		}
		cols[i] = a
		fields[i] = arrow.Field{Name: fmt.Sprintf("k%d", i), Type: a.DataType(), Nullable: true}
		sk[i] = compute.DefaultSortKey()
		sk[i].ColumnIndex = i
		if k.Descending {
			sk[i].Order = compute.SortOrderDescending
		}
		// Spark: NULLS FIRST for ascending, NULLS LAST for descending.
		sk[i].NullPlacement = compute.SortNullsAtStart
		if k.Descending && !k.NullsFirst {
			sk[i].NullPlacement = compute.SortNullsAtEnd
		}
	}
	keyRec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, all.NumRows())
	defer keyRec.Release()
	idx, err := compute.SortIndicesRecordBatch(c.Context, keyRec, sk)
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	defer idx.Release()
	res, err := compute.Take(c.Context, *compute.DefaultTakeOptions(), compute.NewDatumWithoutOwning(all), compute.NewDatumWithoutOwning(idx))
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	return res.(*compute.RecordDatum).Value, nil
}

func limitRecords(recs []arrow.RecordBatch, n int64) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for _, r := range recs {
		if n <= 0 {
			r.Release()
			continue
		}
		if r.NumRows() <= n {
			n -= r.NumRows()
			out = append(out, r)
			continue
		}
		out = append(out, r.NewSlice(0, n))
		r.Release()
		n = 0
	}
	return out
}

// floatOrderKeys maps a float column to int64 keys that sort as Spark
// orders the floats (expr.FloatOrderKey); nulls stay null.
func floatOrderKeys(c *expr.Ctx, a arrow.Array) arrow.Array {
	b := array.NewInt64Builder(c.Mem)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		switch v := a.(type) {
		case *array.Float64:
			b.UnsafeAppend(expr.FloatOrderKey(v.Value(i)))
		case *array.Float32:
			b.UnsafeAppend(expr.FloatOrderKey(float64(v.Value(i))))
		}
	}
	return b.NewArray()
}
