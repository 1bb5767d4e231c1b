package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Spark's MAP is Arrow's map type: a list of struct<key, value> entries
// with non-null keys. Every map Atlas builds goes through newMap, which
// refuses a NULL key (NULL_MAP_KEY) and a key repeated within one map
// (DUPLICATED_MAP_KEY: Spark 4's default spark.sql.mapKeyDedupPolicy is
// EXCEPTION; Atlas has no LAST_WIN).

// MakeMap is Spark's map(k1, v1, k2, v2, ...): the keys are cast to their
// common type, and so are the values.
type MakeMap struct{ Args []Expr }

func (e *MakeMap) String() string { return "map(" + joinExprs(e.Args) + ")" }

// Bind resolves the keys and values to their common types.
func (e *MakeMap) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Args)%2 != 0 {
		return nil, sparkerr.New("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "The `map` requires 2n (n > 0) parameters but the actual number is %d.", len(e.Args))
	}
	vals, err := bindExprs(e.Args, s)
	if err != nil {
		return nil, err
	}
	var ks, vs []Bound
	for i := 0; i < len(vals); i += 2 {
		ks, vs = append(ks, vals[i]), append(vs, vals[i+1])
	}
	kt, err := commonType(ks)
	if err != nil {
		return nil, fmt.Errorf("%s: the keys: %w", e, err)
	}
	vt, err := commonType(vs)
	if err != nil {
		return nil, fmt.Errorf("%s: the values: %w", e, err)
	}
	if kt.ID() == arrow.NULL {
		kt = arrow.BinaryTypes.String
	}
	if vt.ID() == arrow.NULL {
		vt = arrow.BinaryTypes.String
	}
	if kt.ID() == arrow.MAP {
		return nil, sparkerr.New("DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE", "Cannot resolve %s: the key of map cannot be/contain %s.", e, types.SQL(kt))
	}
	out := &makeMapBound{typ: arrow.MapOf(kt, vt), keys: &arrayBound{typ: arrow.ListOf(kt)}, vals: &arrayBound{typ: arrow.ListOf(vt)}}
	for i := range ks {
		out.keys.vals = append(out.keys.vals, castTo(ks[i], kt))
		out.vals.vals = append(out.vals.vals, castTo(vs[i], vt))
	}
	return out, nil
}

type makeMapBound struct {
	keys, vals *arrayBound
	typ        *arrow.MapType
}

func (b *makeMapBound) Type() arrow.DataType { return b.typ }
func (b *makeMapBound) Nullable() bool       { return false }
func (b *makeMapBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	ka, err := b.keys.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ka.Release()
	va, err := b.vals.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer va.Release()
	kl, vl := ka.(*array.List), va.(*array.List)
	return newMap(c, b.typ, kl.Offsets()[:kl.Len()+1], nil, kl.ListValues(), vl.ListValues())
}

// newMap assembles a map array: row i holds the entries offsets[i] to
// offsets[i+1] of keys and items, and is NULL where valid[i] is false
// (valid nil: no NULL row). It refuses NULL and duplicate keys.
func newMap(c *Ctx, mt *arrow.MapType, offsets []int32, valid []bool, keys, items arrow.Array) (arrow.Array, error) {
	if err := checkMapKeys(keys, offsets, valid); err != nil {
		return nil, err
	}
	n := len(offsets) - 1
	bitmap, nulls := validityBitmap(c, valid)
	if bitmap != nil {
		defer bitmap.Release()
	}
	off := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))
	entries := array.NewData(mt.Elem(), keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), items.Data()}, 0, 0)
	defer entries.Release()
	data := array.NewData(mt, n, []*memory.Buffer{bitmap, off}, []arrow.ArrayData{entries}, nulls, 0)
	defer data.Release()
	return array.NewMapData(data), nil
}

// validityBitmap is the validity buffer of valid (nil for nil) and the
// number of NULLs.
func validityBitmap(c *Ctx, valid []bool) (*memory.Buffer, int) {
	if valid == nil {
		return nil, 0
	}
	bitmap := memory.NewResizableBuffer(c.Mem)
	bitmap.Resize(int(bitutil.BytesForBits(int64(len(valid)))))
	nulls := 0
	for i, ok := range valid {
		bitutil.SetBitTo(bitmap.Bytes(), i, ok)
		if !ok {
			nulls++
		}
	}
	return bitmap, nulls
}

// checkMapKeys is Spark's check on the keys of every map built.
func checkMapKeys(keys arrow.Array, offsets []int32, valid []bool) error {
	seen := map[string]struct{}{}
	for i := 0; i+1 < len(offsets); i++ {
		if valid != nil && !valid[i] {
			continue
		}
		clear(seen)
		for j := int(offsets[i]); j < int(offsets[i+1]); j++ {
			if keys.IsNull(j) {
				return &sparkerr.Error{Class: "NULL_MAP_KEY", SQLState: "2200E", Message: "Cannot use null as map key."}
			}
			k := keys.ValueStr(j)
			if _, dup := seen[k]; dup {
				return &sparkerr.Error{Class: "DUPLICATED_MAP_KEY", SQLState: "23505", Params: map[string]string{"key": k, "mapKeyDedupPolicy": `"spark.sql.mapKeyDedupPolicy"`},
					Message: fmt.Sprintf(`Duplicate map key %s was found, please check the input data. If you want to remove the duplicated keys, you can set "spark.sql.mapKeyDedupPolicy" to "LAST_WIN" so that the key inserted at last takes precedence.`, k)}
			}
			seen[k] = struct{}{}
		}
	}
	return nil
}

// gatherMap builds a map from index lists: the entries of row i are
// keys[kidx[j]] and items[vidx[j]] for j from offsets[i] to offsets[i+1].
func gatherMap(c *Ctx, mt *arrow.MapType, offsets []int32, valid []bool, keys arrow.Array, kidx []int32, items arrow.Array, vidx []int32) (arrow.Array, error) {
	k, err := takeInts(c, keys, kidx)
	if err != nil {
		return nil, err
	}
	defer k.Release()
	v, err := takeInts(c, items, vidx)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return newMap(c, mt, offsets, valid, k, v)
}

// takeInts is takeArray with Go indices.
func takeInts(c *Ctx, values arrow.Array, idx []int32) (arrow.Array, error) {
	ib := array.NewInt32Builder(c.Mem)
	defer ib.Release()
	ib.AppendValues(idx, nil)
	ix := ib.NewArray()
	defer ix.Release()
	return takeArray(c, values, ix)
}

// offsetsOf reads the value offsets of a list or map array.
type offsetsOf interface {
	arrow.Array
	ValueOffsets(i int) (start, end int64)
}

// bindMapArg binds e and checks it is a map.
func bindMapArg(fn string, e Expr, s *arrow.Schema) (Bound, *arrow.MapType, error) {
	b, err := e.Bind(s)
	if err != nil {
		return nil, nil, err
	}
	mt, ok := b.Type().(*arrow.MapType)
	if !ok {
		return nil, nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: %s requires a map, got %s (%s).", fn, fn, types.SQL(b.Type()), e)
	}
	return b, mt, nil
}

// evalMap evaluates a bound map expression.
func evalMap(c *Ctx, b Bound, rec arrow.RecordBatch) (*array.Map, error) {
	a, err := b.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	return a.(*array.Map), nil
}
