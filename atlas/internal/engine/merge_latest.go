package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/merge"
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
			return nil, fmt.Errorf("no key column %q in [%s]", k, strings.Join(df.Columns(), ", "))
		}
	}
	ord := expr.FieldIndex(schema, orderBy)
	if ord < 0 {
		return nil, fmt.Errorf("no order column %q in [%s]", orderBy, strings.Join(df.Columns(), ", "))
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
	keep, err := merge.LatestRows(rec, keyIdx, ord)
	if err != nil {
		return nil, fmt.Errorf("order column %q: %w", orderBy, err)
	}
	out, err := expr.TakeRows(c, rec, keep)
	if err != nil {
		return nil, err
	}
	return &DataFrame{s: df.s, node: &plan.LocalScan{Name: "latestPerKey", Out: schema, Records: []arrow.RecordBatch{out}}}, nil
}
