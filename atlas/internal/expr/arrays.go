package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MakeArray is Spark's array(e1, e2, ...): an array (Arrow list) of the
// arguments' values, cast to their common type. With no argument (or only
// NULLs) the element type is string, where Spark has void.
type MakeArray struct{ Args []Expr }

func (e *MakeArray) String() string { return "array(" + joinExprs(e.Args) + ")" }

// Bind resolves the elements to a common type.
func (e *MakeArray) Bind(s *arrow.Schema) (Bound, error) {
	vals, err := bindExprs(e.Args, s)
	if err != nil {
		return nil, err
	}
	elem, err := commonType(vals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	if elem.ID() == arrow.NULL {
		elem = arrow.BinaryTypes.String
	}
	out := &arrayBound{typ: arrow.ListOf(elem)}
	for _, v := range vals {
		out.vals = append(out.vals, castTo(v, elem))
	}
	return out, nil
}

type arrayBound struct {
	vals []Bound
	typ  *arrow.ListType
}

func (b *arrayBound) Type() arrow.DataType { return b.typ }
func (b *arrayBound) Nullable() bool       { return false }
func (b *arrayBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n, k := int(rec.NumRows()), len(b.vals)
	// Element j of row i is row i of vals[j]: pick them row-major.
	var values arrow.Array
	if k == 0 {
		values = array.MakeArrayOfNull(c.Mem, b.typ.Elem(), 0)
	} else {
		choice := make([]int32, n*k)
		idx := make([]int32, n*k)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				choice[i*k+j], idx[i*k+j] = int32(j), int32(i)
			}
		}
		v, err := pickRowsAt(c, b.vals, choice, idx, rec, b.typ.Elem())
		if err != nil {
			return nil, err
		}
		values = v
	}
	defer values.Release()
	offsets := make([]int32, n+1)
	for i := range offsets {
		offsets[i] = int32(i * k)
	}
	ob := array.NewInt32Builder(c.Mem)
	defer ob.Release()
	ob.AppendValues(offsets, nil)
	off := ob.NewInt32Array()
	defer off.Release()
	data := array.NewData(b.typ, n, []*memory.Buffer{nil, off.Data().Buffers()[1]}, []arrow.ArrayData{values.Data()}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// pickRowsAt is pickRows where output row r is row idx[r] of
// vals[choice[r]], for outputs longer than the input.
func pickRowsAt(c *Ctx, vals []Bound, choice, idx []int32, rec arrow.RecordBatch, typ arrow.DataType) (arrow.Array, error) {
	n := int(rec.NumRows())
	parts := make([]arrow.Array, 0, len(vals))
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for _, v := range vals {
		a, err := v.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		parts = append(parts, a)
	}
	all := parts[0]
	if len(parts) > 1 {
		cat, err := array.Concatenate(parts, c.Mem)
		if err != nil {
			return nil, fmt.Errorf("combine array elements: %w", err)
		}
		defer cat.Release()
		all = cat
	}
	ib := array.NewInt32Builder(c.Mem)
	defer ib.Release()
	ib.Reserve(len(choice))
	for r, k := range choice {
		ib.Append(k*int32(n) + idx[r])
	}
	ix := ib.NewArray()
	defer ix.Release()
	return takeArray(c, all, ix)
}

// ElementAt is Spark's element_at(array, index): the element at a 1-based
// index, counting from the end when negative. Index 0 is always an error
// (INVALID_INDEX_OF_ZERO). An index beyond the array's length is an error
// under ANSI mode, Spark 4's default and Atlas's (INVALID_ARRAY_INDEX_IN_
// ELEMENT_AT); Try (try_element_at) returns NULL instead. A NULL array or
// index gives NULL.
type ElementAt struct {
	X, Index Expr
	Try      bool
}

func (e *ElementAt) String() string {
	fn := "element_at"
	if e.Try {
		fn = "try_element_at"
	}
	return fn + "(" + e.X.String() + ", " + e.Index.String() + ")"
}

// Bind checks the first argument is an array and the index an integer.
func (e *ElementAt) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	if _, ok := x.Type().(*arrow.MapType); ok {
		return bindMapElementAt(e.String(), x, e.Index, s)
	}
	lt, ok := x.Type().(*arrow.ListType)
	if !ok {
		return nil, fmt.Errorf("%s: the first argument must be an array or a map, got %s", e, types.Name(x.Type()))
	}
	ix, err := e.Index.Bind(s)
	if err != nil {
		return nil, err
	}
	if !isInteger(ix.Type()) && ix.Type().ID() != arrow.NULL {
		return nil, fmt.Errorf("%s: the index must be an integer, got %s; cast it, e.g. CAST(%s AS INT)", e, types.Name(ix.Type()), e.Index)
	}
	ixb := castTo(ix, arrow.PrimitiveTypes.Int64)
	if ab, ok := x.(*arrayBound); ok && len(ab.vals) > 0 {
		// element_at(array(e1, ..., ek), i): pick row by row from the
		// arguments, without building the arrays.
		return &elementOfArrayBound{vals: ab.vals, ix: ixb, elem: lt.Elem(), try: e.Try}, nil
	}
	return &elementAtBound{x: x, ix: ixb, elem: lt.Elem(), try: e.Try}, nil
}

type elementOfArrayBound struct {
	vals []Bound
	ix   Bound
	elem arrow.DataType
	try  bool
}

func (b *elementOfArrayBound) Type() arrow.DataType { return b.elem }
func (b *elementOfArrayBound) Nullable() bool       { return true }
func (b *elementOfArrayBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	ia, err := b.ix.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ia.Release()
	ix := ia.(*array.Int64)
	size := int64(len(b.vals))
	choice := make([]int32, ix.Len())
	for i := range choice {
		if ix.IsNull(i) {
			choice[i] = -1
			continue
		}
		k := ix.Value(i)
		switch {
		case k == 0:
			return nil, errIndexZero()
		case k > size || -k > size:
			if !b.try {
				return nil, errElementAt(k, size)
			}
			choice[i] = -1
		case k > 0:
			choice[i] = int32(k - 1)
		default:
			choice[i] = int32(size + k)
		}
	}
	if s, ok := constStrings(b.vals); ok {
		out := array.NewStringBuilder(c.Mem)
		defer out.Release()
		out.Reserve(len(choice))
		for _, k := range choice {
			if k < 0 || s[k] == nil {
				out.AppendNull()
				continue
			}
			out.Append(*s[k])
		}
		return out.NewArray(), nil
	}
	return pickRows(c, b.vals, choice, rec, b.elem)
}

// constStrings returns the values of string literals (nil for NULL), or
// ok=false when any value is not a string constant.
func constStrings(vals []Bound) ([]*string, bool) {
	out := make([]*string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case *litBound:
			switch s := x.lit.Value.(type) {
			case string:
				out[i] = &s
			case nil:
			default:
				return nil, false
			}
		case *scalarBound:
			if x.s.DataType().ID() != arrow.STRING {
				return nil, false
			}
			if x.s.IsValid() {
				str := x.s.String()
				out[i] = &str
			}
		default:
			return nil, false
		}
	}
	return out, true
}

func errIndexZero() error {
	return fmt.Errorf("[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1)")
}

func errElementAt(k, size int64) error {
	return fmt.Errorf("[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index %d is out of bounds. The array has %d elements. Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead", k, size)
}

type elementAtBound struct {
	x, ix Bound
	elem  arrow.DataType
	try   bool
}

func (b *elementAtBound) Type() arrow.DataType { return b.elem }
func (b *elementAtBound) Nullable() bool       { return true }
func (b *elementAtBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	xa, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	ia, err := b.ix.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ia.Release()
	list, ix := xa.(*array.List), ia.(*array.Int64)
	ib := array.NewInt32Builder(c.Mem)
	defer ib.Release()
	for i := 0; i < list.Len(); i++ {
		if list.IsNull(i) || ix.IsNull(i) {
			ib.AppendNull()
			continue
		}
		start, end := list.ValueOffsets(i)
		size, k := end-start, ix.Value(i)
		switch {
		case k == 0:
			return nil, errIndexZero()
		case k > size || -k > size:
			if b.try {
				ib.AppendNull()
				continue
			}
			return nil, errElementAt(k, size)
		case k > 0:
			ib.Append(int32(start + k - 1))
		default:
			ib.Append(int32(end + k))
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	return takeArray(c, list.ListValues(), idx)
}

// Size is Spark's size(array) and size(map): the number of elements or
// entries; NULL for a NULL argument (Spark 4's default,
// spark.sql.legacy.sizeOfNull=false).
type Size struct{ X Expr }

func (e *Size) String() string { return "size(" + e.X.String() + ")" }

// Bind checks the argument is an array.
func (e *Size) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	switch x.Type().(type) {
	case *arrow.ListType, *arrow.MapType:
	default:
		return nil, fmt.Errorf("%s: the argument must be an array or a map, got %s", e, types.Name(x.Type()))
	}
	return &sizeBound{x: x}, nil
}

type sizeBound struct{ x Bound }

func (b *sizeBound) Type() arrow.DataType { return arrow.PrimitiveTypes.Int32 }
func (b *sizeBound) Nullable() bool       { return true }
func (b *sizeBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	xa, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	list := xa.(offsetsOf)
	out := array.NewInt32Builder(c.Mem)
	defer out.Release()
	for i := 0; i < list.Len(); i++ {
		if list.IsNull(i) {
			out.AppendNull()
			continue
		}
		s, e := list.ValueOffsets(i)
		out.Append(int32(e - s))
	}
	return out.NewArray(), nil
}
