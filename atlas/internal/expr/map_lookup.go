package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MapContainsKey is Spark's map_contains_key(m, key): NULL for a NULL map
// or key.
type MapContainsKey struct{ X, Key Expr }

func (e *MapContainsKey) String() string {
	return "map_contains_key(" + e.X.String() + ", " + e.Key.String() + ")"
}

// Bind casts the key to the map's key type.
func (e *MapContainsKey) Bind(s *arrow.Schema) (Bound, error) {
	m, k, err := bindMapKey("map_contains_key", e.X, e.Key, s)
	if err != nil {
		return nil, err
	}
	return &mapKeyBound{m: m, k: k, typ: arrow.FixedWidthTypes.Boolean}, nil
}

// bindMapKey binds a map and a key of a type the map's key type takes.
func bindMapKey(fn string, x, key Expr, s *arrow.Schema) (Bound, Bound, error) {
	m, mt, err := bindMapArg(fn, x, s)
	if err != nil {
		return nil, nil, err
	}
	k, err := key.Bind(s)
	if err != nil {
		return nil, nil, err
	}
	kt, ok := WiderType(mt.KeyType(), k.Type())
	if !ok || !arrow.TypeEqual(kt, mt.KeyType()) {
		return nil, nil, fmt.Errorf("[DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES] Cannot resolve %s: the key %s is %s, the map's keys are %s", fn, key, types.SQL(k.Type()), types.SQL(mt.KeyType()))
	}
	return m, castTo(k, kt), nil
}

// mapKeyBound finds a key in each row's map: typ boolean answers
// map_contains_key, typ the map's value type gives the value (element_at,
// NULL when the key is missing, as Spark 3.4 on).
type mapKeyBound struct {
	m, k Bound
	typ  arrow.DataType
}

func (b *mapKeyBound) Type() arrow.DataType { return b.typ }
func (b *mapKeyBound) Nullable() bool       { return true }
func (b *mapKeyBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	m, err := evalMap(c, b.m, rec)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	ka, err := b.k.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ka.Release()
	keys := m.Keys()
	found := func(i int) int {
		s, e := m.ValueOffsets(i)
		want := ka.ValueStr(i)
		for j := s; j < e; j++ {
			if keys.ValueStr(int(j)) == want {
				return int(j)
			}
		}
		return -1
	}
	if b.typ.ID() == arrow.BOOL {
		out := array.NewBooleanBuilder(c.Mem)
		defer out.Release()
		for i := 0; i < m.Len(); i++ {
			if m.IsNull(i) || ka.IsNull(i) {
				out.AppendNull()
				continue
			}
			out.Append(found(i) >= 0)
		}
		return out.NewArray(), nil
	}
	ib := array.NewInt32Builder(c.Mem)
	defer ib.Release()
	for i := 0; i < m.Len(); i++ {
		j := -1
		if !m.IsNull(i) && !ka.IsNull(i) {
			j = found(i)
		}
		if j < 0 {
			ib.AppendNull()
			continue
		}
		ib.Append(int32(j))
	}
	idx := ib.NewArray()
	defer idx.Release()
	return takeArray(c, m.Items(), idx)
}

// bindMapElementAt is element_at(map, key) and try_element_at: the value
// for the key, NULL when the map does not hold it.
func bindMapElementAt(fn string, x Bound, key Expr, s *arrow.Schema) (Bound, error) {
	mt := x.Type().(*arrow.MapType)
	k, err := key.Bind(s)
	if err != nil {
		return nil, err
	}
	kt, ok := WiderType(mt.KeyType(), k.Type())
	if !ok || !arrow.TypeEqual(kt, mt.KeyType()) {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES] Cannot resolve %s: the key %s is %s, the map's keys are %s", fn, key, types.SQL(k.Type()), types.SQL(mt.KeyType()))
	}
	return &mapKeyBound{m: x, k: castTo(k, kt), typ: mt.ItemType()}, nil
}

// MapConcat is Spark's map_concat(m1, m2, ...): the entries of every map
// in order, NULL when any map is NULL; a key in two maps is Spark's
// DUPLICATED_MAP_KEY. The maps must have the same key and value types.
type MapConcat struct{ Args []Expr }

func (e *MapConcat) String() string { return "map_concat(" + joinExprs(e.Args) + ")" }

// Bind checks every argument is a map of the same type.
func (e *MapConcat) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Args) == 0 {
		return &makeMapBound{typ: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String),
			keys: &arrayBound{typ: StringListType}, vals: &arrayBound{typ: StringListType}}, nil
	}
	out := &mapConcatBound{}
	for _, a := range e.Args {
		b, mt, err := bindMapArg("map_concat", a, s)
		if err != nil {
			return nil, err
		}
		if out.typ != nil && !arrow.TypeEqual(out.typ, mt) {
			return nil, fmt.Errorf("[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve %s: the maps are %s and %s; cast them to one type", e, types.SQL(out.typ), types.SQL(mt))
		}
		out.typ = mt
		out.args = append(out.args, b)
	}
	return out, nil
}

type mapConcatBound struct {
	args []Bound
	typ  *arrow.MapType
}

func (b *mapConcatBound) Type() arrow.DataType { return b.typ }
func (b *mapConcatBound) Nullable() bool       { return true }
func (b *mapConcatBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	maps := make([]*array.Map, 0, len(b.args))
	defer func() {
		for _, m := range maps {
			m.Release()
		}
	}()
	var keys, items []arrow.Array
	var base []int32
	total := int32(0)
	for _, a := range b.args {
		m, err := evalMap(c, a, rec)
		if err != nil {
			return nil, err
		}
		maps = append(maps, m)
		keys, items = append(keys, m.Keys()), append(items, m.Items())
		base = append(base, total)
		total += int32(m.Keys().Len())
	}
	allKeys, err := concatArrays(c, keys)
	if err != nil {
		return nil, err
	}
	defer allKeys.Release()
	allItems, err := concatArrays(c, items)
	if err != nil {
		return nil, err
	}
	defer allItems.Release()
	parts := make([]offsetArray, len(maps))
	for i, m := range maps {
		parts[i] = m
	}
	offsets, valid, idx := concatRows(int(rec.NumRows()), parts, base)
	return gatherMap(c, b.typ, offsets, valid, allKeys, idx, allItems, idx)
}

// concatArrays concatenates arrays of one type (a new reference to the
// only one when there is one).
func concatArrays(c *Ctx, parts []arrow.Array) (arrow.Array, error) {
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	out, err := array.Concatenate(parts, c.Mem)
	if err != nil {
		return nil, fmt.Errorf("concatenate: %w", err)
	}
	return out, nil
}
