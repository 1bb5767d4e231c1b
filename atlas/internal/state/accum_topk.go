package state

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// newTopKAccumulator builds approx_top_k, approx_top_k_accumulate and
// approx_top_k_combine (package sketch's Frequent, after DataSketches'
// ItemsSketch, as Spark). Nulls are counted apart, as Spark does, and
// returned as a null item.
func newTopKAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	o := a.Opts.Sketch
	switch a.Fn {
	case "approx_top_k", "approx_top_k_accumulate":
		acc := topKAcc(o.MaxItems, func(b array.Builder, s *topKState) error {
			if a.Fn == "approx_top_k" {
				return sketch.AppendTopK(b.(*array.ListBuilder), s.t, int(o.TopK))
			}
			appendTopKState(b.(*array.StructBuilder), s)
			return nil
		})
		acc.reader = func(arg arrow.Array) (func(s *topKState, i int), error) {
			items, err := sketch.TopKItems(arg)
			if err != nil {
				return nil, err
			}
			return func(s *topKState, i int) {
				if key, hash, ok := items(i); ok {
					s.t.F.Update(key, hash, 1)
				} else {
					s.t.NullCount++
				}
			}, nil
		}
		return acc, true, nil
	case "approx_top_k_combine":
		acc := topKAcc(o.MaxItems, func(b array.Builder, s *topKState) error {
			appendTopKState(b.(*array.StructBuilder), s)
			return nil
		})
		acc.reader = func(arg arrow.Array) (func(s *topKState, i int), error) {
			in, err := readTopKStates(a.Fn, arg)
			if err != nil {
				return nil, err
			}
			return func(s *topKState, i int) {
				if in[i] == nil {
					return
				}
				if o.MaxItems == 0 { // no maxItemsTracked given: the inputs'
					switch {
					case s.maxItems == 0:
						s.maxItems = in[i].maxItems
						s.t.F = sketch.NewFrequent(sketch.FrequentLgMax(int64(s.maxItems)))
					case s.maxItems != in[i].maxItems:
						if acc.err == nil {
							acc.err = fmt.Errorf("[APPROX_TOP_K_SKETCH_SIZE_NOT_MATCH] Combining approx_top_k sketches of different sizes is not allowed. Found sketches of size %d and %d. SQLSTATE: 42846", s.maxItems, in[i].maxItems)
						}
						return
					}
				}
				s.t.Merge(in[i].t)
			}, nil
		}
		return acc, true, nil
	}
	return nil, false, nil
}

// topKState is a sketch with its maxItemsTracked (0 for a combine
// without maxItemsTracked before its first input).
type topKState struct {
	t        *sketch.TopK
	maxItems int32
}

func newTopKState(maxItems int64) topKState {
	lg := sketch.FrequentLgMax(max(maxItems, 1))
	return topKState{t: &sketch.TopK{F: sketch.NewFrequent(lg)}, maxItems: int32(maxItems)}
}

func encodeTopKState(s *topKState) []byte {
	return binary.LittleEndian.AppendUint32(sketch.EncodeTopK(s.t), uint32(s.maxItems))
}

func decodeTopKState(b []byte) (topKState, error) {
	if len(b) < 4 {
		return topKState{}, sketch.ErrCorrupt
	}
	t, err := sketch.DecodeTopK(b[:len(b)-4])
	if err != nil {
		return topKState{}, err
	}
	return topKState{t: t, maxItems: int32(binary.LittleEndian.Uint32(b[len(b)-4:]))}, nil
}

func topKAcc(maxItems int64, result func(array.Builder, *topKState) error) *checkedAcc[topKState] {
	c := &checkedAcc[topKState]{}
	c.slotAcc = slotAcc[topKState]{
		fresh: func() topKState { return newTopKState(maxItems) },
		result: func(b array.Builder, s *topKState) {
			if err := result(b, s); err != nil {
				// Only a sketch Atlas did not write fails here: the
				// inputs were decoded and checked on the way in.
				panic(fmt.Sprintf("approx_top_k: %v", err))
			}
		},
		encode: encodeTopKState,
		decode: decodeTopKState,
	}
	return c
}

// appendTopKState appends Spark's state struct: (sketch, maxItemsTracked,
// a null of the item type, the item type's DDL).
func appendTopKState(b *array.StructBuilder, s *topKState) {
	b.Append(true)
	b.FieldBuilder(0).(*array.BinaryBuilder).Append(sketch.EncodeTopK(s.t))
	b.FieldBuilder(1).(*array.Int32Builder).Append(s.maxItems)
	b.FieldBuilder(2).AppendNull()
	b.FieldBuilder(3).(*array.StringBuilder).Append(sketch.TopKItemDDL(b.Type().(*arrow.StructType).Field(2).Type))
}

// readTopKStates decodes a column of approx_top_k states.
func readTopKStates(fn string, arg arrow.Array) ([]*topKState, error) {
	st, ok := arg.(*array.Struct)
	if !ok || st.NumField() != 4 {
		return nil, fmt.Errorf("%s needs the state approx_top_k_accumulate returns, got %s", fn, arg.DataType())
	}
	bin, ok1 := st.Field(0).(*array.Binary)
	size, ok2 := st.Field(1).(*array.Int32)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s needs the state approx_top_k_accumulate returns, got %s", fn, arg.DataType())
	}
	out := make([]*topKState, st.Len())
	for i := range out {
		if st.IsNull(i) || bin.IsNull(i) {
			continue
		}
		t, err := sketch.DecodeTopK(bin.Value(i))
		if err != nil {
			return nil, fmt.Errorf("[APPROX_TOP_K_INVALID_STATE] %s: row %d: %w", fn, i, err)
		}
		out[i] = &topKState{t: t, maxItems: size.Value(i)}
	}
	return out, nil
}
