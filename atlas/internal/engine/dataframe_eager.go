package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// The methods here run their batch input when called (the linear executor
// has no operator for them) and return a DataFrame over the result: what
// Spark computes is the same, only earlier.

// collectOne runs a batch DataFrame and returns its rows as one record
// (released by the caller).
func (df *DataFrame) collectOne(ctx context.Context, op string) (arrow.RecordBatch, error) {
	if err := df.Err(); err != nil {
		return nil, err
	}
	if df.IsStreaming() {
		return nil, sparkerr.New("UNSUPPORTED_FEATURE.STREAMING", "%s is not supported on a streaming DataFrame: apply it to each micro-batch inside foreachBatch", op)
	}
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return nil, err
	}
	defer releaseAll(recs)
	return exec.Concat(expr.NewCtx(ctx), schema, recs)
}

// over returns a batch DataFrame of the session over rec (released here).
func (df *DataFrame) over(rec arrow.RecordBatch) *DataFrame {
	defer rec.Release()
	return df.s.CreateDataFrame(rec.Schema(), []arrow.RecordBatch{rec})
}

// pick runs df and keeps the rows choose returns, in that order.
func (df *DataFrame) pick(ctx context.Context, op string, choose func(rec arrow.RecordBatch) ([]int32, error)) *DataFrame {
	rec, err := df.collectOne(ctx, op)
	if err != nil {
		return df.with(nil, fmt.Errorf("%s: %w", op, err))
	}
	defer rec.Release()
	idx, err := choose(rec)
	if err != nil {
		return df.with(nil, fmt.Errorf("%s: %w", op, err))
	}
	out, err := expr.TakeRows(expr.NewCtx(ctx), rec, idx)
	if err != nil {
		return df.with(nil, fmt.Errorf("%s: %w", op, err))
	}
	return df.over(out)
}

// span is the indexes [from, to).
func span(from, to int64) []int32 {
	out := make([]int32, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		out = append(out, int32(i))
	}
	return out
}

// Tail keeps the last n rows, as DataFrame.tail(n) (which returns them).
func (df *DataFrame) Tail(ctx context.Context, n int) *DataFrame {
	if n < 0 {
		return df.with(nil, sparkerr.New("INVALID_PARAMETER_VALUE", "tail: the number of rows must not be negative, got %d", n))
	}
	return df.pick(ctx, "tail", func(rec arrow.RecordBatch) ([]int32, error) {
		return span(max(rec.NumRows()-int64(n), 0), rec.NumRows()), nil
	})
}

// Offset skips the first n rows, as DataFrame.offset(n).
func (df *DataFrame) Offset(ctx context.Context, n int) *DataFrame {
	if n < 0 {
		return df.with(nil, sparkerr.New("INVALID_PARAMETER_VALUE", "offset: the number of rows must not be negative, got %d", n))
	}
	return df.pick(ctx, "offset", func(rec arrow.RecordBatch) ([]int32, error) {
		return span(min(int64(n), rec.NumRows()), rec.NumRows()), nil
	})
}

// Sample keeps each row with probability upper-lower (Bernoulli sampling)
// or, withReplacement, a Poisson number of times, as Spark's Sample
// relation (DataFrame.sample and randomSplit send the bounds). The same
// seed over the same rows keeps the same rows.
func (df *DataFrame) Sample(ctx context.Context, lower, upper float64, withReplacement bool, seed int64) *DataFrame {
	if lower < 0 || upper > 1+1e-9 && !withReplacement || upper < lower {
		return df.with(nil, sparkerr.New("INVALID_PARAMETER_VALUE", "sample: the bounds [%g, %g) must lie within [0, 1]", lower, upper))
	}
	return df.pick(ctx, "sample", func(rec arrow.RecordBatch) ([]int32, error) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		var idx []int32
		for i := range int32(rec.NumRows()) {
			if withReplacement {
				for range poisson(rng, upper-lower) {
					idx = append(idx, i)
				}
				continue
			}
			if u := rng.Float64(); u >= lower && u < upper {
				idx = append(idx, i)
			}
		}
		return idx, nil
	})
}

// poisson draws from a Poisson distribution of mean lambda (Knuth's method;
// sampling fractions are small).
func poisson(rng *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// rowKeys renders each row of rec as a key that equal rows share (nulls
// equal to nulls, as set operations compare rows).
func rowKeys(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	var b strings.Builder
	for i := range out {
		b.Reset()
		for c := range int(rec.NumCols()) {
			fmt.Fprintf(&b, "%#v\x00", value(rec.Column(c), i))
		}
		out[i] = b.String()
	}
	return out
}

// setOp runs df and other and keeps df's rows that other has (intersect)
// or lacks (except), once each unless all, as DataFrame.intersect,
// intersectAll, subtract and exceptAll. Columns match by position; the
// result has df's names and types.
func (df *DataFrame) setOp(ctx context.Context, op string, other *DataFrame, intersect, all bool) *DataFrame {
	if df.failed() {
		return df
	}
	if other.failed() {
		return df.with(nil, fmt.Errorf("%s: %w", op, other.Err()))
	}
	if l, r := df.node.Schema().NumFields(), other.node.Schema().NumFields(); l != r {
		return df.with(nil, sparkerr.New("NUM_COLUMNS_MISMATCH", "%s can only be performed on inputs with the same number of columns, but the first input has %d columns and the second input has %d columns", strings.ToUpper(op), l, r))
	}
	// Bring other to df's types, by position, through a union check.
	right := df.Limit(0).Union(other)
	if err := right.Err(); err != nil {
		return df.with(nil, fmt.Errorf("%s: %w", op, err))
	}
	rrec, err := right.collectOne(ctx, op)
	if err != nil {
		return df.with(nil, fmt.Errorf("%s: %w", op, err))
	}
	counts := map[string]int{}
	for _, k := range rowKeys(rrec) {
		counts[k]++
	}
	rrec.Release()
	return df.pick(ctx, op, func(rec arrow.RecordBatch) ([]int32, error) {
		seen := map[string]int{}
		var idx []int32
		for i, k := range rowKeys(rec) {
			seen[k]++
			n := counts[k]
			var keep bool
			switch {
			case intersect && all:
				keep = seen[k] <= n
			case intersect:
				keep = n > 0 && seen[k] == 1
			case all:
				keep = seen[k] > n
			default:
				keep = n == 0 && seen[k] == 1
			}
			if keep {
				idx = append(idx, int32(i))
			}
		}
		return idx, nil
	})
}

// Intersect keeps the distinct rows that other also has, as
// DataFrame.intersect.
func (df *DataFrame) Intersect(ctx context.Context, other *DataFrame) *DataFrame {
	return df.setOp(ctx, "intersect", other, true, false)
}

// IntersectAll keeps df's rows that other also has, as many times as both
// have them, as DataFrame.intersectAll.
func (df *DataFrame) IntersectAll(ctx context.Context, other *DataFrame) *DataFrame {
	return df.setOp(ctx, "intersectAll", other, true, true)
}

// Subtract keeps the distinct rows other lacks, as DataFrame.subtract
// (SQL's EXCEPT DISTINCT).
func (df *DataFrame) Subtract(ctx context.Context, other *DataFrame) *DataFrame {
	return df.setOp(ctx, "subtract", other, false, false)
}

// ExceptAll keeps df's rows less as many of each as other has, as
// DataFrame.exceptAll.
func (df *DataFrame) ExceptAll(ctx context.Context, other *DataFrame) *DataFrame {
	return df.setOp(ctx, "exceptAll", other, false, true)
}

// maxRangeRows bounds Range: its rows are made when it is called.
const maxRangeRows = 50_000_000

// Range is spark.range(start, end, step): one bigint column id from start
// (inclusive) to end (exclusive) by step.
func (s *Session) Range(start, end, step int64) *DataFrame {
	if step == 0 {
		return &DataFrame{s: s, err: sparkerr.New("INVALID_PARAMETER_VALUE", "range: step must not be 0")}
	}
	var n int64
	if (step > 0 && end > start) || (step < 0 && end < start) {
		n = (end - start + step - sign(step)) / step
	}
	if n > maxRangeRows {
		return &DataFrame{s: s, err: sparkerr.New("UNSUPPORTED_FEATURE", "range: %d rows is more than Atlas makes at once (%d)", n, maxRangeRows)}
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(int(n))
	for i := range n {
		b.Append(start + i*step)
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, n)
	defer rec.Release()
	return s.CreateDataFrame(schema, []arrow.RecordBatch{rec})
}

func sign(x int64) int64 {
	if x < 0 {
		return -1
	}
	return 1
}
