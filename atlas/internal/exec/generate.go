package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// generateOp runs a plan.Generate: the projection's other items are
// evaluated once per input row and repeated for every element of the
// generator's array or map.
type generateOp struct {
	arr       expr.Bound
	others    []expr.Bound
	genIndex  int
	gen       *expr.Explode
	genFields int
	schema    *arrow.Schema
}

func newGenerateOp(g *plan.Generate) (*generateOp, error) {
	arr, others, err := g.Bind()
	if err != nil {
		return nil, err
	}
	return &generateOp{arr: arr, others: others, genIndex: g.GenIndex, gen: g.Gen, genFields: g.GenFields, schema: g.Out}, nil
}

// genRows is where the output rows come from: rows[k] is the input row of
// output row k, elems[k] the element of the array's values (null for the
// row of nulls an outer generator gives a null or empty array), pos[k]
// the element's position in its array.
type genRows struct {
	rows, elems, pos *array.Int32
}

func (r genRows) release() {
	r.rows.Release()
	r.elems.Release()
	r.pos.Release()
}

// walk lays out the output rows of a list or map column.
func (g *generateOp) walk(c *expr.Ctx, list *array.List) genRows {
	rows, elems, pos := array.NewInt32Builder(c.Mem), array.NewInt32Builder(c.Mem), array.NewInt32Builder(c.Mem)
	defer rows.Release()
	defer elems.Release()
	defer pos.Release()
	offsets := list.Offsets()
	for i := 0; i < list.Len(); i++ {
		start, end := offsets[i], offsets[i+1]
		if list.IsNull(i) || start == end {
			if g.gen.Outer {
				rows.Append(int32(i))
				elems.AppendNull()
				pos.AppendNull()
			}
			continue
		}
		for j := start; j < end; j++ {
			rows.Append(int32(i))
			elems.Append(j)
			pos.Append(j - start)
		}
	}
	return genRows{rows.NewInt32Array(), elems.NewInt32Array(), pos.NewInt32Array()}
}

// generated computes the generator's columns for the rows r over the
// array's values.
func (g *generateOp) generated(c *expr.Ctx, values arrow.Array, isMap bool, r genRows) ([]arrow.Array, error) {
	var out []arrow.Array
	take := func(a arrow.Array, idx arrow.Array) error {
		t, err := compute.TakeArray(c.Context, a, idx)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		out = append(out, t)
		return nil
	}
	if g.gen.Pos {
		r.pos.Retain()
		out = append(out, r.pos)
	}
	st, isStruct := values.(*array.Struct)
	var err error
	switch {
	case isMap && isStruct:
		if err = take(st.Field(0), r.elems); err == nil {
			err = take(st.Field(1), r.elems)
		}
	case g.gen.Inline && isStruct:
		idx := structIndex(c, st, r.elems)
		defer idx.Release()
		for f := 0; f < st.NumField() && err == nil; f++ {
			err = take(st.Field(f), idx)
		}
	default:
		err = take(values, r.elems)
	}
	if err != nil {
		for _, a := range out {
			a.Release()
		}
		return nil, err
	}
	return out, nil
}

// structIndex is elems with a null where the struct element is null, so
// that inline gives a row of nulls for a null struct.
func structIndex(c *expr.Ctx, st *array.Struct, elems *array.Int32) *array.Int32 {
	b := array.NewInt32Builder(c.Mem)
	defer b.Release()
	for k := 0; k < elems.Len(); k++ {
		if elems.IsNull(k) || st.IsNull(int(elems.Value(k))) {
			b.AppendNull()
			continue
		}
		b.Append(elems.Value(k))
	}
	return b.NewInt32Array()
}

func (g *generateOp) apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	a, err := g.arr.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	var list *array.List
	isMap := false
	switch x := a.(type) {
	case *array.Map:
		list, isMap = x.List, true
	case *array.List:
		list = x
	default:
		return nil, fmt.Errorf("generate: the array evaluated to %s", a.DataType())
	}
	r := g.walk(c, list)
	defer r.release()
	n := int64(r.rows.Len())
	var cols []arrow.Array
	defer func() {
		for _, x := range cols {
			x.Release()
		}
	}()
	for i, b := range g.others {
		if i == g.genIndex {
			gen, err := g.generated(c, list.ListValues(), isMap, r)
			if err != nil {
				return nil, err
			}
			cols = append(cols, gen...)
			continue
		}
		v, err := b.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		if f := g.schema.Field(len(cols)); v.DataType().ID() == arrow.NULL && f.Type.ID() != arrow.NULL {
			nulls := array.MakeArrayOfNull(c.Mem, f.Type, v.Len())
			v.Release()
			v = nulls
		}
		t, err := compute.TakeArray(c.Context, v, r.rows)
		v.Release()
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		cols = append(cols, t)
	}
	out := array.NewRecordBatch(g.schema, cols, n)
	return out, nil
}
