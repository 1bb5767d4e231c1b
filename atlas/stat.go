package atlas

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/sketch"
)

// DataFrameStatFunctions are a DataFrame's statistic functions, as
// Spark's df.stat.
type DataFrameStatFunctions struct{ df *DataFrame }

// Stat returns the DataFrame's statistic functions.
func (df *DataFrame) Stat() *DataFrameStatFunctions { return &DataFrameStatFunctions{df: df} }

// CountMinSketch builds a Count-min sketch of a string, integer or binary
// column, as df.stat.countMinSketch(col, eps, confidence, seed). Spark
// Connect has no message for it, so the client selects the column and
// builds the sketch from its values as they arrive (nulls skipped).
func (st *DataFrameStatFunctions) CountMinSketch(ctx context.Context, col string, eps, confidence float64, seed int64) (*sketch.CountMinSketch, error) {
	return sketch.CountMinSketchOf(ctx, col, st.collect(col), eps, confidence, seed)
}

// BloomFilter builds a Bloom filter of a string, integer or binary column
// sized for expectedNumItems at false-positive probability fpp, as
// df.stat.bloomFilter(col, expectedNumItems, fpp), in the client like
// CountMinSketch.
func (st *DataFrameStatFunctions) BloomFilter(ctx context.Context, col string, expectedNumItems int64, fpp float64) (*sketch.BloomFilter, error) {
	return sketch.BloomFilterOf(ctx, col, st.collect(col), expectedNumItems, fpp)
}

// collect selects col and collects it.
func (st *DataFrameStatFunctions) collect(col string) sketch.Collect {
	return func(ctx context.Context) (*arrow.Schema, []arrow.RecordBatch, error) {
		return st.df.Select(col).Collect(ctx)
	}
}
