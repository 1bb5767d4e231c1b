package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

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
	if err := st.batchOnly("countMinSketch"); err != nil {
		return nil, err
	}
	return sketch.CountMinSketchOf(ctx, col, st.collect(col), eps, confidence, seed)
}

// BloomFilter builds a Bloom filter of a string, integer or binary column
// sized for expectedNumItems at false-positive probability fpp, as
// df.stat.bloomFilter(col, expectedNumItems, fpp). Nulls are skipped.
func (st *DataFrameStatFunctions) BloomFilter(ctx context.Context, col string, expectedNumItems int64, fpp float64) (*sketch.BloomFilter, error) {
	if err := st.batchOnly("bloomFilter"); err != nil {
		return nil, err
	}
	return sketch.BloomFilterOf(ctx, col, st.collect(col), expectedNumItems, fpp)
}

// batchOnly refuses a streaming DataFrame, whose sketches belong in
// ForeachBatch or a streaming aggregation.
func (st *DataFrameStatFunctions) batchOnly(op string) error {
	if st.df.IsStreaming() {
		return fmt.Errorf("%s: queries with streaming sources must be executed with WriteStream().Start(); build sketches in ForeachBatch, or use ApproxCountDistinct in a streaming aggregation", op)
	}
	return nil
}

// collect selects col and collects it.
func (st *DataFrameStatFunctions) collect(col string) sketch.Collect {
	return func(ctx context.Context) (*arrow.Schema, []arrow.RecordBatch, error) {
		return st.df.Select(col).Collect(ctx)
	}
}
