package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// bindConcatArrays binds concat(a1, a2, ...) over arrays; ok is false
// when no argument is an array (concat of strings). The element types
// widen to a common one; NULL arguments are NULL arrays.
func bindConcatArrays(e *Concat, s *arrow.Schema) (Bound, bool, error) {
	vals, err := bindExprs(e.Args, s)
	if err != nil {
		return nil, false, err
	}
	var elem arrow.DataType = arrow.Null
	anyList := false
	for _, v := range vals {
		if ab, ok := v.(*arrayBound); ok && len(ab.vals) == 0 {
			// array(): Spark's array<void>, which takes any element type.
			anyList = true
			continue
		}
		if t, ok := v.Type().(*arrow.ListType); ok {
			w, ok := WiderType(elem, t.Elem())
			if !ok {
				return nil, true, fmt.Errorf("[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve %s: the arrays have elements of types %s and %s", e, types.SQL(elem), types.SQL(t.Elem()))
			}
			elem, anyList = w, true
		}
	}
	if !anyList {
		return nil, false, nil
	}
	for i, v := range vals {
		if v.Type().ID() == arrow.LIST || v.Type().ID() == arrow.NULL {
			continue
		}
		return nil, true, fmt.Errorf("[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve %s: argument %d is %s; concat takes strings, binaries or arrays, all of one kind", e, i+1, types.SQL(v.Type()))
	}
	if elem.ID() == arrow.NULL {
		elem = arrow.BinaryTypes.String
	}
	lt := arrow.ListOf(elem)
	for i, v := range vals {
		vals[i] = castTo(v, lt)
	}
	return &concatArraysBound{args: vals, typ: lt}, true, nil
}

type concatArraysBound struct {
	args []Bound
	typ  *arrow.ListType
}

func (b *concatArraysBound) Type() arrow.DataType { return b.typ }
func (b *concatArraysBound) Nullable() bool       { return true }
func (b *concatArraysBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	lists := make([]*array.List, 0, len(b.args))
	defer func() {
		for _, l := range lists {
			l.Release()
		}
	}()
	var values []arrow.Array
	var base []int32
	total := int32(0)
	for _, a := range b.args {
		v, err := a.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		l := v.(*array.List)
		lists = append(lists, l)
		values = append(values, l.ListValues())
		base = append(base, total)
		total += int32(l.ListValues().Len())
	}
	all, err := concatArrays(c, values)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	parts := make([]offsetArray, len(lists))
	for i, l := range lists {
		parts[i] = l
	}
	offsets, valid, idx := concatRows(int(rec.NumRows()), parts, base)
	vals, err := takeInts(c, all, idx)
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	return newList(c, b.typ, offsets, valid, vals), nil
}

// offsetArray is a list or a map array: rows that are NULL or hold a run
// of child values.
type offsetArray interface {
	IsNull(i int) bool
	ValueOffsets(i int) (start, end int64)
}

// concatRows plans the row-wise concatenation of parts, whose child
// values stand concatenated with part k's starting at base[k]: row i's
// offsets, whether it is valid (NULL when any part's row is), and the
// indices into the concatenated child values, in order.
func concatRows(n int, parts []offsetArray, base []int32) (offsets []int32, valid []bool, idx []int32) {
	offsets, valid = make([]int32, n+1), make([]bool, n)
rows:
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		for _, p := range parts {
			if p.IsNull(i) {
				continue rows
			}
		}
		valid[i] = true
		for k, p := range parts {
			s, e := p.ValueOffsets(i)
			for j := s; j < e; j++ {
				idx = append(idx, base[k]+int32(j))
			}
			offsets[i+1] += int32(e - s)
		}
	}
	return offsets, valid, idx
}

// newList assembles a list array: row i holds values offsets[i] to
// offsets[i+1], NULL where valid[i] is false (valid nil: none).
func newList(c *Ctx, lt arrow.DataType, offsets []int32, valid []bool, values arrow.Array) arrow.Array {
	n := len(offsets) - 1
	bitmap, nulls := validityBitmap(c, valid)
	if bitmap != nil {
		defer bitmap.Release()
	}
	off := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))
	data := array.NewData(lt, n, []*memory.Buffer{bitmap, off}, []arrow.ArrayData{values.Data()}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}
