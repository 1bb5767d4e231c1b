package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// ArrayAggregate is Spark's aggregate(array, zero, (acc, x) -> merge
// [, acc -> finish]) and its alias reduce: the accumulator starts at zero
// and takes merge over each element in turn; finish (the identity when
// absent) maps the last accumulator to the result. merge must return the
// zero's type. A NULL array gives NULL. The merge runs once per element
// position, over the rows that have an element there.
type ArrayAggregate struct {
	Name          string
	X, Zero       Expr
	Merge, Finish *LambdaFunction
}

func (e *ArrayAggregate) String() string {
	s := e.Name + "(" + e.X.String() + ", " + e.Zero.String() + ", " + e.Merge.String()
	if e.Finish != nil {
		s += ", " + e.Finish.String()
	} else {
		s += ", lambdafunction(namedlambdavariable(), namedlambdavariable())"
	}
	return s + ")"
}

// Bind binds the lambdas over the zero's and the elements' types.
func (e *ArrayAggregate) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	lt, ok := x.Type().(*arrow.ListType)
	if !ok {
		return nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: its first argument must be an array, got %s.", e, x.Type())
	}
	zero, err := e.Zero.Bind(s)
	if err != nil {
		return nil, err
	}
	acc := zero.Type()
	merge, err := bindLambda(e.Name, e.Merge, s, []lambdaVar{{typ: acc, nullable: true}, {typ: lt.Elem(), nullable: true}}, 2)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(merge.Type(), acc) {
		return nil, sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: the merge function returns %s, but the initial value is %s; cast the initial value to %s.", e, types.SQL(merge.Type()), types.SQL(acc), types.SQL(merge.Type()))
	}
	out := &aggregateBound{x: x, zero: zero, merge: merge, typ: acc}
	if e.Finish != nil {
		if out.finish, err = bindLambda(e.Name, e.Finish, s, []lambdaVar{{typ: acc, nullable: true}}, 1); err != nil {
			return nil, err
		}
		out.typ = out.finish.Type()
	}
	return out, nil
}

type aggregateBound struct {
	x, zero       Bound
	merge, finish *boundLambda
	typ           arrow.DataType
}

func (b *aggregateBound) Type() arrow.DataType { return b.typ }
func (b *aggregateBound) Nullable() bool       { return true }
func (b *aggregateBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	xa, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	list := xa.(*array.List)
	acc, err := b.zero.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	n := list.Len()
	for k := int64(0); ; k++ {
		var rows, elems []int32
		for i := 0; i < n; i++ {
			if s, e := list.ValueOffsets(i); list.IsValid(i) && s+k < e {
				rows, elems = append(rows, int32(i)), append(elems, int32(s+k))
			}
		}
		if len(rows) == 0 {
			break
		}
		next, err := b.step(c, rec, acc, list.ListValues(), rows, elems)
		acc.Release()
		if err != nil {
			return nil, err
		}
		acc = next
	}
	if b.finish != nil {
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		fin, err := b.finish.eval(c, rec, all, []arrow.Array{acc})
		acc.Release()
		if err != nil {
			return nil, err
		}
		acc = fin
	}
	if list.NullN() == 0 {
		return acc, nil
	}
	defer acc.Release()
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
		if list.IsNull(i) {
			idx[i] = -1
		}
	}
	return takeOrNull(c, acc, idx)
}

// step merges element elems[j] into the accumulator of row rows[j].
func (b *aggregateBound) step(c *Ctx, rec arrow.RecordBatch, acc, values arrow.Array, rows, elems []int32) (arrow.Array, error) {
	a, err := takeInts(c, acc, rows)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	x, err := takeInts(c, values, elems)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	res, err := b.merge.eval(c, rec, rows, []arrow.Array{a, x})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	both, err := concatArrays(c, []arrow.Array{acc, res})
	if err != nil {
		return nil, err
	}
	defer both.Release()
	n := acc.Len()
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	for j, r := range rows {
		idx[r] = int32(n + j)
	}
	return takeInts(c, both, idx)
}
