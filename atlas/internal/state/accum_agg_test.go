package state

import (
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
