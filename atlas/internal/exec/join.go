package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/state"
)

// joinSpec is a join bound for one execution: its keys and filters.
type joinSpec struct {
	j                 *plan.Join
	lkeys, rkeys      []expr.Bound
	lonly, ronly, two expr.Bound // nil when absent
	// castKeys[i] is set when the two sides' key i are different numbers:
	// both are widened to it before hashing.
	castKeys []arrow.DataType
}

func bindJoin(j *plan.Join) (*joinSpec, error) {
	s := &joinSpec{j: j}
	ls, rs := j.Left.Schema(), j.Right.Schema()
	var err error
	for i := range j.LeftKeys {
		lb, err := j.LeftKeys[i].Bind(ls)
		if err != nil {
			return nil, err
		}
		rb, err := j.RightKeys[i].Bind(rs)
		if err != nil {
			return nil, err
		}
		var cast arrow.DataType
		if !arrow.TypeEqual(lb.Type(), rb.Type()) {
			cast = arrow.PrimitiveTypes.Int64
			if isFloatType(lb.Type()) || isFloatType(rb.Type()) {
				cast = arrow.PrimitiveTypes.Float64
			}
		}
		s.lkeys, s.rkeys, s.castKeys = append(s.lkeys, lb), append(s.rkeys, rb), append(s.castKeys, cast)
	}
	bind := func(e expr.Expr, sc *arrow.Schema) (expr.Bound, error) {
		if e == nil {
			return nil, nil
		}
		return e.Bind(sc)
	}
	if s.lonly, err = bind(j.LeftOnly, ls); err != nil {
		return nil, err
	}
	if s.ronly, err = bind(j.RightOnly, rs); err != nil {
		return nil, err
	}
	if s.two, err = bind(j.Both, j.Pair); err != nil {
		return nil, err
	}
	return s, nil
}

func isFloatType(t arrow.DataType) bool {
	return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64
}

// sideRows is one side's rows prepared for matching: each row's encoded
// key and whether it can match at all (no null key, side-only filter true).
type sideRows struct {
	rec  arrow.RecordBatch
	keys []string
	ok   []bool
	// pass is the side-only filter's result (true without one): a row
	// failing it can never match.
	pass  []bool
	index map[string][]int32 // built on demand
}

func (s *joinSpec) prepare(c *expr.Ctx, rec arrow.RecordBatch, left bool) (*sideRows, error) {
	keys, filter := s.rkeys, s.ronly
	if left {
		keys, filter = s.lkeys, s.lonly
	}
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(keys))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, k := range keys {
		a, err := k.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		if t := s.castKeys[i]; t != nil && !arrow.TypeEqual(a.DataType(), t) {
			cast, err := compute.CastArray(c.Context, a, compute.SafeCastOptions(t))
			a.Release()
			if err != nil {
				return nil, fmt.Errorf("join key %d: %w", i, err)
			}
			a = cast
		}
		cols[i] = a
	}
	sr := &sideRows{rec: rec}
	var err error
	if len(cols) > 0 {
		if sr.keys, sr.ok, err = state.EncodeJoinKeys(cols, n); err != nil {
			return nil, fmt.Errorf("join key: %w", err)
		}
	} else {
		sr.keys, sr.ok = make([]string, n), make([]bool, n)
		for i := range sr.ok {
			sr.ok[i] = true
		}
	}
	sr.pass = make([]bool, n)
	for i := range sr.pass {
		sr.pass[i] = true
	}
	if filter != nil {
		m, err := filter.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		defer m.Release()
		b, isBool := m.(*array.Boolean)
		for i := range sr.ok {
			if !isBool || b.IsNull(i) || !b.Value(i) {
				sr.ok[i], sr.pass[i] = false, false
			}
		}
	}
	return sr, nil
}

func (sr *sideRows) buildIndex() map[string][]int32 {
	if sr.index == nil {
		sr.index = map[string][]int32{}
		for i, ok := range sr.ok {
			if ok {
				sr.index[sr.keys[i]] = append(sr.index[sr.keys[i]], int32(i))
			}
		}
	}
	return sr.index
}

// match returns the pairs (left row, right row) that satisfy the whole
// join condition, in left row order.
func (s *joinSpec) match(c *expr.Ctx, l, r *sideRows) (li, ri []int32, err error) {
	idx := r.buildIndex()
	for i, ok := range l.ok {
		if !ok {
			continue
		}
		for _, j := range idx[l.keys[i]] {
			li, ri = append(li, int32(i)), append(ri, j)
		}
	}
	if s.two == nil || len(li) == 0 {
		return li, ri, nil
	}
	pair, err := pairRecord(c, s.j.Pair, l.rec, r.rec, li, ri)
	if err != nil {
		return nil, nil, err
	}
	defer pair.Release()
	m, err := s.two.Eval(c, pair)
	if err != nil {
		return nil, nil, err
	}
	defer m.Release()
	b, isBool := m.(*array.Boolean)
	if !isBool {
		return nil, nil, nil // a NULL literal condition matches nothing
	}
	k := 0
	for x := range li {
		if b.IsValid(x) && b.Value(x) {
			li[k], ri[k] = li[x], ri[x]
			k++
		}
	}
	return li[:k], ri[:k], nil
}

// takeNullable gathers rows idx of a (-1 gives null).
func takeNullable(c *expr.Ctx, a arrow.Array, idx []int32) (arrow.Array, error) {
	b := array.NewInt32Builder(c.Mem)
	defer b.Release()
	for _, i := range idx {
		if i < 0 {
			b.AppendNull()
		} else {
			b.Append(i)
		}
	}
	ind := b.NewInt32Array()
	defer ind.Release()
	return compute.TakeArray(c.Context, a, ind)
}

// pairRecord builds the records of left rows li next to right rows ri.
func pairRecord(c *expr.Ctx, schema *arrow.Schema, l, r arrow.RecordBatch, li, ri []int32) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	release := func() {
		for _, a := range cols {
			a.Release()
		}
	}
	for _, side := range []struct {
		rec arrow.RecordBatch
		idx []int32
	}{{l, li}, {r, ri}} {
		for i := 0; i < int(side.rec.NumCols()); i++ {
			a, err := takeNullable(c, side.rec.Column(i), side.idx)
			if err != nil {
				release()
				return nil, err
			}
			cols = append(cols, a)
		}
	}
	out := array.NewRecordBatch(schema, cols, int64(len(li)))
	release()
	return out, nil
}

// assemble builds the join's output rows: left row li[k] with right row
// ri[k] (-1 for the null row of an outer join).
func assemble(c *expr.Ctx, j *plan.Join, l, r arrow.RecordBatch, li, ri []int32) (arrow.RecordBatch, error) {
	switch {
	case j.Type == plan.LeftSemiJoin || j.Type == plan.LeftAntiJoin:
		return expr.TakeRows(c, l, li)
	case len(j.Using) == 0:
		return pairRecord(c, j.Out, l, r, li, ri)
	}
	var cols []arrow.Array
	release := func() {
		for _, a := range cols {
			a.Release()
		}
	}
	lu, ru := j.UsingIndices()
	for k := range lu {
		a, err := usingColumn(c, j, l.Column(lu[k]), r.Column(ru[k]), li, ri)
		if err != nil {
			release()
			return nil, err
		}
		cols = append(cols, a)
	}
	for _, side := range []struct {
		rec  arrow.RecordBatch
		idx  []int32
		cols []int
	}{{l, li, j.LeftColumns()}, {r, ri, j.RightColumns()}} {
		for _, i := range side.cols {
			a, err := takeNullable(c, side.rec.Column(i), side.idx)
			if err != nil {
				release()
				return nil, err
			}
			cols = append(cols, a)
		}
	}
	out := array.NewRecordBatch(j.Out, cols, int64(len(li)))
	release()
	return out, nil
}

// usingColumn is a USING column: the left value, the right one for a
// right outer join, and coalesce(left, right) for a full outer join.
func usingColumn(c *expr.Ctx, j *plan.Join, lc, rc arrow.Array, li, ri []int32) (arrow.Array, error) {
	switch j.Type {
	case plan.RightOuterJoin:
		return takeNullable(c, rc, ri)
	case plan.FullOuterJoin:
	default:
		return takeNullable(c, lc, li)
	}
	if !arrow.TypeEqual(lc.DataType(), rc.DataType()) {
		cast, err := compute.CastArray(c.Context, rc, compute.SafeCastOptions(lc.DataType()))
		if err != nil {
			return nil, err
		}
		defer cast.Release()
		rc = cast
	}
	both, err := array.Concatenate([]arrow.Array{lc, rc}, c.Mem)
	if err != nil {
		return nil, err
	}
	defer both.Release()
	idx := make([]int32, len(li))
	for k := range li {
		switch {
		case li[k] >= 0:
			idx[k] = li[k]
		case ri[k] >= 0:
			idx[k] = int32(lc.Len()) + ri[k]
		default:
			idx[k] = -1
		}
	}
	return takeNullable(c, both, idx)
}

// joinBatch joins two whole relations (batch-batch, and the static side of
// a stream-static join): every join type, outer rows after matched ones.
func (s *joinSpec) joinBatch(c *expr.Ctx, l, r arrow.RecordBatch) (arrow.RecordBatch, error) {
	lr, err := s.prepare(c, l, true)
	if err != nil {
		return nil, err
	}
	rr, err := s.prepare(c, r, false)
	if err != nil {
		return nil, err
	}
	li, ri, err := s.match(c, lr, rr)
	if err != nil {
		return nil, err
	}
	li, ri = s.outer(li, ri, int(l.NumRows()), int(r.NumRows()))
	return assemble(c, s.j, l, r, li, ri)
}

// outer turns the matched pairs into the join type's rows: matched pairs,
// then unmatched left rows (left and full outer), then unmatched right
// rows (right and full outer); matched left rows once (semi); unmatched
// left rows (anti).
func (s *joinSpec) outer(li, ri []int32, nl, nr int) ([]int32, []int32) {
	lm, rm := make([]bool, nl), make([]bool, nr)
	for k := range li {
		lm[li[k]], rm[ri[k]] = true, true
	}
	switch s.j.Type {
	case plan.LeftSemiJoin, plan.LeftAntiJoin:
		want := s.j.Type == plan.LeftSemiJoin
		var out []int32
		for i, m := range lm {
			if m == want {
				out = append(out, int32(i))
			}
		}
		return out, nil
	}
	if s.j.Type == plan.LeftOuterJoin || s.j.Type == plan.FullOuterJoin {
		for i, m := range lm {
			if !m {
				li, ri = append(li, int32(i)), append(ri, -1)
			}
		}
	}
	if s.j.Type == plan.RightOuterJoin || s.j.Type == plan.FullOuterJoin {
		for i, m := range rm {
			if !m {
				li, ri = append(li, -1), append(ri, int32(i))
			}
		}
	}
	return li, ri
}

// collectJoin runs a batch join: both sides are collected (each a batch
// plan of its own) and joined in memory.
func collectJoin(ctx context.Context, j *plan.Join) ([]arrow.RecordBatch, error) {
	c := expr.NewCtx(ctx)
	l, err := collectOne(ctx, j.Left)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	r, err := collectOne(ctx, j.Right)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	spec, err := bindJoin(j)
	if err != nil {
		return nil, err
	}
	out, err := spec.joinBatch(c, l, r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.Describe(), err)
	}
	return []arrow.RecordBatch{out}, nil
}

// collectOne collects a batch plan into one record.
func collectOne(ctx context.Context, n plan.Node) (arrow.RecordBatch, error) {
	schema, recs, err := Collect(ctx, n)
	if err != nil {
		return nil, err
	}
	defer releaseAll(recs)
	if len(recs) == 0 {
		return emptyRecord(expr.NewCtx(ctx), n.Schema()), nil
	}
	return Concat(expr.NewCtx(ctx), schema, recs)
}

// emptyRecord is a record of schema s without rows.
func emptyRecord(c *expr.Ctx, s *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = array.MakeArrayOfNull(c.Mem, f.Type, 0)
	}
	out := array.NewRecordBatch(s, cols, 0)
	for _, a := range cols {
		a.Release()
	}
	return out
}

// streamStaticOp joins each micro-batch of a stream with a static
// DataFrame (Spark's stream-static join: a batch join per micro-batch).
// As Spark plans every micro-batch afresh, a static side that reads a
// catalog table is read again at each micro-batch, so rows committed to
// the table meanwhile join; rows held in memory (a LocalRelation) are
// collected once.
type streamStaticOp struct {
	spec        *joinSpec
	streamRight bool
	refresh     bool
	static      arrow.RecordBatch
	prepared    *sideRows
	// batch is the evaluation context of the micro-batch the static rows
	// were read for: each micro-batch evaluates with a Ctx of its own.
	batch *expr.Ctx
}

func newStreamStaticOp(j *plan.Join) (*streamStaticOp, error) {
	spec, err := bindJoin(j)
	if err != nil {
		return nil, err
	}
	o := &streamStaticOp{spec: spec, streamRight: j.Right.IsStreaming()}
	o.refresh = hasRefresh(o.staticNode())
	return o, nil
}

func (o *streamStaticOp) staticNode() plan.Node {
	if o.streamRight {
		return o.spec.j.Left
	}
	return o.spec.j.Right
}

// hasRefresh reports whether a batch plan reads a catalog table.
func hasRefresh(n plan.Node) bool {
	for ; n != nil; n = n.Input() {
		switch x := n.(type) {
		case *plan.LocalScan:
			return x.Refresh != nil
		case *plan.Join:
			return hasRefresh(x.Left) || hasRefresh(x.Right)
		}
	}
	return false
}

type refreshKey struct{}

// refreshTables reports whether ctx asks table scans for their current
// snapshot.
func refreshTables(ctx context.Context) bool { return ctx.Value(refreshKey{}) != nil }

func (o *streamStaticOp) apply(c *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	j := o.spec.j
	if o.static == nil || (o.refresh && c != o.batch) {
		ctx := c.Context
		if o.refresh {
			ctx = context.WithValue(ctx, refreshKey{}, true)
		}
		st, err := collectOne(ctx, o.staticNode())
		if err != nil {
			return nil, fmt.Errorf("the static side of %s: %w", j.Describe(), err)
		}
		prepared, err := o.spec.prepare(c, st, o.streamRight)
		if err != nil {
			st.Release()
			return nil, err
		}
		if o.static != nil {
			o.static.Release()
		}
		o.static, o.prepared, o.batch = st, prepared, c
	}
	in, err := o.spec.prepare(c, rec, !o.streamRight)
	if err != nil {
		return nil, err
	}
	l, r := in, o.prepared
	if o.streamRight {
		l, r = o.prepared, in
	}
	li, ri, err := o.spec.match(c, l, r)
	if err != nil {
		return nil, err
	}
	li, ri = o.spec.outer(li, ri, int(l.rec.NumRows()), int(r.rec.NumRows()))
	return assemble(c, j, l.rec, r.rec, li, ri)
}
