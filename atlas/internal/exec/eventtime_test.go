package exec

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// TestWatermarkStatsFarFuture: 2000 rows at year 294247 and 2000 at
// 2026-11-30 10:00 (plus nulls, skipped). The mean, by hand, is halfway
// (to a relative 1e-12: a float sum, as Spark's double running mean); an
// int64 sum of their milliseconds would overflow and give nonsense. With a limit, the
// far rows are counted in Ahead and, with Exclude, left out of the
// statistics that move the watermark.
func TestWatermarkStatsFarFuture(t *testing.T) {
	far := time.Date(294247, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC).UnixMicro()
	tsType := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: tsType, Nullable: true}}, nil)
	b := array.NewTimestampBuilder(memory.NewGoAllocator(), tsType)
	defer b.Release()
	for i := 0; i < 2000; i++ {
		b.Append(arrow.Timestamp(far))
		b.Append(arrow.Timestamp(now))
		b.AppendNull()
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	c := expr.NewCtx(context.Background())
	for _, tc := range []struct {
		name           string
		limit          int64
		exclude        bool
		count, ahead   int64
		min, max, mean int64 // ms
	}{
		{"no limit", 0, false, 4000, 0, now / 1000, far / 1000, (now/1000 + far/1000) / 2},
		{"counted", now + 1, false, 4000, 2000, now / 1000, far / 1000, (now/1000 + far/1000) / 2},
		{"excluded", now + 1, true, 2000, 2000, now / 1000, now / 1000, now / 1000},
	} {
		st := EventTimeStats{Min: math.MaxInt64, Max: math.MinInt64, Limit: tc.limit, Exclude: tc.exclude}
		op := &watermarkOp{index: 0, stats: &st, schema: schema}
		out, err := op.apply(c, rec)
		if err != nil {
			t.Fatal(err)
		}
		out.Release()
		mean := st.MeanMillis()
		if st.Count != tc.count || st.Ahead != tc.ahead || st.Min/1000 != tc.min || st.Max/1000 != tc.max || math.Abs(float64(mean-tc.mean)) > 1e-12*float64(tc.mean) {
			t.Errorf("%s: count %d ahead %d min %d max %d mean %d; want %d %d %d %d %d", tc.name, st.Count, st.Ahead, st.Min/1000, st.Max/1000, mean, tc.count, tc.ahead, tc.min, tc.max, tc.mean)
		}
	}
}
