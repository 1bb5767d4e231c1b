package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// MapPart is map_keys(m), map_values(m) or map_entries(m) (Part "keys",
// "values", "entries"): the map's keys, values or key-value structs as an
// array, sharing the map's buffers.
type MapPart struct {
	X    Expr
	Part string
}

func (e *MapPart) String() string { return "map_" + e.Part + "(" + e.X.String() + ")" }

// Bind checks the argument is a map.
func (e *MapPart) Bind(s *arrow.Schema) (Bound, error) {
	x, mt, err := bindMapArg("map_"+e.Part, e.X, s)
	if err != nil {
		return nil, err
	}
	var elem arrow.DataType
	switch e.Part {
	case "keys":
		elem = mt.KeyType()
	case "values":
		elem = mt.ItemType()
	case "entries":
		elem = entryType(mt)
	default:
		return nil, fmt.Errorf("map_%s is not a map function", e.Part)
	}
	return &mapPartBound{x: x, part: e.Part, typ: arrow.ListOf(elem)}, nil
}

// entryType is the struct of map_entries: key and value.
func entryType(mt *arrow.MapType) *arrow.StructType {
	return arrow.StructOf(arrow.Field{Name: "key", Type: mt.KeyType()}, arrow.Field{Name: "value", Type: mt.ItemType(), Nullable: true})
}

type mapPartBound struct {
	x    Bound
	part string
	typ  *arrow.ListType
}

func (b *mapPartBound) Type() arrow.DataType { return b.typ }
func (b *mapPartBound) Nullable() bool       { return b.x.Nullable() }
func (b *mapPartBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	m, err := evalMap(c, b.x, rec)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	var child arrow.ArrayData
	switch b.part {
	case "keys":
		child = m.Keys().Data()
	case "values":
		child = m.Items().Data()
	default:
		st := m.ListValues().Data()
		d := array.NewData(b.typ.Elem(), st.Len(), st.Buffers(), st.Children(), st.NullN(), st.Offset())
		defer d.Release()
		child = d
	}
	md := m.Data()
	data := array.NewData(b.typ, md.Len(), md.Buffers(), []arrow.ArrayData{child}, md.NullN(), md.Offset())
	defer data.Release()
	return array.MakeFromData(data), nil
}

// MapFromArrays is Spark's map_from_arrays(keys, values): NULL when either
// array is NULL; both must have as many elements.
type MapFromArrays struct{ Keys, Values Expr }

func (e *MapFromArrays) String() string {
	return "map_from_arrays(" + e.Keys.String() + ", " + e.Values.String() + ")"
}

// Bind checks both arguments are arrays.
func (e *MapFromArrays) Bind(s *arrow.Schema) (Bound, error) {
	k, err := e.Keys.Bind(s)
	if err != nil {
		return nil, err
	}
	v, err := e.Values.Bind(s)
	if err != nil {
		return nil, err
	}
	kt, ok1 := k.Type().(*arrow.ListType)
	vt, ok2 := v.Type().(*arrow.ListType)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve %s: map_from_arrays takes two arrays, got %s and %s", e, k.Type(), v.Type())
	}
	return &mapFromArraysBound{k: k, v: v, typ: arrow.MapOf(kt.Elem(), vt.Elem())}, nil
}

type mapFromArraysBound struct {
	k, v Bound
	typ  *arrow.MapType
}

func (b *mapFromArraysBound) Type() arrow.DataType { return b.typ }
func (b *mapFromArraysBound) Nullable() bool       { return b.k.Nullable() || b.v.Nullable() }
func (b *mapFromArraysBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	ka, err := b.k.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ka.Release()
	va, err := b.v.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer va.Release()
	kl, vl := ka.(*array.List), va.(*array.List)
	n := kl.Len()
	offsets, valid := make([]int32, n+1), make([]bool, n)
	var kidx, vidx []int32
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if kl.IsNull(i) || vl.IsNull(i) {
			continue
		}
		ks, ke := kl.ValueOffsets(i)
		vs, ve := vl.ValueOffsets(i)
		if ke-ks != ve-vs {
			return nil, fmt.Errorf("map_from_arrays: the key array and value array of MapData must have the same length (%d keys, %d values)", ke-ks, ve-vs)
		}
		valid[i] = true
		for j := int64(0); j < ke-ks; j++ {
			kidx, vidx = append(kidx, int32(ks+j)), append(vidx, int32(vs+j))
		}
		offsets[i+1] += int32(ke - ks)
	}
	return gatherMap(c, b.typ, offsets, valid, kl.ListValues(), kidx, vl.ListValues(), vidx)
}

// MapFromEntries is Spark's map_from_entries(array of struct(k, v)): NULL
// for a NULL array, or one holding a NULL entry.
type MapFromEntries struct{ X Expr }

func (e *MapFromEntries) String() string { return "map_from_entries(" + e.X.String() + ")" }

// Bind checks the argument is an array of two-field structs.
func (e *MapFromEntries) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	lt, ok := x.Type().(*arrow.ListType)
	var st *arrow.StructType
	if ok {
		st, ok = lt.Elem().(*arrow.StructType)
	}
	if !ok || st.NumFields() != 2 {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve %s: map_from_entries takes an array of structs of two fields (key, value), got %s", e, x.Type())
	}
	return &mapFromEntriesBound{x: x, typ: arrow.MapOf(st.Field(0).Type, st.Field(1).Type)}, nil
}

type mapFromEntriesBound struct {
	x   Bound
	typ *arrow.MapType
}

func (b *mapFromEntriesBound) Type() arrow.DataType { return b.typ }
func (b *mapFromEntriesBound) Nullable() bool       { return true }
func (b *mapFromEntriesBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	xa, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	l := xa.(*array.List)
	entries := l.ListValues().(*array.Struct)
	n := l.Len()
	offsets, valid := make([]int32, n+1), make([]bool, n)
	var idx []int32
rows:
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if l.IsNull(i) {
			continue
		}
		s, e := l.ValueOffsets(i)
		for j := s; j < e; j++ {
			if entries.IsNull(int(j)) {
				continue rows
			}
		}
		valid[i] = true
		for j := s; j < e; j++ {
			idx = append(idx, int32(j))
		}
		offsets[i+1] += int32(e - s)
	}
	return gatherMap(c, b.typ, offsets, valid, entries.Field(0), idx, entries.Field(1), idx)
}
