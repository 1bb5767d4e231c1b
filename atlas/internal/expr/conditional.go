package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// WhenBranch is one WHEN cond THEN value of a CaseWhen.
type WhenBranch struct {
	Cond, Value Expr
}

// CaseWhen is Spark's CASE WHEN c1 THEN v1 [WHEN ...] [ELSE e] END, built
// by functions.when(...).when(...).otherwise(...): the value of the first
// branch whose condition is true (a null condition counts as false), else
// Else (NULL when absent). The simple form CASE x WHEN a THEN ... compares
// x = a in each branch. The result type is the common type of the values.
type CaseWhen struct {
	Branches []WhenBranch
	Else     Expr // nil: NULL
}

// String renders the expression the way Spark names its column:
// "CASE WHEN (x > 1) THEN a ELSE b END".
func (w *CaseWhen) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, br := range w.Branches {
		b.WriteString(" WHEN " + br.Cond.String() + " THEN " + br.Value.String())
	}
	if w.Else != nil {
		b.WriteString(" ELSE " + w.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

// Bind resolves every branch; conditions must be boolean and the values
// must share a common type.
func (w *CaseWhen) Bind(s *arrow.Schema) (Bound, error) {
	if len(w.Branches) == 0 {
		return nil, fmt.Errorf("CASE needs at least one WHEN branch")
	}
	out := &caseBound{}
	var vals []Bound
	for _, br := range w.Branches {
		c, err := br.Cond.Bind(s)
		if err != nil {
			return nil, err
		}
		if id := c.Type().ID(); id != arrow.BOOL && id != arrow.NULL {
			return nil, fmt.Errorf("%s: the WHEN condition %s must be boolean, got %s", w, br.Cond, types.Name(c.Type()))
		}
		v, err := br.Value.Bind(s)
		if err != nil {
			return nil, err
		}
		out.conds = append(out.conds, castTo(c, arrow.FixedWidthTypes.Boolean))
		vals = append(vals, v)
	}
	if w.Else != nil {
		e, err := w.Else.Bind(s)
		if err != nil {
			return nil, err
		}
		vals = append(vals, e)
	}
	typ, err := commonType(vals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w, err)
	}
	for _, v := range vals {
		out.vals = append(out.vals, castTo(v, typ))
	}
	out.hasElse, out.typ = w.Else != nil, typ
	return out, nil
}

type caseBound struct {
	conds   []Bound
	vals    []Bound // one per branch, then the ELSE value when hasElse
	hasElse bool
	typ     arrow.DataType
}

func (b *caseBound) Type() arrow.DataType { return b.typ }
func (b *caseBound) Nullable() bool       { return true }
func (b *caseBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	choice := make([]int32, n)
	for i := range choice {
		choice[i] = -1
	}
	undecided := n
	for k, cb := range b.conds {
		if undecided == 0 {
			break
		}
		ca, err := cb.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		cond := ca.(*array.Boolean)
		for i := 0; i < n; i++ {
			if choice[i] < 0 && cond.IsValid(i) && cond.Value(i) {
				choice[i] = int32(k)
				undecided--
			}
		}
		ca.Release()
	}
	if b.hasElse {
		for i := range choice {
			if choice[i] < 0 {
				choice[i] = int32(len(b.conds))
			}
		}
	}
	return pickRows(c, b.vals, choice, rec, b.typ)
}

// Coalesce is Spark's coalesce(e1, e2, ...): the first non-null argument,
// or NULL when all are null.
type Coalesce struct{ Args []Expr }

func (e *Coalesce) String() string { return "coalesce(" + joinExprs(e.Args) + ")" }

// Bind resolves the arguments to their common type.
func (e *Coalesce) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Args) == 0 {
		return nil, fmt.Errorf("coalesce needs at least one argument")
	}
	vals, err := bindExprs(e.Args, s)
	if err != nil {
		return nil, err
	}
	typ, err := commonType(vals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	out := &coalesceBound{typ: typ}
	for _, v := range vals {
		out.vals = append(out.vals, castTo(v, typ))
	}
	return out, nil
}

type coalesceBound struct {
	vals []Bound
	typ  arrow.DataType
}

func (b *coalesceBound) Type() arrow.DataType { return b.typ }
func (b *coalesceBound) Nullable() bool       { return true }
func (b *coalesceBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	choice := make([]int32, n)
	for i := range choice {
		choice[i] = -1
	}
	undecided := n
	for k, v := range b.vals {
		if undecided == 0 {
			break
		}
		a, err := v.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if choice[i] < 0 && a.IsValid(i) {
				choice[i] = int32(k)
				undecided--
			}
		}
		a.Release()
	}
	return pickRows(c, b.vals, choice, rec, b.typ)
}

// pickRows builds a column whose row i is row i of vals[choice[i]] (NULL
// where choice[i] < 0). It concatenates the candidate columns and takes
// rows with arrow's Take kernel, so it works for every type, nested ones
// included. Candidates no row picks are not evaluated.
func pickRows(c *Ctx, vals []Bound, choice []int32, rec arrow.RecordBatch, typ arrow.DataType) (arrow.Array, error) {
	n := len(choice)
	used := make([]bool, len(vals))
	for _, k := range choice {
		if k >= 0 {
			used[k] = true
		}
	}
	var parts []arrow.Array
	base := make([]int32, len(vals))
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for k, v := range vals {
		if !used[k] {
			continue
		}
		a, err := v.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		base[k] = int32(len(parts) * n)
		parts = append(parts, a)
	}
	if len(parts) == 0 {
		return array.MakeArrayOfNull(c.Mem, typ, n), nil
	}
	all := parts[0]
	if len(parts) > 1 {
		cat, err := array.Concatenate(parts, c.Mem)
		if err != nil {
			return nil, fmt.Errorf("combine branch values: %w", err)
		}
		defer cat.Release()
		all = cat
	}
	ib := array.NewInt32Builder(c.Mem)
	defer ib.Release()
	ib.Reserve(n)
	for i, k := range choice {
		if k < 0 {
			ib.AppendNull()
			continue
		}
		ib.Append(base[k] + int32(i))
	}
	idx := ib.NewArray()
	defer idx.Release()
	return takeArray(c, all, idx)
}

// takeArray returns values[idx[i]] for every i (NULL where idx is null).
func takeArray(c *Ctx, values, idx arrow.Array) (arrow.Array, error) {
	res, err := compute.TakeArray(c.Context, values, idx)
	if err != nil {
		return nil, fmt.Errorf("take rows: %w", err)
	}
	return res, nil
}

// commonType is the type every value is cast to in CASE, coalesce and
// array(): NULLs take the others' type, numbers widen (int < bigint <
// double), and a string with anything else makes a string, as Spark's
// type coercion for these functions.
func commonType(vals []Bound) (arrow.DataType, error) {
	ts := make([]arrow.DataType, len(vals))
	for i, v := range vals {
		ts[i] = v.Type()
	}
	return CommonType(ts)
}

// CommonType is the type values of the types ts take together, as Spark's
// type coercion widens them for CASE, coalesce, array() and the rows of
// VALUES: NULLs take the others' type, numbers widen (int < bigint <
// double), and a string with another atomic type makes a string.
func CommonType(ts []arrow.DataType) (arrow.DataType, error) {
	var out arrow.DataType = arrow.Null
	for _, t := range ts {
		if w, ok := decimalWider(out, t); ok {
			out = w
			continue
		}
		switch {
		case t.ID() == arrow.NULL || arrow.TypeEqual(out, t):
		case out.ID() == arrow.NULL:
			out = t
		case isNumeric(out) && isNumeric(t):
			out = widerNumber(out, t)
		case out.ID() == arrow.STRING && isAtomic(t), t.ID() == arrow.STRING && isAtomic(out):
			out = arrow.BinaryTypes.String
		case out.ID() == arrow.TIMESTAMP && t.ID() == arrow.TIMESTAMP:
			out = types.Timestamp
		default:
			return nil, fmt.Errorf("cannot combine %s and %s: cast one side first", types.Name(out), types.Name(t))
		}
	}
	return out, nil
}

func isAtomic(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP:
		return false
	}
	return true
}

func widerNumber(a, b arrow.DataType) arrow.DataType {
	rank := func(t arrow.DataType) int {
		switch t.ID() {
		case arrow.INT8:
			return 1
		case arrow.INT16:
			return 2
		case arrow.INT32:
			return 3
		case arrow.INT64:
			return 4
		case arrow.FLOAT32:
			return 5
		}
		return 6
	}
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

func bindExprs(es []Expr, s *arrow.Schema) ([]Bound, error) {
	out := make([]Bound, len(es))
	for i, e := range es {
		b, err := e.Bind(s)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func joinExprs(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
