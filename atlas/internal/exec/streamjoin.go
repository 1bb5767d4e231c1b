package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/state"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// joinStateOp names the stream-stream join's state versions.
const joinStateOp = "0/join"

// streamJoin is Spark's StreamingSymmetricHashJoinExec for one execution:
// each side's rows are kept in state so that later rows of the other side
// can join them; the watermark and the join condition's time range decide
// when a kept row can no longer match (its state watermark), and then it
// is dropped, or, on the outer side of an outer join and never matched,
// emitted with nulls for the other side.
type streamJoin struct {
	node  *plan.StreamStreamJoin
	spec  *joinSpec
	hasWM [2]bool
	b     *opBatch
	// evictCol is the column (event time, or the event-time join key) whose
	// value the state watermark is compared with; evictKey is set when it
	// is the join key (Spark's state key watermark).
	evictCol [2]int
	evictKey bool
	st       *state.JoinState
	empty    []byte
	input    [2][]arrow.RecordBatch

	// this batch's figures
	dropped, updated, removed int64
	commitMs                  int64
	stateWatermark            [2]int64
	hasStateWatermark         [2]bool
}

func newStreamJoin(sj *plan.StreamStreamJoin) (*streamJoin, error) {
	j := sj.Join
	spec, err := bindJoin(j)
	if err != nil {
		return nil, err
	}
	r := &streamJoin{node: sj, spec: spec, st: state.NewJoinState(j.Left.Schema(), j.Right.Schema())}
	for i, side := range sj.Sides {
		r.hasWM[i] = side.Watermark != nil
		r.evictCol[i] = j.WatermarkColumn(i)
	}
	if ord, ok := j.KeyWatermarkOrdinal(); ok {
		r.evictKey = true
		for i, keys := range [][]expr.Expr{j.LeftKeys, j.RightKeys} {
			r.evictCol[i] = -1
			if ref, ok := keys[ord].(*expr.ColumnRef); ok && len(ref.Parts) == 1 {
				r.evictCol[i] = expr.FieldIndex([]*arrow.Schema{j.Left.Schema(), j.Right.Schema()}[i], ref.Parts[0])
			}
		}
	}
	if r.empty, err = r.st.Save(); err != nil {
		return nil, err
	}
	return r, nil
}

// evicts reports whether a batch without data would evict state.
func (r *streamJoin) evicts() bool {
	for i := range r.hasWM {
		if r.evictKey || r.stateWatermarkOK(i) {
			return true
		}
	}
	return false
}

func (r *streamJoin) stateWatermarkOK(side int) bool {
	_, ok := r.node.Join.StateValueWatermark(side, 1000000)
	return ok && r.evictCol[side] >= 0
}

// stateWatermarkFor is the event time (ms) at or below which a row of side
// can never match again, under event-time watermark wm.
func (r *streamJoin) stateWatermarkFor(side int, wm int64) (int64, bool) {
	if r.evictCol[side] < 0 {
		return 0, false
	}
	if r.evictKey {
		return wm, true
	}
	return r.node.Join.StateValueWatermark(side, wm)
}

// process joins the batch's input with the state, updates and evicts the
// state and returns the joined rows. lateMs judges late input (the
// previous batch's watermark, as Spark 3.4+), wmMs evicts state.
func (r *streamJoin) process(c *expr.Ctx, lateMs, wmMs int64) ([]arrow.RecordBatch, error) {
	j := r.node.Join
	r.dropped, r.updated, r.removed = 0, 0, 0
	var in [2]arrow.RecordBatch
	for i := range in {
		rec, err := r.sideInput(c, i, lateMs)
		if err != nil {
			releaseAll(in[:i])
			return nil, err
		}
		in[i] = rec
	}
	defer releaseAll(in[:])
	for i := range in {
		r.stateWatermark[i], r.hasStateWatermark[i] = r.stateWatermarkFor(i, wmMs)
	}
	var out []arrow.RecordBatch
	fail := func(err error) ([]arrow.RecordBatch, error) { releaseAll(out); return nil, err }
	emit := func(l, rr arrow.RecordBatch, li, ri []int32) error {
		if len(li) == 0 {
			return nil
		}
		rec, err := assemble(c, j, l, rr, li, ri)
		if err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	}
	preserve := [2]bool{j.Type == plan.LeftOuterJoin || j.Type == plan.FullOuterJoin, j.Type == plan.RightOuterJoin || j.Type == plan.FullOuterJoin}

	// Left input against the right state, then kept in the left state.
	leftState, leftMatched := r.stateRows(c, 0)
	defer leftState.Release()
	rightState, rightMatched := r.stateRows(c, 1)
	defer rightState.Release()
	lin, err := r.spec.prepare(c, in[0], true)
	if err != nil {
		return fail(err)
	}
	rst, err := r.spec.prepare(c, rightState, false)
	if err != nil {
		return fail(err)
	}
	li, ri, err := r.spec.match(c, lin, rst)
	if err != nil {
		return fail(err)
	}
	semi := j.Type == plan.LeftSemiJoin
	if semi {
		err = emit(in[0], rightState, firstMatches(li, nil), nil)
	} else {
		err = emit(in[0], rightState, li, ri)
	}
	if err != nil {
		return fail(err)
	}
	linMatched := make([]bool, in[0].NumRows())
	for k := range li {
		linMatched[li[k]], rightMatched[ri[k]] = true, true
	}
	if err := r.emitFiltered(c, emit, 0, lin, in[0], preserve[0]); err != nil {
		return fail(err)
	}
	keepL, err := r.keep(c, 0, lin, in[0], linMatched, preserve[0])
	if err != nil {
		return fail(err)
	}
	newLeft, newLeftMatched, err := appendRows(c, leftState, leftMatched, in[0], keepL, linMatched)
	if err != nil {
		return fail(err)
	}
	defer newLeft.Release()

	// Right input against the left state (with this batch's left rows).
	lst, err := r.spec.prepare(c, newLeft, true)
	if err != nil {
		return fail(err)
	}
	rin, err := r.spec.prepare(c, in[1], false)
	if err != nil {
		return fail(err)
	}
	li, ri, err = r.spec.match(c, lst, rin)
	if err != nil {
		return fail(err)
	}
	if semi {
		err = emit(newLeft, in[1], firstMatches(li, newLeftMatched), nil)
	} else {
		err = emit(newLeft, in[1], li, ri)
	}
	if err != nil {
		return fail(err)
	}
	rinMatched := make([]bool, in[1].NumRows())
	for k := range li {
		newLeftMatched[li[k]], rinMatched[ri[k]] = true, true
	}
	if err := r.emitFiltered(c, emit, 1, rin, in[1], preserve[1]); err != nil {
		return fail(err)
	}
	keepR, err := r.keep(c, 1, rin, in[1], rinMatched, preserve[1])
	if err != nil {
		return fail(err)
	}
	newRight, newRightMatched, err := appendRows(c, rightState, rightMatched, in[1], keepR, rinMatched)
	if err != nil {
		return fail(err)
	}
	defer newRight.Release()
	r.updated = int64(len(keepL) + len(keepR))

	// Evict what can no longer match; unmatched rows of an outer side are
	// emitted with nulls.
	for side, rows := range []arrow.RecordBatch{newLeft, newRight} {
		matched := [][]bool{newLeftMatched, newRightMatched}[side]
		keep, gone, err := r.evict(c, side, rows)
		if err != nil {
			return fail(err)
		}
		r.removed += int64(len(gone))
		if preserve[side] {
			var idx, none []int32
			for _, g := range gone {
				if !matched[g] {
					idx, none = append(idx, g), append(none, -1)
				}
			}
			empty := emptyRecord(c, r.st.Schema(1-side))
			if side == 0 {
				err = emit(rows, empty, idx, none)
			} else {
				err = emit(empty, rows, none, idx)
			}
			empty.Release()
			if err != nil {
				return fail(err)
			}
		}
		kept, err := expr.TakeRows(c, rows, keep)
		if err != nil {
			return fail(err)
		}
		flags := make([]bool, len(keep))
		for k, i := range keep {
			flags[k] = matched[i]
		}
		r.st.Replace(side, kept, flags)
	}
	return out, nil
}

// firstMatches is the left rows among li, once each and in order, that
// have not matched before (matched, when not nil): a left semi join writes
// a left row at its first match only, however many right rows it meets,
// now or in later batches.
func firstMatches(li []int32, matched []bool) []int32 {
	seen := make(map[int32]bool, len(li))
	var out []int32
	for _, i := range li {
		if seen[i] || (matched != nil && matched[i]) {
			continue
		}
		seen[i] = true
		out = append(out, i)
	}
	return out
}

// sideInput is the batch's input of side without late rows: rows whose
// event time is at or below the previous batch's watermark are dropped and
// counted (numRowsDroppedByWatermark), as Spark's join drops them.
func (r *streamJoin) sideInput(c *expr.Ctx, side int, lateMs int64) (arrow.RecordBatch, error) {
	schema := r.st.Schema(side)
	var rec arrow.RecordBatch
	if len(r.input[side]) == 0 {
		rec = emptyRecord(c, schema)
	} else {
		all, err := Concat(c, schema, r.input[side])
		if err != nil {
			return nil, err
		}
		rec = all
	}
	releaseAll(r.input[side])
	r.input[side] = nil
	col := r.node.Join.WatermarkColumn(side)
	if col < 0 || !r.hasWM[side] {
		return rec, nil
	}
	ts, ok := rec.Column(col).(*array.Timestamp)
	if !ok {
		return rec, nil
	}
	var keep []int32
	for i := 0; i < ts.Len(); i++ {
		if ts.IsValid(i) && int64(ts.Value(i)) <= lateMs*1000 {
			r.dropped++
			continue
		}
		keep = append(keep, int32(i))
	}
	if len(keep) == ts.Len() {
		return rec, nil
	}
	defer rec.Release()
	return expr.TakeRows(c, rec, keep)
}

// stateRows is a side's buffered rows (an empty record when none) and a
// copy of their matched flags.
func (r *streamJoin) stateRows(c *expr.Ctx, side int) (arrow.RecordBatch, []bool) {
	s := r.st.Sides[side]
	if s.Rows == nil {
		return emptyRecord(c, r.st.Schema(side)), nil
	}
	s.Rows.Retain()
	return s.Rows, append([]bool(nil), s.Matched...)
}

// emitFiltered emits, for an outer side, the input rows that fail the
// condition's conjuncts on that side alone: they can never match, so they
// are joined with nulls at once and never kept (Spark's preJoinFilter).
func (r *streamJoin) emitFiltered(c *expr.Ctx, emit func(l, rr arrow.RecordBatch, li, ri []int32) error, side int, rows *sideRows, rec arrow.RecordBatch, preserve bool) error {
	if !preserve {
		return nil
	}
	var idx, none []int32
	for i, p := range rows.pass {
		if !p {
			idx, none = append(idx, int32(i)), append(none, -1)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	empty := emptyRecord(c, r.st.Schema(1-side))
	defer empty.Release()
	if side == 0 {
		return emit(rec, empty, idx, none)
	}
	return emit(empty, rec, none, idx)
}

// keep lists the input rows of side to buffer: those passing the side's
// own conjuncts. A left row is buffered even when the state watermark
// already passed it: the batch's right rows have yet to meet it (it is
// evicted at the end of the batch, emitted with nulls first when an outer
// left row never matched). A right row the state watermark passed has
// met every left row it can and is not buffered, unless it is an
// unmatched row of an outer right side, which its eviction emits. This is
// Spark 3.4+'s rule (StreamingSymmetricHashJoinExec's
// AddingProcessedRowToStateCompletionIterator); without it an inner join
// after an aggregation, whose rows come at or below the watermark that
// closed their windows, would never match.
func (r *streamJoin) keep(c *expr.Ctx, side int, rows *sideRows, rec arrow.RecordBatch, matched []bool, preserve bool) ([]int32, error) {
	vals, err := r.evictValues(c, side, rec)
	if err != nil {
		return nil, err
	}
	var out []int32
	for i, p := range rows.pass {
		if !p {
			continue
		}
		evicting := vals != nil && vals.IsValid(i) && r.hasStateWatermark[side] && int64(vals.Value(i)) <= r.stateWatermark[side]*1000
		if side == 1 && evicting && !(preserve && !matched[i]) {
			continue
		}
		out = append(out, int32(i))
	}
	if vals != nil {
		vals.Release()
	}
	return out, nil
}

// evict splits a side's rows into those kept and those (indices) whose
// event time is at or below the side's state watermark.
func (r *streamJoin) evict(c *expr.Ctx, side int, rows arrow.RecordBatch) (keep, gone []int32, err error) {
	vals, err := r.evictValues(c, side, rows)
	if err != nil {
		return nil, nil, err
	}
	for i := 0; i < int(rows.NumRows()); i++ {
		if vals != nil && vals.IsValid(i) && r.hasStateWatermark[side] && int64(vals.Value(i)) <= r.stateWatermark[side]*1000 {
			gone = append(gone, int32(i))
		} else {
			keep = append(keep, int32(i))
		}
	}
	if vals != nil {
		vals.Release()
	}
	return keep, gone, nil
}

// evictValues are the event times the state watermark applies to (a
// window key's end), nil when the side has none.
func (r *streamJoin) evictValues(_ *expr.Ctx, side int, rec arrow.RecordBatch) (*array.Timestamp, error) {
	col := r.evictCol[side]
	if col < 0 {
		return nil, nil
	}
	a := rec.Column(col)
	if st, ok := a.(*array.Struct); ok && st.NumField() >= 2 {
		a = st.Field(1) // window.end
	}
	ts, ok := a.(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("the event-time column of the %s side is %s, not a timestamp", [2]string{"left", "right"}[side], a.DataType())
	}
	ts.Retain()
	return ts, nil
}

// appendRows is state plus the input rows idx, with their matched flags.
func appendRows(c *expr.Ctx, st arrow.RecordBatch, stMatched []bool, in arrow.RecordBatch, idx []int32, inMatched []bool) (arrow.RecordBatch, []bool, error) {
	flags := append([]bool(nil), stMatched...)
	for _, i := range idx {
		flags = append(flags, inMatched[i])
	}
	if len(idx) == 0 {
		st.Retain()
		return st, flags, nil
	}
	add, err := expr.TakeRows(c, in, idx)
	if err != nil {
		return nil, nil, err
	}
	defer add.Release()
	out, err := Concat(c, st.Schema(), []arrow.RecordBatch{st, add})
	if err != nil {
		return nil, nil, err
	}
	return out, flags, nil
}

// Metrics is the join's state operator report.
func (r *streamJoin) Metrics() *progress.StateOperatorProgress {
	return &progress.StateOperatorProgress{
		OperatorName:              "symmetricHashJoin",
		NumRowsTotal:              r.st.NumRows(),
		NumRowsUpdated:            r.updated,
		NumRowsRemoved:            r.removed,
		CommitTimeMs:              r.commitMs,
		MemoryUsedBytes:           r.st.MemoryBytes(),
		NumRowsDroppedByWatermark: r.dropped,
		NumShufflePartitions:      1,
		NumStateStoreInstances:    2,
	}
}

// joinKind names the stream-stream join's state directory.
const joinKind = "join"

func (r *streamJoin) Kind() string { return joinKind }

func (r *streamJoin) Begin(b *opBatch) {
	r.b = b
	r.dropped, r.updated, r.removed, r.commitMs = 0, 0, 0, 0
}

// Process keeps a side's rows until the batch's input is exhausted: the
// join runs in Advance, over all of it.
func (r *streamJoin) Process(_ *expr.Ctx, child int, rec arrow.RecordBatch, _ emitFunc) error {
	rec.Retain()
	r.input[child] = append(r.input[child], rec)
	return nil
}

// Advance joins the batch's rows with the state, evicts what the state
// watermarks passed and emits the joined rows.
func (r *streamJoin) Advance(c *expr.Ctx, emit emitFunc) error {
	out, err := r.process(c, r.b.lateMs, r.b.evictMs)
	if err != nil {
		return err
	}
	defer releaseAll(out)
	for _, rec := range out {
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// OutputWatermark is the smallest of the sides' state watermarks (the
// event time below which no joined row can come any more), or the input
// watermark when neither side has one, as Spark's
// StreamingSymmetricHashJoinExec.produceOutputWatermark.
func (r *streamJoin) OutputWatermark(in int64) int64 {
	out, found := int64(0), false
	for side := range r.hasWM {
		if w, ok := r.stateWatermarkFor(side, in); ok && (!found || w < out) {
			out, found = w, true
		}
	}
	if !found {
		return in
	}
	return out
}

func (r *streamJoin) evictsWithoutData() bool { return r.evicts() }

func (r *streamJoin) Snapshot(ctx context.Context, s opState) (err error) {
	r.commitMs, err = s.save(ctx, r.st.Save)
	return err
}

// Restore loads the state as it was after batch s.version (-1: empty).
func (r *streamJoin) Restore(ctx context.Context, s opState) error {
	return s.restoreWhole(ctx, r.empty, "this join", r.st.Load)
}
