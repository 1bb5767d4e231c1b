package atlas

import (
	"context"
	"fmt"

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
// df.stat.bloomFilter(col, expectedNumItems, fpp), in the client like
// CountMinSketch.
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

func (st *DataFrameStatFunctions) each(ctx context.Context, op, col string, fn func(any) error) error {
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
