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

func sketchAgg(t *testing.T, fn string, lgK int64, mode string) accumulator {
	t.Helper()
	acc, err := newAccumulator(&expr.BoundAgg{Fn: fn, Type: arrow.BinaryTypes.Binary, Opts: expr.AggOptions{Sketch: expr.SketchOptions{LgK: lgK, Mode: mode}}})
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

// feed updates acc with arg, every row into group g(i), then saves and
// reloads the state as a checkpoint restore would.
func feed(t *testing.T, acc accumulator, fn string, lgK int64, mode string, arg arrow.Array, g func(i int) int32) accumulator {
	t.Helper()
	rows, gids := make([]int32, arg.Len()), make([]int32, arg.Len())
	for i := range rows {
		rows[i], gids[i] = int32(i), g(i)
		acc.grow(int(gids[i]) + 1)
	}
	if err := acc.update(arg, rows, gids); err != nil {
		t.Fatal(err)
	}
	st := acc.save()
	back := sketchAgg(t, fn, lgK, mode)
	if err := back.load(st); err != nil {
		t.Fatal(err)
	}
	return back
}

func results(t *testing.T, acc accumulator, groups int) *array.Binary {
	t.Helper()
	b := array.NewBinaryBuilder(memory.NewGoAllocator(), arrow.BinaryTypes.Binary)
	defer b.Release()
	for g := range groups {
		acc.appendResult(b, int32(g))
	}
	return b.NewBinaryArray()
}

// TestThetaAggregates: theta_sketch_agg over strings with nulls and empty
// strings (left out, as DataSketches does) in two groups and two batches
// with a checkpoint between, then theta_union_agg and
// theta_intersection_agg over the group sketches.
func TestThetaAggregates(t *testing.T) {
	mem := memory.NewGoAllocator()
	acc := sketchAgg(t, "theta_sketch_agg", 12, "")
	acc.grow(3) // group 2 gets no rows: an empty sketch, estimate 0
	for batch := range 2 {
		b := array.NewStringBuilder(mem)
		for i := range 3000 {
			switch {
			case i%7 == 0:
				b.AppendNull()
			case i%11 == 0:
				b.Append("")
			default:
				// group 0: values 0..2999 twice over the batches; group 1
				// shifts by 1000 each batch.
				b.Append(string(rune('a'+batch%1)) + itoaT(i+batch*1000*(i%2)))
			}
		}
		arr := b.NewArray()
		acc = feed(t, acc, "theta_sketch_agg", 12, "", arr, func(i int) int32 { return int32(i % 2) })
		arr.Release()
		b.Release()
	}
	// Exact reference of the distinct values per group.
	want := [2]map[string]bool{{}, {}}
	for batch := range 2 {
		for i := range 3000 {
			if i%7 == 0 || i%11 == 0 {
				continue
			}
			want[i%2]["a"+itoaT(i+batch*1000*(i%2))] = true
		}
	}
	res := results(t, acc, 3)
	defer res.Release()
	for g := range 3 {
		k, err := sketch.DecodeTheta(res.Value(g))
		if err != nil {
			t.Fatal(err)
		}
		exact := 0
		if g < 2 {
			exact = len(want[g])
		}
		if k.Estimate() != float64(exact) { // below 4096: exact
			t.Errorf("group %d: estimate %v, want %d", g, k.Estimate(), exact)
		}
	}
	union := feed(t, sketchAgg(t, "theta_union_agg", 12, ""), "theta_union_agg", 12, "", res, func(int) int32 { return 0 })
	inter := feed(t, sketchAgg(t, "theta_intersection_agg", 12, ""), "theta_intersection_agg", 12, "", array.NewSlice(res, 0, 2), func(int) int32 { return 0 })
	all, both := map[string]bool{}, 0
	for v := range want[0] {
		all[v] = true
		if want[1][v] {
			both++
		}
	}
	for v := range want[1] {
		all[v] = true
	}
	for _, c := range []struct {
		acc   accumulator
		exact int
	}{{union, len(all)}, {inter, both}} {
		r := results(t, c.acc, 1)
		k, err := sketch.DecodeTheta(r.Value(0))
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Estimate(); got != float64(c.exact) {
			t.Errorf("merged estimate %v, want %d", got, c.exact)
		}
		r.Release()
	}
}

// TestThetaAggregateLarge: 200,000 distinct integers at lgK 10 are
// estimated within 3 relative standard errors (1/sqrt(1024)).
func TestThetaAggregateLarge(t *testing.T) {
	mem := memory.NewGoAllocator()
	acc := sketchAgg(t, "theta_sketch_agg", 10, "")
	acc.grow(1)
	for batch := range 4 {
		b := array.NewInt64Builder(mem)
		for i := range 50000 {
			b.Append(int64(batch*50000 + i))
		}
		arr := b.NewArray()
		acc = feed(t, acc, "theta_sketch_agg", 10, "", arr, func(int) int32 { return 0 })
		arr.Release()
		b.Release()
	}
	r := results(t, acc, 1)
	defer r.Release()
	k, err := sketch.DecodeTheta(r.Value(0))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(k.Estimate()-200000) > 3*200000/32.0 {
		t.Errorf("estimate %v of 200000", k.Estimate())
	}
}

// TestTupleAggregate: tuple_sketch_agg_integer sums the summaries of a
// key; rows with a null key or summary are left out.
func TestTupleAggregate(t *testing.T) {
	mem := memory.NewGoAllocator()
	keys := array.NewInt64Builder(mem)
	vals := array.NewInt32Builder(mem)
	keys.AppendValues([]int64{1, 1, 2, 2, 3, 0, 4}, []bool{true, true, true, true, true, false, true})
	vals.AppendValues([]int32{5, 1, 2, 3, 2, 100, 9}, []bool{true, true, true, true, true, true, false})
	ka, va := keys.NewArray(), vals.NewArray()
	st := array.NewStructData(array.NewData(arrow.StructOf(arrow.Field{Name: "key", Type: ka.DataType()}, arrow.Field{Name: "summary", Type: va.DataType()}),
		ka.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{ka.Data(), va.Data()}, 0, 0))
	for _, c := range []struct {
		mode string
		sum  int64
	}{{"sum", 13}, {"max", 10}, {"min", 5}, {"alwaysone", 3}} {
		acc := sketchAgg(t, "tuple_sketch_agg_integer", 12, c.mode)
		acc.grow(1)
		acc = feed(t, acc, "tuple_sketch_agg_integer", 12, c.mode, st, func(int) int32 { return 0 })
		r := results(t, acc, 1)
		k, err := sketch.DecodeTupleInteger(r.Value(0))
		if err != nil {
			t.Fatal(err)
		}
		// Per key: sum 6, 5, 2; max 5, 3, 2; min 1, 2, 2; alwaysone 1 each.
		if k.Estimate() != 3 || sketch.AggregateInteger(k, sketch.ModeSum) != c.sum {
			t.Errorf("mode %s: %v keys, summaries summing to %d; want 3 and %d", c.mode, k.Estimate(), sketch.AggregateInteger(k, sketch.ModeSum), c.sum)
		}
		r.Release()
	}
	if _, err := newAccumulator(&expr.BoundAgg{Fn: "tuple_sketch_agg_integer", Opts: expr.AggOptions{Sketch: expr.SketchOptions{LgK: 12, Mode: "avg"}}}); err == nil {
		t.Error("mode avg accepted")
	}
}

// TestSketchMergeRefusesCorruptInput: a BINARY value that is not a sketch
// fails the batch rather than being skipped.
func TestSketchMergeRefusesCorruptInput(t *testing.T) {
	b := array.NewBinaryBuilder(memory.NewGoAllocator(), arrow.BinaryTypes.Binary)
	b.Append([]byte("not a sketch"))
	arr := b.NewArray()
	acc := sketchAgg(t, "theta_union_agg", 12, "")
	acc.grow(1)
	if err := acc.update(arr, []int32{0}, []int32{0}); err == nil {
		t.Error("a corrupt sketch was merged")
	}
}

func itoaT(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}
