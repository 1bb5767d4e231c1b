package engine

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/sketch"
)

// DataFrameStatFunctions are the statistic functions of a batch
// DataFrame, as Spark's df.stat.
type DataFrameStatFunctions struct{ df *DataFrame }

// Stat returns the DataFrame's statistic functions.
func (df *DataFrame) Stat() *DataFrameStatFunctions { return &DataFrameStatFunctions{df: df} }

// CountMinSketch builds a Count-min sketch of a string, integer or binary
// column with relative error eps and confidence, as
// df.stat.countMinSketch(col, eps, confidence, seed). Nulls are skipped.
func (st *DataFrameStatFunctions) CountMinSketch(ctx context.Context, col string, eps, confidence float64, seed int64) (*sketch.CountMinSketch, error) {
	s, err := sketch.NewCountMinSketch(eps, confidence, seed)
	if err != nil {
		return nil, err
	}
	if err := st.each(ctx, "countMinSketch", col, func(v any) error { return s.Add(v) }); err != nil {
		return nil, err
	}
	return s, nil
}

// BloomFilter builds a Bloom filter of a string, integer or binary column
// sized for expectedNumItems at false-positive probability fpp, as
// df.stat.bloomFilter(col, expectedNumItems, fpp). Nulls are skipped.
func (st *DataFrameStatFunctions) BloomFilter(ctx context.Context, col string, expectedNumItems int64, fpp float64) (*sketch.BloomFilter, error) {
	b, err := sketch.NewBloomFilter(expectedNumItems, fpp)
	if err != nil {
		return nil, err
	}
	if err := st.each(ctx, "bloomFilter", col, b.Put); err != nil {
		return nil, err
	}
	return b, nil
}

// each calls fn with every non-null value of col.
func (st *DataFrameStatFunctions) each(ctx context.Context, op, col string, fn func(any) error) error {
	if st.df.IsStreaming() {
		return fmt.Errorf("%s: queries with streaming sources must be executed with WriteStream().Start(); build sketches in ForeachBatch, or use ApproxCountDistinct in a streaming aggregation", op)
	}
	schema, recs, err := st.df.Select(col).Collect(ctx)
	if err != nil {
		return fmt.Errorf("%s(%s): %w", op, col, err)
	}
	defer releaseAll(recs)
	if err := sketch.CheckType(schema.Field(0).Type); err != nil {
		return fmt.Errorf("%s(%s): %w", op, col, err)
	}
	for _, r := range recs {
		if err := sketch.EachValue(r.Column(0), fn); err != nil {
			return fmt.Errorf("%s(%s): %w", op, col, err)
		}
	}
	return nil
}
