package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// LatestPerKey keeps, for each distinct combination of the keys columns,
// the one row with the greatest orderBy value (ties go to the later row),
// in the rows' original order. Spark users write it as
// row_number() over (partition by keys order by orderBy desc) = 1.
//
// It is the one-line fix for MERGE_CARDINALITY_VIOLATION and
// MERGE_DUPLICATE_INSERT: a CDC micro-batch often holds several changes of
// one key, and MERGE accepts only one source row per target row (and, as
// an Atlas guard, one inserted row per new key). Reduce the batch to the latest change per key first:
//
//	batch.LatestPerKey([]string{"invoice", "stock_code"}, "offset").CreateOrReplaceTempView("updates")
//
// Order by the Kafka offset column (the changes of one key share a
// partition when the record key is the row key, so their offsets follow
// the change order) or by the change's own timestamp. Null key values form
// a group of their own; a null orderBy value loses to any other.
//
// LatestPerKey works on batch DataFrames (a foreachBatch micro-batch, a
// table, a view): it runs df at once and returns its reduced rows.
func (df *DataFrame) LatestPerKey(keys []string, orderBy string) *DataFrame {
	if df.failed() {
		return df
	}
	out, err := latestPerKey(context.Background(), df, keys, orderBy)
	if err != nil {
		return df.with(nil, fmt.Errorf("latestPerKey(%v, %q): %w", keys, orderBy, err))
	}
	return out
}

func latestPerKey(ctx context.Context, df *DataFrame, keys []string, orderBy string) (*DataFrame, error) {
	if df.IsStreaming() {
		return nil, fmt.Errorf("works on batch DataFrames; call it on the micro-batch inside ForeachBatch")
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("give at least one key column")
	}
	schema := df.Schema()
	keyIdx := make([]int, len(keys))
	for i, k := range keys {
		if keyIdx[i] = expr.FieldIndex(schema, k); keyIdx[i] < 0 {
			return nil, fmt.Errorf("no key column %q in [%s]", k, joinComma(df.Columns()))
		}
	}
	ord := expr.FieldIndex(schema, orderBy)
	if ord < 0 {
		return nil, fmt.Errorf("no order column %q in [%s]", orderBy, joinComma(df.Columns()))
	}
	_, recs, err := df.Collect(ctx)
	if err != nil {
		return nil, err
	}
	c := expr.NewCtx(ctx)
	rec, err := exec.Concat(c, schema, recs)
	releaseAll(recs)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	less, err := orderLess(rec.Column(ord))
	if err != nil {
		return nil, fmt.Errorf("order column %q: %w", orderBy, err)
	}
	keyCols := make([]arrow.Array, len(keyIdx))
	for i, k := range keyIdx {
		keyCols[i] = rec.Column(k)
	}
	best := make(map[string]int, rec.NumRows())
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		buf = buf[:0]
		for _, col := range keyCols {
			if col.IsNull(i) {
				buf = append(buf, 0)
				continue
			}
			buf = append(buf, 1)
			buf, _ = appendKey(buf, []arrow.Array{col}, i)
		}
		if j, ok := best[string(buf)]; !ok || !less(i, j) {
			best[string(buf)] = i
		}
	}
	keep := make([]int32, 0, len(best))
	for _, i := range best {
		keep = append(keep, int32(i))
	}
	slices.Sort(keep)
	out, err := expr.TakeRows(c, rec, keep)
	if err != nil {
		return nil, err
	}
	return &DataFrame{s: df.s, node: &plan.LocalScan{Name: "latestPerKey", Out: schema, Records: []arrow.RecordBatch{out}}}, nil
}

// orderLess returns a "row i orders before row j" function for a column;
// nulls order first.
func orderLess(col arrow.Array) (func(i, j int) bool, error) {
	nulls := func(i, j int) (bool, bool) {
		ni, nj := col.IsNull(i), col.IsNull(j)
		if ni || nj {
			return ni && !nj, true
		}
		return false, false
	}
	wrap := func(cmpFn func(i, j int) int) func(i, j int) bool {
		return func(i, j int) bool {
			if r, done := nulls(i, j); done {
				return r
			}
			return cmpFn(i, j) < 0
		}
	}
	switch a := col.(type) {
	case *array.Int64:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Int32:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Int16:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Int8:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Float64:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Float32:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Timestamp:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.Date32:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	case *array.String:
		return wrap(func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }), nil
	}
	return nil, fmt.Errorf("cannot order by %s; use a number, a timestamp or a string", col.DataType())
}
