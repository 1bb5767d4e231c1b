package state

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// TestStatsAccumulatorsSurviveASnapshot folds half the rows, saves and
// loads the state (as a restart from a checkpoint does), folds the rest,
// and checks the result equals folding every row without a restart.
func TestStatsAccumulatorsSurviveASnapshot(t *testing.T) {
	mem := memory.NewGoAllocator()
	ints := func(vals ...any) arrow.Array {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(int32(v.(int)))
			}
		}
		return b.NewArray()
	}
	bools := array.NewBooleanBuilder(mem)
	bools.AppendValues([]bool{true, false, true, true}, []bool{true, true, false, true})
	boolCol := bools.NewArray()
	strs := array.NewStringBuilder(mem)
	strs.AppendValues([]string{"a", "b", "a", "c"}, []bool{true, true, true, true})
	strCol := strs.NewArray()
	y, x := ints(1, 2, nil, 2), ints(2, 3, 4, 4)
	pair := array.NewStructData(array.NewData(arrow.StructOf(arrow.Field{Name: "y", Type: y.DataType(), Nullable: true}, arrow.Field{Name: "x", Type: x.DataType(), Nullable: true}),
		4, []*memory.Buffer{nil}, []arrow.ArrayData{y.Data(), x.Data()}, 0, 0))
	for _, c := range []struct {
		agg *expr.BoundAgg
		arg arrow.Array
	}{
		{&expr.BoundAgg{Fn: "bool_and", Type: arrow.FixedWidthTypes.Boolean}, boolCol},
		{&expr.BoundAgg{Fn: "bool_or", Type: arrow.FixedWidthTypes.Boolean}, boolCol},
		{&expr.BoundAgg{Fn: "count_if", Type: arrow.PrimitiveTypes.Int64}, boolCol},
		{&expr.BoundAgg{Fn: "bit_xor", Type: arrow.PrimitiveTypes.Int32}, x},
		{&expr.BoundAgg{Fn: "kurtosis", Type: arrow.PrimitiveTypes.Float64}, x},
		{&expr.BoundAgg{Fn: "listagg", Type: arrow.BinaryTypes.String, Opts: expr.AggOptions{Distinct: true, Separator: "-"}}, strCol},
		{&expr.BoundAgg{Fn: "regr_slope", Type: arrow.PrimitiveTypes.Float64}, pair},
		{&expr.BoundAgg{Fn: "regr_count", Type: arrow.PrimitiveTypes.Int64}, pair},
		{&expr.BoundAgg{Fn: "corr", Type: arrow.PrimitiveTypes.Float64}, pair},
	} {
		whole, err := newAccumulator(c.agg)
		if err != nil {
			t.Fatal(err)
		}
		whole.grow(1)
		if err := whole.update(c.arg, []int32{0, 1, 2, 3}, []int32{0, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		first, _ := newAccumulator(c.agg)
		first.grow(1)
		if err := first.update(c.arg, []int32{0, 1}, []int32{0, 0}); err != nil {
			t.Fatal(err)
		}
		restored, _ := newAccumulator(c.agg)
		if err := restored.load(first.save()); err != nil {
			t.Fatalf("%s: load: %v", c.agg.Fn, err)
		}
		if err := restored.update(c.arg, []int32{2, 3}, []int32{0, 0}); err != nil {
			t.Fatal(err)
		}
		want, got := result(t, whole, c.agg.Type), result(t, restored, c.agg.Type)
		if want != got {
			t.Errorf("%s: %s after a restore, %s without", c.agg.Fn, got, want)
		}
	}
}

func result(t *testing.T, acc accumulator, typ arrow.DataType) string {
	t.Helper()
	b := array.NewBuilder(memory.NewGoAllocator(), typ)
	defer b.Release()
	acc.appendResult(b, 0)
	a := b.NewArray()
	defer a.Release()
	if a.IsNull(0) {
		return "NULL"
	}
	return a.ValueStr(0)
}
