package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// ArrayHOF is one of Spark's higher-order functions over one array and
// a lambda of an element (and, for transform and filter, its index):
// Name is transform (the lambda's results), filter (the elements for
// which it is true), exists (whether it is true for some element) or
// forall (for every element). exists and forall follow three-valued
// logic: exists is NULL when no element gives true and one gives NULL,
// forall when none gives false and one gives NULL. A NULL array gives
// NULL.
type ArrayHOF struct {
	Name string
	X    Expr
	Fn   *LambdaFunction
}

func (e *ArrayHOF) String() string { return e.Name + "(" + e.X.String() + ", " + e.Fn.String() + ")" }

// Bind binds the array and the lambda over its element type.
func (e *ArrayHOF) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	lt, ok := x.Type().(*arrow.ListType)
	if !ok {
		return nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: its first argument must be an array, got %s.", e, x.Type())
	}
	vars := []lambdaVar{{typ: lt.Elem(), nullable: true}}
	if e.Name == "transform" || e.Name == "filter" {
		vars = append(vars, lambdaVar{typ: arrow.PrimitiveTypes.Int32})
	}
	fn, err := bindLambda(e.Name, e.Fn, s, vars, 1)
	if err != nil {
		return nil, err
	}
	out := &arrayHOFBound{name: e.Name, x: x, fn: fn}
	switch e.Name {
	case "transform":
		out.typ = arrow.ListOf(fn.Type())
	case "filter":
		out.typ = lt
	default:
		out.typ = arrow.FixedWidthTypes.Boolean
	}
	if e.Name != "transform" {
		if err := needsBool(e.Name, fn, e.Fn); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type arrayHOFBound struct {
	name string
	x    Bound
	fn   *boundLambda
	typ  arrow.DataType
}

func (b *arrayHOFBound) Type() arrow.DataType { return b.typ }
func (b *arrayHOFBound) Nullable() bool       { return true }
func (b *arrayHOFBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	xa, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	list := xa.(*array.List)
	el := flatten(list)
	vals, err := el.take(c, list.ListValues())
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	vars := []arrow.Array{vals}
	if b.fn.params > 1 {
		idx := el.indices(c)
		defer idx.Release()
		vars = append(vars, idx)
	}
	res, err := b.fn.eval(c, rec, el.parent, vars)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	switch b.name {
	case "transform":
		return newList(c, b.typ, el.offsets, el.valid, res), nil
	case "filter":
		return filterElements(c, b.typ, el, vals, res)
	}
	return quantify(c, b.name == "forall", el, res), nil
}

// filterElements keeps the elements whose predicate is true.
func filterElements(c *Ctx, typ arrow.DataType, el *elements, vals, pred arrow.Array) (arrow.Array, error) {
	n := len(el.valid)
	offsets := make([]int32, n+1)
	var keep []int32
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		for j := el.offsets[i]; j < el.offsets[i+1]; j++ {
			if isTrue(pred, int(j)) {
				keep = append(keep, j)
				offsets[i+1]++
			}
		}
	}
	kept, err := takeInts(c, vals, keep)
	if err != nil {
		return nil, err
	}
	defer kept.Release()
	return newList(c, typ, offsets, el.valid, kept), nil
}

// isTrue reports whether row j of a boolean (or NULL-typed) array is true.
func isTrue(a arrow.Array, j int) bool {
	b, ok := a.(*array.Boolean)
	return ok && b.IsValid(j) && b.Value(j)
}

// quantify is exists (forall false) or forall over each row's results.
func quantify(c *Ctx, forall bool, el *elements, pred arrow.Array) arrow.Array {
	out := array.NewBooleanBuilder(c.Mem)
	defer out.Release()
	b, _ := pred.(*array.Boolean)
	for i, ok := range el.valid {
		if !ok {
			out.AppendNull()
			continue
		}
		decided, sawNull := false, false
		for j := int(el.offsets[i]); j < int(el.offsets[i+1]) && !decided; j++ {
			switch {
			case b == nil || b.IsNull(j):
				sawNull = true
			case b.Value(j) != forall:
				decided = true
			}
		}
		switch {
		case decided:
			out.Append(!forall)
		case sawNull:
			out.AppendNull()
		default:
			out.Append(forall)
		}
	}
	return out.NewArray()
}

// ZipWith is Spark's zip_with(left, right, (x, y) -> ...): the lambda over
// the elements of both arrays pairwise, the shorter one padded with
// NULLs; NULL when either array is NULL.
type ZipWith struct {
	L, R Expr
	Fn   *LambdaFunction
}

func (e *ZipWith) String() string {
	return "zip_with(" + e.L.String() + ", " + e.R.String() + ", " + e.Fn.String() + ")"
}

// Bind binds both arrays and the lambda over their element types.
func (e *ZipWith) Bind(s *arrow.Schema) (Bound, error) {
	l, err := e.L.Bind(s)
	if err != nil {
		return nil, err
	}
	r, err := e.R.Bind(s)
	if err != nil {
		return nil, err
	}
	lt, ok1 := l.Type().(*arrow.ListType)
	rt, ok2 := r.Type().(*arrow.ListType)
	if !ok1 || !ok2 {
		return nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: its first two arguments must be arrays, got %s and %s.", e, l.Type(), r.Type())
	}
	fn, err := bindLambda("zip_with", e.Fn, s, []lambdaVar{{typ: lt.Elem(), nullable: true}, {typ: rt.Elem(), nullable: true}}, 2)
	if err != nil {
		return nil, err
	}
	return &zipWithBound{l: l, r: r, fn: fn, typ: arrow.ListOf(fn.Type())}, nil
}

type zipWithBound struct {
	l, r Bound
	fn   *boundLambda
	typ  *arrow.ListType
}

func (b *zipWithBound) Type() arrow.DataType { return b.typ }
func (b *zipWithBound) Nullable() bool       { return true }
func (b *zipWithBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	la, err := b.l.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ra, err := b.r.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	l, r := la.(*array.List), ra.(*array.List)
	n := l.Len()
	offsets, valid := make([]int32, n+1), make([]bool, n)
	var li, ri, parent []int32
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if l.IsNull(i) || r.IsNull(i) {
			continue
		}
		valid[i] = true
		ls, le := l.ValueOffsets(i)
		rs, re := r.ValueOffsets(i)
		m := max(le-ls, re-rs)
		for j := int64(0); j < m; j++ {
			li, ri, parent = append(li, pos(ls, le, j)), append(ri, pos(rs, re, j)), append(parent, int32(i))
		}
		offsets[i+1] += int32(m)
	}
	x, err := takeOrNull(c, l.ListValues(), li)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	y, err := takeOrNull(c, r.ListValues(), ri)
	if err != nil {
		return nil, err
	}
	defer y.Release()
	res, err := b.fn.eval(c, rec, parent, []arrow.Array{x, y})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return newList(c, b.typ, offsets, valid, res), nil
}

// pos is element j of the range [start, end), or -1 past its end.
func pos(start, end, j int64) int32 {
	if start+j < end {
		return int32(start + j)
	}
	return -1
}
