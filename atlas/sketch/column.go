package sketch

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Collect returns the record batches of a one-column DataFrame
// (df.Select(col).Collect); the sketch builders release them.
type Collect func(ctx context.Context) (*arrow.Schema, []arrow.RecordBatch, error)

// CountMinSketchOf builds a Count-min sketch of the column collect
// returns, as df.stat.countMinSketch(col, eps, confidence, seed): the
// parameters are checked before anything runs, nulls are skipped.
func CountMinSketchOf(ctx context.Context, col string, collect Collect, eps, confidence float64, seed int64) (*CountMinSketch, error) {
	s, err := NewCountMinSketch(eps, confidence, seed)
	if err != nil {
		return nil, err
	}
	if err := eachColumnValue(ctx, "countMinSketch", col, collect, func(v any) error { return s.Add(v) }); err != nil {
		return nil, err
	}
	return s, nil
}

// BloomFilterOf builds a Bloom filter of the column collect returns, sized
// for expectedNumItems at false-positive probability fpp, as
// df.stat.bloomFilter(col, expectedNumItems, fpp): the parameters are
// checked before anything runs, nulls are skipped.
func BloomFilterOf(ctx context.Context, col string, collect Collect, expectedNumItems int64, fpp float64) (*BloomFilter, error) {
	b, err := NewBloomFilter(expectedNumItems, fpp)
	if err != nil {
		return nil, err
	}
	if err := eachColumnValue(ctx, "bloomFilter", col, collect, b.Put); err != nil {
		return nil, err
	}
	return b, nil
}

// eachColumnValue calls fn with every non-null value of the column collect
// returns; errors name the operation and the column.
func eachColumnValue(ctx context.Context, op, col string, collect Collect, fn func(any) error) error {
	schema, recs, err := collect(ctx)
	if err != nil {
		return fmt.Errorf("%s(%s): %w", op, col, err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if err := CheckType(schema.Field(0).Type); err != nil {
		return fmt.Errorf("%s(%s): %w", op, col, err)
	}
	for _, r := range recs {
		if err := EachValue(r.Column(0), fn); err != nil {
			return fmt.Errorf("%s(%s): %w", op, col, err)
		}
	}
	return nil
}
