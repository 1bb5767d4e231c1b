package exec

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/state"
)

// collectWindow runs a Window node: its input is collected, then for each
// window specification in turn the rows are sorted by the partitioning
// and ordering keys and every function of that specification is computed
// partition by partition. The rows come out in the last specification's
// order.
func collectWindow(ctx context.Context, w *plan.Window) ([]arrow.RecordBatch, error) {
	c := expr.NewCtx(ctx)
	inSchema, recs, err := Collect(ctx, w.In)
	if err != nil {
		return nil, err
	}
	cur, err := Concat(c, inSchema, recs)
	releaseAll(recs)
	if err != nil {
		return nil, err
	}
	defer func() { cur.Release() }()
	var order []string
	specs := map[string][]int{}
	for i, f := range w.Funcs {
		k := f.SpecKey()
		if _, ok := specs[k]; !ok {
			order = append(order, k)
		}
		specs[k] = append(specs[k], i)
	}
	col := make([]int, len(w.Funcs)) // column of cur holding each function
	for _, k := range order {
		idx := specs[k]
		next, err := windowSpec(c, cur, w.Funcs, idx, col)
		if err != nil {
			return nil, err
		}
		cur.Release()
		cur = next
	}
	cols := make([]arrow.Array, 0, w.Out.NumFields())
	for i := 0; i < inSchema.NumFields(); i++ {
		cols = append(cols, cur.Column(i))
	}
	for _, j := range col {
		cols = append(cols, cur.Column(j))
	}
	return []arrow.RecordBatch{array.NewRecordBatch(w.Out, cols, cur.NumRows())}, nil
}

// windowSpec sorts cur by the specification of w.Funcs[idx[0]] and
// returns the sorted rows with one more column per function of idx,
// recording the new columns' positions in col.
func windowSpec(c *expr.Ctx, cur arrow.RecordBatch, funcs []*plan.WindowFunc, idx []int, col []int) (arrow.RecordBatch, error) {
	spec := funcs[idx[0]]
	schema := cur.Schema()
	var keys []plan.SortKey
	for _, p := range spec.PartitionBy {
		keys = append(keys, plan.SortKey{Expr: p})
	}
	keys = append(keys, spec.OrderBy...)
	sorted := cur
	sorted.Retain()
	if len(keys) > 0 && cur.NumRows() > 1 {
		bound := make([]expr.Bound, len(keys))
		for i, k := range keys {
			b, err := k.Expr.Bind(schema)
			if err != nil {
				sorted.Release()
				return nil, err
			}
			bound[i] = b
		}
		s, err := sortRecords(c, schema, []arrow.RecordBatch{cur}, keys, bound)
		sorted.Release()
		if err != nil {
			return nil, err
		}
		sorted = s
	}
	defer sorted.Release()
	n := int(sorted.NumRows())
	partKeys, err := evalKeys(c, sorted, spec.PartitionBy, n)
	if err != nil {
		return nil, err
	}
	orderExprs := make([]expr.Expr, len(spec.OrderBy))
	for i, o := range spec.OrderBy {
		orderExprs[i] = o.Expr
	}
	peerKeys, err := evalKeys(c, sorted, append(append([]expr.Expr(nil), spec.PartitionBy...), orderExprs...), n)
	if err != nil {
		return nil, err
	}
	g := &windowGroups{n: n, part: make([]int, n), partEnd: make([]int, n), peer: make([]int, n), peerEnd: make([]int, n)}
	for i := 0; i < n; i++ {
		if i > 0 && partKeys[i] == partKeys[i-1] {
			g.part[i] = g.part[i-1]
		} else {
			g.part[i] = i
		}
		if i > 0 && peerKeys[i] == peerKeys[i-1] {
			g.peer[i] = g.peer[i-1]
		} else {
			g.peer[i] = i
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i < n-1 && g.part[i+1] == g.part[i] {
			g.partEnd[i] = g.partEnd[i+1]
		} else {
			g.partEnd[i] = i + 1
		}
		if i < n-1 && g.peer[i+1] == g.peer[i] {
			g.peerEnd[i] = g.peerEnd[i+1]
		} else {
			g.peerEnd[i] = i + 1
		}
	}
	cols := append([]arrow.Array(nil), sorted.Columns()...)
	fields := append([]arrow.Field(nil), schema.Fields()...)
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for _, i := range idx {
		f := funcs[i]
		a, err := windowFunc(c, sorted, f, g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		made = append(made, a)
		col[i] = len(cols)
		cols = append(cols, a)
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("__w%d", i), Type: a.DataType(), Nullable: true})
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// windowGroups are the partitions and peer groups of sorted rows: row i's
// partition is [part[i], partEnd[i]), its peers (same partition, equal
// ordering values) [peer[i], peerEnd[i]).
type windowGroups struct {
	n                            int
	part, partEnd, peer, peerEnd []int
}

func evalKeys(c *expr.Ctx, rec arrow.RecordBatch, es []expr.Expr, n int) ([]string, error) {
	arrs := make([]arrow.Array, len(es))
	for i, e := range es {
		b, err := e.Bind(rec.Schema())
		if err != nil {
			return nil, err
		}
		a, err := b.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		arrs[i] = a
	}
	return state.RowKeys(arrs, n)
}

func evalArg(c *expr.Ctx, rec arrow.RecordBatch, e expr.Expr) (arrow.Array, error) {
	b, err := e.Bind(rec.Schema())
	if err != nil {
		return nil, err
	}
	return b.Eval(c, rec)
}

// windowFunc computes one function over the sorted rows.
func windowFunc(c *expr.Ctx, rec arrow.RecordBatch, f *plan.WindowFunc, g *windowGroups) (arrow.Array, error) {
	n := g.n
	switch f.Fn {
	case "row_number", "rank", "dense_rank", "ntile":
		if f.Fn == "ntile" && f.N <= 0 {
			return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE] the buckets of ntile must be greater than 0, got %d", f.N)
		}
		b := array.NewInt32Builder(c.Mem)
		defer b.Release()
		dense := 0
		for i := 0; i < n; i++ {
			ps := g.part[i]
			if i == ps {
				dense = 0
			}
			if i == g.peer[i] {
				dense++
			}
			switch f.Fn {
			case "row_number":
				b.Append(int32(i - ps + 1))
			case "rank":
				b.Append(int32(g.peer[i] - ps + 1))
			case "dense_rank":
				b.Append(int32(dense))
			case "ntile":
				b.Append(int32(ntile(int64(i-ps), int64(g.partEnd[i]-ps), f.N)))
			}
		}
		return b.NewArray(), nil
	case "percent_rank", "cume_dist":
		b := array.NewFloat64Builder(c.Mem)
		defer b.Release()
		for i := 0; i < n; i++ {
			ps, size := g.part[i], g.partEnd[i]-g.part[i]
			if f.Fn == "cume_dist" {
				b.Append(float64(g.peerEnd[i]-ps) / float64(size))
			} else if size == 1 {
				b.Append(0)
			} else {
				b.Append(float64(g.peer[i]-ps) / float64(size-1))
			}
		}
		return b.NewArray(), nil
	case "lag", "lead":
		return offsetFunc(c, rec, f, g)
	}
	lo, hi, err := frames(c, rec, f, g)
	if err != nil {
		return nil, err
	}
	switch f.Fn {
	case "first_value", "last_value", "nth_value":
		arg, err := evalArg(c, rec, f.Arg)
		if err != nil {
			return nil, err
		}
		defer arg.Release()
		ib := array.NewInt64Builder(c.Mem)
		defer ib.Release()
		for i := 0; i < n; i++ {
			if j, ok := pickInFrame(arg, f, lo[i], hi[i]); ok {
				ib.Append(int64(j))
			} else {
				ib.AppendNull()
			}
		}
		ix := ib.NewArray()
		defer ix.Release()
		return compute.TakeArray(c.Context, arg, ix)
	case "agg":
		ba, err := f.Agg.Bind(rec.Schema())
		if err != nil {
			return nil, err
		}
		var arg arrow.Array
		if ba.Arg != nil {
			if arg, err = ba.Arg.Eval(c, rec); err != nil {
				return nil, err
			}
			defer arg.Release()
		}
		return state.FrameAggregate(c.Mem, ba, arg, lo, hi)
	}
	return nil, fmt.Errorf("unknown window function %q", f.Fn)
}

// ntile is Spark's NTile: row r (0-based) of a partition of n rows in b
// buckets; the first n%b buckets hold one row more.
func ntile(r, n, b int64) int64 {
	size, rem := n/b, n%b
	if big := rem * (size + 1); r < big {
		return r/(size+1) + 1
	} else {
		return rem + (r-big)/size + 1
	}
}

// pickInFrame is the row first_value, last_value or nth_value takes from
// the frame [lo, hi).
func pickInFrame(arg arrow.Array, f *plan.WindowFunc, lo, hi int) (int, bool) {
	switch f.Fn {
	case "first_value":
		for j := lo; j < hi; j++ {
			if !f.IgnoreNulls || arg.IsValid(j) {
				return j, true
			}
		}
	case "last_value":
		for j := hi - 1; j >= lo; j-- {
			if !f.IgnoreNulls || arg.IsValid(j) {
				return j, true
			}
		}
	case "nth_value":
		k := f.N
		for j := lo; j < hi; j++ {
			if !f.IgnoreNulls || arg.IsValid(j) {
				if k--; k == 0 {
					return j, true
				}
			}
		}
	}
	return 0, false
}

// offsetFunc computes lag and lead: the value N rows before (lag) or
// after (lead) in the partition (N non-null values with IGNORE NULLS), or
// the default when that row is outside the partition.
func offsetFunc(c *expr.Ctx, rec arrow.RecordBatch, f *plan.WindowFunc, g *windowGroups) (arrow.Array, error) {
	n := g.n
	arg, err := evalArg(c, rec, f.Arg)
	if err != nil {
		return nil, err
	}
	defer arg.Release()
	values := arg
	if f.Default != nil {
		def, err := evalArg(c, rec, f.Default)
		if err != nil {
			return nil, err
		}
		defer def.Release()
		if !arrow.TypeEqual(def.DataType(), arg.DataType()) {
			cast, err := expr.CastArray(c, def, arg.DataType())
			if err != nil {
				return nil, fmt.Errorf("the default value: %w", err)
			}
			defer cast.Release()
			def = cast
		}
		if values, err = array.Concatenate([]arrow.Array{arg, def}, c.Mem); err != nil {
			return nil, err
		}
		defer values.Release()
	}
	step := int64(-1)
	off := f.N
	if f.Fn == "lead" {
		step = 1
	}
	if off < 0 {
		step, off = -step, -off
	}
	ib := array.NewInt64Builder(c.Mem)
	defer ib.Release()
	for i := 0; i < n; i++ {
		ps, pe := g.part[i], g.partEnd[i]
		j, found := int64(i), true
		if !f.IgnoreNulls {
			j += step * off
			found = j >= int64(ps) && j < int64(pe)
		} else {
			for k := off; k > 0; {
				j += step
				if j < int64(ps) || j >= int64(pe) {
					found = false
					break
				}
				if arg.IsValid(int(j)) {
					k--
				}
			}
		}
		switch {
		case found:
			ib.Append(j)
		case f.Default != nil:
			ib.Append(int64(n + i))
		default:
			ib.AppendNull()
		}
	}
	ix := ib.NewArray()
	defer ix.Release()
	return compute.TakeArray(c.Context, values, ix)
}

// frames computes every row's frame [lo, hi) of sorted rows.
func frames(c *expr.Ctx, rec arrow.RecordBatch, f *plan.WindowFunc, g *windowGroups) (lo, hi []int, err error) {
	n := g.n
	lo, hi = make([]int, n), make([]int, n)
	fr := f.Frame
	var vals []float64
	var valid []bool
	if !fr.Rows && (isOffset(fr.Start) || isOffset(fr.End)) {
		if len(f.OrderBy) != 1 {
			return nil, nil, fmt.Errorf("a RANGE frame with an offset needs exactly one ORDER BY expression")
		}
		if vals, valid, err = rangeValues(c, rec, f.OrderBy[0]); err != nil {
			return nil, nil, err
		}
	}
	for i := 0; i < n; i++ {
		ps, pe := g.part[i], g.partEnd[i]
		var l, h int
		if fr.Rows {
			l, h = rowsBound(fr.Start, i, ps, pe, true), rowsBound(fr.End, i, ps, pe, false)
		} else {
			l, h = rangeBound(fr.Start, i, g, vals, valid, true), rangeBound(fr.End, i, g, vals, valid, false)
		}
		l, h = max(l, ps), min(h, pe)
		if h < l {
			h = l
		}
		lo[i], hi[i] = l, h
	}
	return lo, hi, nil
}

func isOffset(b plan.FrameBound) bool {
	return b.Kind == plan.OffsetPreceding || b.Kind == plan.OffsetFollowing
}

// rowsBound is a ROWS boundary of row i: the first row of the frame
// (start) or one past its last row (end).
func rowsBound(b plan.FrameBound, i, ps, pe int, start bool) int {
	end := 0
	if !start {
		end = 1
	}
	switch b.Kind {
	case plan.UnboundedPreceding:
		if start {
			return ps
		}
		return ps // an empty frame
	case plan.UnboundedFollowing:
		return pe
	case plan.CurrentRow:
		return i + end
	case plan.OffsetPreceding:
		return clampAdd(i, -b.Offset) + end
	default:
		return clampAdd(i, b.Offset) + end
	}
}

func clampAdd(i int, d float64) int {
	v := float64(i) + d
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	if v < math.MinInt32 {
		return math.MinInt32
	}
	return int(v)
}

// rangeValues reads the ordering column of a RANGE frame with offsets as
// numbers, negated for a descending order so that they ascend.
func rangeValues(c *expr.Ctx, rec arrow.RecordBatch, k plan.SortKey) ([]float64, []bool, error) {
	a, err := evalArg(c, rec, k.Expr)
	if err != nil {
		return nil, nil, err
	}
	defer a.Release()
	f, err := expr.CastArray(c, a, arrow.PrimitiveTypes.Float64)
	if err != nil {
		return nil, nil, fmt.Errorf("a RANGE frame with an offset needs a numeric ORDER BY expression: %w", err)
	}
	defer f.Release()
	fa, ok := f.(*array.Float64)
	if !ok {
		return nil, nil, fmt.Errorf("a RANGE frame with an offset needs a numeric ORDER BY expression")
	}
	vals, valid := make([]float64, a.Len()), make([]bool, a.Len())
	for i := range vals {
		valid[i] = fa.IsValid(i)
		vals[i] = fa.Value(i)
		if k.Descending {
			vals[i] = -vals[i]
		}
	}
	return vals, valid, nil
}

// rangeBound is a RANGE boundary of row i. CURRENT ROW is the edge of the
// row's peer group; an offset boundary of a row with a null ordering
// value is its peer group (the nulls), otherwise found among the
// partition's non-null values, which ascend.
func rangeBound(b plan.FrameBound, i int, g *windowGroups, vals []float64, valid []bool, start bool) int {
	ps, pe := g.part[i], g.partEnd[i]
	switch b.Kind {
	case plan.UnboundedPreceding:
		return ps
	case plan.UnboundedFollowing:
		return pe
	case plan.CurrentRow:
		if start {
			return g.peer[i]
		}
		return g.peerEnd[i]
	}
	if !valid[i] {
		if start {
			return g.peer[i]
		}
		return g.peerEnd[i]
	}
	// the non-null rows of the partition
	ns, ne := ps, pe
	for ns < ne && !valid[ns] {
		ns++
	}
	for ne > ns && !valid[ne-1] {
		ne--
	}
	target := vals[i] + b.Offset
	if b.Kind == plan.OffsetPreceding {
		target = vals[i] - b.Offset
	}
	if start { // first row with value >= target
		return ns + sort.Search(ne-ns, func(k int) bool { return vals[ns+k] >= target })
	}
	// one past the last row with value <= target
	return ns + sort.Search(ne-ns, func(k int) bool { return vals[ns+k] > target })
}
