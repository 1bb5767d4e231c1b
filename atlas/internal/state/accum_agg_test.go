package state

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// int64Col builds a BIGINT column; nil is a null.
func int64Col(vals ...any) arrow.Array {
	b := array.NewInt64Builder(memory.NewGoAllocator())
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(int64))
		}
	}
	return b.NewArray()
}

// checkSnapshot folds rows [0, split) of arg, saves and loads the state
// (a restart from a checkpoint), folds the rest, and checks the result is
// want, the hand-computed value, as is folding every row at once.
func checkSnapshot(t *testing.T, agg *expr.BoundAgg, arg arrow.Array, split int, want string) {
	t.Helper()
	all := make([]int32, arg.Len())
	for i := range all {
		all[i] = int32(i)
	}
	zeros := make([]int32, arg.Len())
	whole, err := newAccumulator(agg)
	if err != nil {
		t.Fatal(err)
	}
	whole.grow(1)
	if err := whole.update(arg, all, zeros); err != nil {
		t.Fatal(err)
	}
	first, _ := newAccumulator(agg)
	first.grow(1)
	if err := first.update(arg, all[:split], zeros[:split]); err != nil {
		t.Fatal(err)
	}
	restored, _ := newAccumulator(agg)
	if err := restored.load(first.save()); err != nil {
		t.Fatalf("%s: load: %v", agg.Fn, err)
	}
	if err := restored.update(arg, all[split:], zeros[split:]); err != nil {
		t.Fatal(err)
	}
	if got := result(t, whole, agg.Type); got != want {
		t.Errorf("%s: %s, want %s", agg.Fn, got, want)
	}
	if got := result(t, restored, agg.Type); got != want {
		t.Errorf("%s: %s after a restore, want %s", agg.Fn, got, want)
	}
}

// TestTrySumSurvivesASnapshot: an overflow before the checkpoint keeps the
// group NULL after it; a sum that fits carries on.
func TestTrySumSurvivesASnapshot(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	sum := &expr.BoundAgg{Fn: "try_sum", Type: i64}
	checkSnapshot(t, sum, int64Col(int64(1), nil, int64(2), int64(3)), 2, "6")
	checkSnapshot(t, sum, int64Col(int64(9223372036854775807), int64(1), int64(-5)), 2, "NULL")
	checkSnapshot(t, sum, int64Col(nil, nil), 1, "NULL")
}

// TestOrderedAccumulatorsSurviveASnapshot: mode's counts, the
// percentiles' counts and max_by's best rows carry over a checkpoint.
func TestOrderedAccumulatorsSurviveASnapshot(t *testing.T) {
	i64, f64 := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64
	vals := int64Col(int64(5), int64(7), nil, int64(7), int64(1), int64(5), int64(5))
	checkSnapshot(t, &expr.BoundAgg{Fn: "mode", Type: i64}, vals, 3, "5")
	// Tie 1 and 3 (twice each): the smallest, or the largest with DESC.
	ties := int64Col(int64(3), int64(1), int64(3), int64(1))
	checkSnapshot(t, &expr.BoundAgg{Fn: "mode", Type: i64, Opts: expr.AggOptions{Ordered: true}}, ties, 2, "1")
	checkSnapshot(t, &expr.BoundAgg{Fn: "mode", Type: i64, Opts: expr.AggOptions{Ordered: true, OrderDesc: true}}, ties, 1, "3")
	// Sorted 1 5 5 5 7 7: position 5*0.3 = 1.5 (5 and 5), 5*0.9 = 4.5 (7 and 7), 5*0.1 = 0.5: 0.5*1 + 0.5*5 = 3.
	for p, want := range map[float64]string{0.3: "5", 0.9: "7", 0.1: "3", 0: "1", 1: "7"} {
		checkSnapshot(t, &expr.BoundAgg{Fn: "percentile", Type: f64, Opts: expr.AggOptions{Percentages: []float64{p}}}, vals, 4, want)
	}
	checkSnapshot(t, &expr.BoundAgg{Fn: "percentile_disc", Type: f64, Opts: expr.AggOptions{Percentages: []float64{0.1}}}, vals, 4, "1")

	mem := memory.NewGoAllocator()
	xs := array.NewStringBuilder(mem)
	xs.AppendValues([]string{"a", "b", "c", "d"}, nil)
	ys := int64Col(int64(2), int64(9), nil, int64(4))
	x := xs.NewArray()
	pair := array.NewStructData(array.NewData(arrow.StructOf(arrow.Field{Name: "x", Type: x.DataType(), Nullable: true}, arrow.Field{Name: "y", Type: ys.DataType(), Nullable: true}),
		4, []*memory.Buffer{nil}, []arrow.ArrayData{x.Data(), ys.Data()}, 0, 0))
	checkSnapshot(t, &expr.BoundAgg{Fn: "max_by", Type: x.DataType(), Arg: argOf(pair)}, pair, 2, "b")
	checkSnapshot(t, &expr.BoundAgg{Fn: "min_by", Type: x.DataType(), Arg: argOf(pair)}, pair, 1, "a")
	checkSnapshot(t, &expr.BoundAgg{Fn: "min_by", Type: arrow.ListOf(x.DataType()), Arg: argOf(pair), Opts: expr.AggOptions{K: 2}}, pair, 3, `["a","d"]`)
}

// argOf is a bound argument of a's type, for accumulators that read it.
func argOf(a arrow.Array) expr.Bound { return typedBound{a.DataType()} }

type typedBound struct{ t arrow.DataType }

func (b typedBound) Type() arrow.DataType { return b.t }
func (b typedBound) Nullable() bool       { return true }
func (b typedBound) Eval(*expr.Ctx, arrow.RecordBatch) (arrow.Array, error) {
	return nil, errors.New("not evaluated")
}

// TestOrderedListAggSurvivesASnapshot: the values and keys kept before a
// checkpoint are sorted with those after it.
func TestOrderedListAggSurvivesASnapshot(t *testing.T) {
	mem := memory.NewGoAllocator()
	vb := array.NewStringBuilder(mem)
	vb.AppendValues([]string{"a", "b", "c", "d"}, []bool{true, true, false, true})
	v := vb.NewArray()
	k := int64Col(int64(3), nil, int64(1), int64(2))
	pair := array.NewStructData(array.NewData(arrow.StructOf(arrow.Field{Name: "v", Type: v.DataType(), Nullable: true}, arrow.Field{Name: "k", Type: k.DataType(), Nullable: true}),
		4, []*memory.Buffer{nil}, []arrow.ArrayData{v.Data(), k.Data()}, 0, 0))
	agg := func(desc, nullsFirst bool) *expr.BoundAgg {
		return &expr.BoundAgg{Fn: "listagg", Type: arrow.BinaryTypes.String, Arg: argOf(pair),
			Opts: expr.AggOptions{Separator: ",", Ordered: true, OrderDesc: desc, OrderNullsFirst: nullsFirst}}
	}
	checkSnapshot(t, agg(false, true), pair, 2, "b,d,a")
	checkSnapshot(t, agg(true, false), pair, 1, "a,d,b")
	checkSnapshot(t, agg(false, false), pair, 3, "d,a,b")
}

// TestHistogramRandomIsJavas: the tie-breaking generator is
// java.util.Random: new Random(42).nextDouble() is 0.7275636800328681.
func TestHistogramRandomIsJavas(t *testing.T) {
	h := histogram{rng: (42 ^ javaRandMultiplier) & javaRandMask}
	if got := h.nextDouble(); got != 0.7275636800328681 {
		t.Errorf("nextDouble = %v, want 0.7275636800328681", got)
	}
	hist := &expr.BoundAgg{Fn: "histogram_numeric", Opts: expr.AggOptions{Bins: 2},
		Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Float64, Nullable: true}))}
	// 1 3 | 9: (1,3) merge to 2 (height 2).
	checkSnapshot(t, hist, int64Col(int64(1), int64(3), nil, int64(9)), 2, `[{"x":2,"y":2},{"x":9,"y":1}]`)
}

// TestBitmapSurvivesASnapshot: bits set before a checkpoint stay set.
func TestBitmapSurvivesASnapshot(t *testing.T) {
	agg := &expr.BoundAgg{Fn: "bitmap_construct_agg", Type: arrow.BinaryTypes.Binary}
	acc, _ := newAccumulator(agg)
	acc.grow(1)
	if err := acc.update(int64Col(int64(3), nil), []int32{0, 1}, []int32{0, 0}); err != nil {
		t.Fatal(err)
	}
	restored, _ := newAccumulator(agg)
	if err := restored.load(acc.save()); err != nil {
		t.Fatal(err)
	}
	if err := restored.update(int64Col(int64(8)), []int32{0}, []int32{0}); err != nil {
		t.Fatal(err)
	}
	b := array.NewBinaryBuilder(memory.NewGoAllocator(), arrow.BinaryTypes.Binary)
	restored.appendResult(b, 0)
	got := b.NewBinaryArray().Value(0)
	if len(got) != bitmapBytes || got[0] != 0x08 || got[1] != 0x01 || got[2] != 0 {
		t.Errorf("bitmap after a restore starts % x, want 08 01 00 (4096 bytes)", got[:3])
	}
}
