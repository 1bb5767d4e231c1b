package state

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

func kllAgg(t *testing.T, fn string, k int64) accumulator {
	t.Helper()
	acc, err := newAccumulator(&expr.BoundAgg{Fn: fn, Type: arrow.BinaryTypes.Binary, Opts: expr.AggOptions{Sketch: expr.SketchOptions{K: k}}})
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

// TestKLLAggregates: kll_sketch_agg_double leaves nulls and NaN out,
// keeps its sketch across a checkpoint, and kll_merge_agg_double of the
// group sketches counts every item once; below k items the median is
// exact.
func TestKLLAggregates(t *testing.T) {
	mem := memory.NewGoAllocator()
	acc := kllAgg(t, "kll_sketch_agg_double", 200)
	for batch := range 2 {
		b := array.NewFloat64Builder(mem)
		for i := range 50 {
			switch i % 10 {
			case 3:
				b.AppendNull()
			case 7:
				b.Append(math.NaN())
			default:
				b.Append(float64(batch*50 + i))
			}
		}
		arr := b.NewArray()
		rows, gids := make([]int32, arr.Len()), make([]int32, arr.Len())
		for i := range rows {
			rows[i], gids[i] = int32(i), int32(i%2)
		}
		acc.grow(2)
		if err := acc.update(arr, rows, gids); err != nil {
			t.Fatal(err)
		}
		st := acc.save()
		acc = kllAgg(t, "kll_sketch_agg_double", 200)
		if err := acc.load(st); err != nil {
			t.Fatal(err)
		}
		arr.Release()
		b.Release()
	}
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	acc.appendResult(bb, 0)
	acc.appendResult(bb, 1)
	res := bb.NewBinaryArray()
	var total uint64
	for g := range 2 {
		s, err := sketch.DecodeKLLDoubles(res.Value(g))
		if err != nil {
			t.Fatal(err)
		}
		total += s.N
	}
	// 100 rows, 10 nulls and 10 NaN left out.
	if total != 80 {
		t.Fatalf("items counted %d, want 80", total)
	}
	merge := kllAgg(t, "kll_merge_agg_double", 0)
	merge.grow(1)
	if err := merge.update(res, []int32{0, 1}, []int32{0, 0}); err != nil {
		t.Fatal(err)
	}
	mb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	merge.appendResult(mb, 0)
	m, err := sketch.DecodeKLLDoubles(mb.NewBinaryArray().Value(0))
	if err != nil {
		t.Fatal(err)
	}
	med, _ := m.Quantile(0.5)
	// The 80 values 0..99 without those ending in 3 or 7: the 40th is 49.
	if m.N != 80 || med != 49 || m.Min != 0 || m.Max != 99 || m.K != 200 {
		t.Errorf("merged: n %d median %v min %v max %v k %d; want 80, 49, 0, 99, 200", m.N, med, m.Min, m.Max, m.K)
	}
}
