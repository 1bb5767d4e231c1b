package expr

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MapHOF is one of Spark's higher-order functions over a map and a lambda
// (k, v) -> ...: Name is map_filter (the entries for which it is true),
// transform_keys (its results as the keys, which must stay distinct and
// non-NULL) or transform_values (its results as the values). A NULL map
// gives NULL.
type MapHOF struct {
	Name string
	X    Expr
	Fn   *LambdaFunction
}

func (e *MapHOF) String() string { return e.Name + "(" + e.X.String() + ", " + e.Fn.String() + ")" }

// Bind binds the map and the lambda over its key and value types.
func (e *MapHOF) Bind(s *arrow.Schema) (Bound, error) {
	x, mt, err := bindMapArg(e.Name, e.X, s)
	if err != nil {
		return nil, err
	}
	fn, err := bindLambda(e.Name, e.Fn, s, []lambdaVar{{typ: mt.KeyType()}, {typ: mt.ItemType(), nullable: true}}, 2)
	if err != nil {
		return nil, err
	}
	out := &mapHOFBound{name: e.Name, x: x, fn: fn, typ: mt}
	switch e.Name {
	case "map_filter":
		if err := needsBool(e.Name, fn, e.Fn); err != nil {
			return nil, err
		}
	case "transform_keys":
		if fn.Type().ID() == arrow.MAP {
			return nil, sparkerr.New("DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE", "Cannot resolve %s: the key of map cannot be/contain %s.", e, types.SQL(fn.Type()))
		}
		out.typ = arrow.MapOf(fn.Type(), mt.ItemType())
	case "transform_values":
		out.typ = arrow.MapOf(mt.KeyType(), fn.Type())
	}
	return out, nil
}

type mapHOFBound struct {
	name string
	x    Bound
	fn   *boundLambda
	typ  *arrow.MapType
}

func (b *mapHOFBound) Type() arrow.DataType { return b.typ }
func (b *mapHOFBound) Nullable() bool       { return true }
func (b *mapHOFBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	m, err := evalMap(c, b.x, rec)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	el := flatten(m)
	keys, err := el.take(c, m.Keys())
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	vals, err := el.take(c, m.Items())
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	res, err := b.fn.eval(c, rec, el.parent, []arrow.Array{keys, vals})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	switch b.name {
	case "transform_keys":
		return newMap(c, b.typ, el.offsets, el.valid, res, vals)
	case "transform_values":
		return newMap(c, b.typ, el.offsets, el.valid, keys, res)
	}
	n := len(el.valid)
	offsets := make([]int32, n+1)
	var keep []int32
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		for j := el.offsets[i]; j < el.offsets[i+1]; j++ {
			if isTrue(res, int(j)) {
				keep = append(keep, j)
				offsets[i+1]++
			}
		}
	}
	return gatherMap(c, b.typ, offsets, el.valid, keys, keep, vals, keep)
}

// MapZipWith is Spark's map_zip_with(m1, m2, (k, v1, v2) -> ...): a map
// over the keys of both maps (m1's in order, then the keys only m2 has),
// whose values are the lambda of the key and both values (NULL where a map
// lacks the key). The maps' key types must be the same; a NULL map gives
// NULL.
type MapZipWith struct {
	L, R Expr
	Fn   *LambdaFunction
}

func (e *MapZipWith) String() string {
	return "map_zip_with(" + e.L.String() + ", " + e.R.String() + ", " + e.Fn.String() + ")"
}

// Bind binds both maps and the lambda over the key and both value types.
func (e *MapZipWith) Bind(s *arrow.Schema) (Bound, error) {
	l, lt, err := bindMapArg("map_zip_with", e.L, s)
	if err != nil {
		return nil, err
	}
	r, rt, err := bindMapArg("map_zip_with", e.R, s)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(lt.KeyType(), rt.KeyType()) {
		return nil, sparkerr.New("DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES", "Cannot resolve %s: input to the map_zip_with should have been two maps with compatible key types, but the key types are [%s, %s].", e, types.SQL(lt.KeyType()), types.SQL(rt.KeyType()))
	}
	fn, err := bindLambda("map_zip_with", e.Fn, s, []lambdaVar{{typ: lt.KeyType()}, {typ: lt.ItemType(), nullable: true}, {typ: rt.ItemType(), nullable: true}}, 3)
	if err != nil {
		return nil, err
	}
	return &mapZipBound{l: l, r: r, fn: fn, typ: arrow.MapOf(lt.KeyType(), fn.Type())}, nil
}

type mapZipBound struct {
	l, r Bound
	fn   *boundLambda
	typ  *arrow.MapType
}

func (b *mapZipBound) Type() arrow.DataType { return b.typ }
func (b *mapZipBound) Nullable() bool       { return true }
func (b *mapZipBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	l, err := evalMap(c, b.l, rec)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	r, err := evalMap(c, b.r, rec)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	allKeys, err := concatArrays(c, []arrow.Array{l.Keys(), r.Keys()})
	if err != nil {
		return nil, err
	}
	defer allKeys.Release()
	base := int32(l.Keys().Len())
	n := l.Len()
	offsets, valid := make([]int32, n+1), make([]bool, n)
	var ki, li, ri, parent []int32
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if l.IsNull(i) || r.IsNull(i) {
			continue
		}
		valid[i] = true
		ls, le := l.ValueOffsets(i)
		rs, re := r.ValueOffsets(i)
		inRight := map[string]int32{}
		for j := rs; j < re; j++ {
			inRight[r.Keys().ValueStr(int(j))] = int32(j)
		}
		seen := map[string]bool{}
		for j := ls; j < le; j++ {
			k := l.Keys().ValueStr(int(j))
			seen[k] = true
			rj, ok := inRight[k]
			if !ok {
				rj = -1
			}
			ki, li, ri, parent = append(ki, int32(j)), append(li, int32(j)), append(ri, rj), append(parent, int32(i))
		}
		for j := rs; j < re; j++ {
			if !seen[r.Keys().ValueStr(int(j))] {
				ki, li, ri, parent = append(ki, base+int32(j)), append(li, -1), append(ri, int32(j)), append(parent, int32(i))
			}
		}
		offsets[i+1] = int32(len(ki))
	}
	keys, err := takeInts(c, allKeys, ki)
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	v1, err := takeOrNull(c, l.Items(), li)
	if err != nil {
		return nil, err
	}
	defer v1.Release()
	v2, err := takeOrNull(c, r.Items(), ri)
	if err != nil {
		return nil, err
	}
	defer v2.Release()
	res, err := b.fn.eval(c, rec, parent, []arrow.Array{keys, v1, v2})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return newMap(c, b.typ, offsets, valid, keys, res)
}
