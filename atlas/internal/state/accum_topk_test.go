package state

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

func topKAgg(t *testing.T, fn string, typ arrow.DataType, k, maxItems int64) accumulator {
	t.Helper()
	acc, err := newAccumulator(&expr.BoundAgg{Fn: fn, Type: typ, Opts: expr.AggOptions{Sketch: expr.SketchOptions{TopK: k, MaxItems: maxItems}}})
	if err != nil {
		t.Fatal(err)
	}
	acc.grow(1)
	return acc
}

// TestTopKNulls: approx_top_k counts nulls apart and returns them as a
// null item, before the items it is strictly more frequent than (Spark's
// ApproxTopKAggregateBuffer.eval); the state survives a checkpoint.
func TestTopKNulls(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewStringBuilder(mem)
	b.AppendValues([]string{"a", "", "b", "b", "", "", "b", "c", ""}, []bool{true, false, true, true, false, false, true, true, true})
	arr := b.NewArray()
	typ := sketch.TopKResultType(arrow.BinaryTypes.String)
	acc := topKAgg(t, "approx_top_k", typ, 3, 100)
	rows := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	if err := acc.update(arr, rows, make([]int32, 9)); err != nil {
		t.Fatal(err)
	}
	st := acc.save()
	acc = topKAgg(t, "approx_top_k", typ, 3, 100)
	if err := acc.load(st); err != nil {
		t.Fatal(err)
	}
	out := array.NewBuilder(mem, typ)
	acc.appendResult(out, 0)
	res := out.NewArray()
	// b 3 times, null 3 times (not before b: not strictly more), then
	// a, c and "" once each: the third is the first of those in the
	// table's order.
	got := res.String()
	l := res.(*array.List)
	items := l.ListValues().(*array.Struct)
	names, counts := items.Field(0).(*array.String), items.Field(1).(*array.Int64)
	if l.Len() != 1 || items.Len() != 3 {
		t.Fatalf("result %s", got)
	}
	if names.Value(0) != "b" || counts.Value(0) != 3 || !names.IsNull(1) || counts.Value(1) != 3 || counts.Value(2) != 1 {
		t.Errorf("result %s: want b:3, null:3, then a count of 1", got)
	}
}

// TestTopKCombineSizes: approx_top_k_combine without maxItemsTracked
// refuses states of different sizes, as Spark does.
func TestTopKCombineSizes(t *testing.T) {
	mem := memory.NewGoAllocator()
	stateType := sketch.TopKStateType(arrow.PrimitiveTypes.Int32)
	var states []arrow.Array
	for _, size := range []int64{100, 200} {
		acc := topKAgg(t, "approx_top_k_accumulate", stateType, 0, size)
		ib := array.NewInt32Builder(mem)
		ib.AppendValues([]int32{1, 2, 2}, nil)
		if err := acc.update(ib.NewArray(), []int32{0, 1, 2}, []int32{0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		sb := array.NewBuilder(mem, stateType)
		acc.appendResult(sb, 0)
		states = append(states, sb.NewArray())
	}
	combine := topKAgg(t, "approx_top_k_combine", stateType, 0, 0)
	if err := combine.update(states[0], []int32{0}, []int32{0}); err != nil {
		t.Fatal(err)
	}
	if err := combine.update(states[1], []int32{0}, []int32{0}); err == nil || !strings.Contains(err.Error(), "APPROX_TOP_K_SKETCH_SIZE_NOT_MATCH") {
		t.Errorf("combining sizes 100 and 200: %v", err)
	}
	sized := topKAgg(t, "approx_top_k_combine", stateType, 0, 50)
	for _, s := range states {
		if err := sized.update(s, []int32{0}, []int32{0}); err != nil {
			t.Fatalf("with maxItemsTracked: %v", err)
		}
	}
	out := array.NewBuilder(mem, stateType)
	sized.appendResult(out, 0)
	st := out.NewArray().(*array.Struct)
	tk, err := sketch.DecodeTopK(st.Field(0).(*array.Binary).Value(0))
	if err != nil {
		t.Fatal(err)
	}
	if tk.F.StreamWeight != 6 || st.Field(1).(*array.Int32).Value(0) != 50 || st.Field(3).(*array.String).Value(0) != "item INT NOT NULL" {
		t.Errorf("combined: weight %d size %d ddl %q", tk.F.StreamWeight, st.Field(1).(*array.Int32).Value(0), st.Field(3).(*array.String).Value(0))
	}
}
