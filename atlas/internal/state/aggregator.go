// Package state holds the keyed state of streaming aggregations: the
// partial aggregates of every open group, updated column-at-a-time from
// Arrow batches, evicted by the watermark, and saved as one immutable
// version per micro-batch so a restarted query resumes exactly where the
// last committed batch left it (Spark's state store, version = batch id).
package state

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// NoEviction marks a group that the watermark never evicts.
const NoEviction = math.MaxInt64

// Aggregator is a hash aggregation whose groups live across micro-batches.
type Aggregator struct {
	keys     []expr.Bound
	keyTypes []arrow.DataType
	window   *expr.WindowBound
	winPos   int // index of the window among keys, or -1
	evictPos int // key whose value (window end, or the timestamp itself) the watermark evicts on; -1 none
	aggs     []*expr.BoundAgg
	accs     []accumulator
	schema   *arrow.Schema

	groups  map[string]int32
	keyStr  []string
	evictAt []int64
	updated []int64
	keyMem  int64

	collectLate bool
	late        []int32 // rows dropped as late by the last Update
	nullTime    []int32 // rows without an event time in the last Update
	ahead       []int32 // rows beyond the event-time limit in the last Update
	// timeLimit (µs) keeps rows whose event time is above it out of the
	// aggregation (eventTimeMaxAheadOfProcessing); NoEviction = no limit.
	timeLimit int64

	// scratch, reused across batches
	buf      []byte
	recent   groupCache // the groups of recently seen keys
	rows     []int32
	gids     []int32
	starts   []int64
	encoders []keyEncoder
}

// Config describes an aggregation.
type Config struct {
	// Keys are the grouping expressions, bound to the input schema; at most
	// one may be a time window.
	Keys []expr.Bound
	// KeyNames are the output names of Keys.
	KeyNames []string
	// Aggs are the aggregate functions.
	Aggs []*expr.BoundAgg
	// EvictKey is the index in Keys that the watermark applies to (the
	// window, or the event-time column itself), or -1 when state is never
	// evicted.
	EvictKey int
}

// NewAggregator prepares an empty aggregation.
func NewAggregator(cfg Config) (*Aggregator, error) {
	a := &Aggregator{keys: cfg.Keys, winPos: -1, evictPos: cfg.EvictKey, aggs: cfg.Aggs, groups: map[string]int32{}, timeLimit: NoEviction}
	var fields []arrow.Field
	for i, k := range cfg.Keys {
		if w, ok := expr.AsWindow(k); ok {
			if a.window != nil {
				return nil, fmt.Errorf("only one time window may be a grouping key")
			}
			a.window, a.winPos = w, i
		}
		a.keyTypes = append(a.keyTypes, k.Type())
		fields = append(fields, arrow.Field{Name: cfg.KeyNames[i], Type: k.Type(), Nullable: k.Nullable()})
	}
	if a.evictPos >= 0 && a.evictPos != a.winPos && a.keyTypes[a.evictPos].ID() != arrow.TIMESTAMP && !isWindowStruct(a.keyTypes[a.evictPos]) {
		return nil, fmt.Errorf("the watermark key must be a window or a timestamp")
	}
	for _, ag := range cfg.Aggs {
		acc, err := newAccumulator(ag)
		if err != nil {
			return nil, err
		}
		a.accs = append(a.accs, acc)
		fields = append(fields, arrow.Field{Name: ag.Name, Type: ag.Type, Nullable: ag.Nullable()})
	}
	a.schema = arrow.NewSchema(fields, nil)
	return a, nil
}

// Schema is the output schema: the keys, then the aggregates.
func (a *Aggregator) Schema() *arrow.Schema { return a.schema }

// NumGroups is the number of groups held.
func (a *Aggregator) NumGroups() int { return len(a.keyStr) }

// MemoryBytes estimates the memory the state holds.
func (a *Aggregator) MemoryBytes() int64 {
	per := int64(16+8+8+48) + int64(len(a.accs))*17
	return a.keyMem + per*int64(len(a.keyStr))
}

// UpdateStats reports what one Update did.
type UpdateStats struct {
	// Dropped counts (row, window) pairs older than the watermark: their
	// window was already closed and emitted, so they are not aggregated.
	Dropped int64
	// NullTime counts rows without an event time: they join no window
	// (Spark's window() filters them out, see TimeWindowing) and, with an
	// event-time key, no group.
	NullTime int64
	// Ahead counts rows whose event time is above the limit set with
	// SetEventTimeLimit: they are kept out of every group.
	Ahead int64
	// Updated counts group updates.
	Updated int64
	// LateRows are the indices (ascending) of the rows of rec that the
	// watermark kept out of at least one window, when CollectLateRows is
	// on. Valid until the next Update.
	LateRows []int32
	// NullTimeRows and AheadRows are the indices (ascending) of the rows
	// counted in NullTime and Ahead, when CollectLateRows is on. Valid
	// until the next Update.
	NullTimeRows, AheadRows []int32
}

// SetEventTimeLimit keeps rows whose event time (µs) is above limit out of
// the aggregation from the next Update on (counted in UpdateStats.Ahead);
// NoEviction removes the limit. The executor sets it per batch from the
// batch's processing time and eventTimeMaxAheadOfProcessing.
func (a *Aggregator) SetEventTimeLimit(limit int64) { a.timeLimit = limit }

// skip counts row i in *n and, when rows are collected, records it in *rows.
func (a *Aggregator) skip(n *int64, rows *[]int32, i int) {
	*n++
	if a.collectLate {
		*rows = append(*rows, int32(i))
	}
}

// CollectLateRows makes Update report which rows it dropped as late, for
// a query that keeps them (WriteStream's lateRowsTable option).
func (a *Aggregator) CollectLateRows() { a.collectLate = true }

// dropLate counts row i's (row, window) pair as dropped and, when late
// rows are collected, records the row once.
func (a *Aggregator) dropLate(st *UpdateStats, i int) {
	st.Dropped++
	if a.collectLate && (len(a.late) == 0 || a.late[len(a.late)-1] != int32(i)) {
		a.late = append(a.late, int32(i))
	}
}

// Update folds every row of rec into its groups. When dropLate is set, a
// row whose window (or event time) is at or before watermark (µs) is
// dropped and counted instead, as Spark does in append and update modes.
// The caller passes the watermark for late events, which since Spark 3.4
// (SPARK-40925) is the previous batch's watermark, not the one
// EvictExpired closes windows with. Rows without an event time and rows
// above the SetEventTimeLimit limit join no group (UpdateStats.NullTime,
// Ahead). Groups touched are marked with batchID.
func (a *Aggregator) Update(c *expr.Ctx, rec arrow.RecordBatch, batchID, watermark int64, dropLate bool) (st UpdateStats, err error) {
	n := int(rec.NumRows())
	if n == 0 {
		return st, nil
	}
	a.late, a.nullTime, a.ahead = a.late[:0], a.nullTime[:0], a.ahead[:0]
	defer func() { st.LateRows, st.NullTimeRows, st.AheadRows = a.late, a.nullTime, a.ahead }()
	cols := make([]arrow.Array, len(a.keys))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	a.encoders = a.encoders[:0]
	var times *array.Timestamp
	for i, k := range a.keys {
		if i == a.winPos {
			col, err := a.window.TimeCol.Eval(c, rec)
			if err != nil {
				return st, err
			}
			cols[i] = col
			times = col.(*array.Timestamp)
			a.encoders = append(a.encoders, nil)
			continue
		}
		col, err := k.Eval(c, rec)
		if err != nil {
			return st, err
		}
		cols[i] = col
		enc, err := newKeyEncoder(col)
		if err != nil {
			return st, err
		}
		a.encoders = append(a.encoders, enc)
	}
	var evictCol *array.Timestamp
	if a.evictPos >= 0 && a.evictPos != a.winPos {
		if ts, ok := cols[a.evictPos].(*array.Timestamp); ok {
			evictCol = ts
		} else {
			// A window selected as a column: evicted at its end, as a
			// window key is; a null window has a null end.
			end, err := windowEnds(c, cols[a.evictPos])
			if err != nil {
				return st, err
			}
			defer end.Release()
			evictCol = end
		}
	}
	a.rows, a.gids = a.rows[:0], a.gids[:0]
	for i := 0; i < n; i++ {
		if a.window == nil {
			evict := int64(NoEviction)
			if evictCol != nil {
				if evictCol.IsNull(i) {
					a.skip(&st.NullTime, &a.nullTime, i)
					continue
				}
				evict = int64(evictCol.Value(i))
				if evict > a.timeLimit {
					a.skip(&st.Ahead, &a.ahead, i)
					continue
				}
				if dropLate && evict <= watermark {
					a.dropLate(&st, i)
					continue
				}
			}
			a.buf = a.buf[:0]
			for _, enc := range a.encoders {
				a.buf = enc(a.buf, i)
			}
			a.add(i, evict, batchID)
			continue
		}
		if times.IsNull(i) {
			a.skip(&st.NullTime, &a.nullTime, i)
			continue
		}
		ts := int64(times.Value(i))
		if ts > a.timeLimit {
			a.skip(&st.Ahead, &a.ahead, i)
			continue
		}
		a.starts = a.window.Starts(ts, a.starts[:0])
		for _, start := range a.starts {
			end := start + a.window.SizeMicros()
			if dropLate && a.evictPos == a.winPos && end <= watermark {
				a.dropLate(&st, i)
				continue
			}
			a.buf = a.buf[:0]
			for k, enc := range a.encoders {
				if k == a.winPos {
					a.buf = append(a.buf, 1)
					a.buf = binary.LittleEndian.AppendUint64(a.buf, uint64(start))
					continue
				}
				a.buf = enc(a.buf, i)
			}
			evict := int64(NoEviction)
			if a.evictPos == a.winPos {
				evict = end
			} else if evictCol != nil && evictCol.IsValid(i) {
				evict = int64(evictCol.Value(i))
			}
			a.add(i, evict, batchID)
		}
	}
	for j, acc := range a.accs {
		acc.grow(len(a.keyStr))
		var arg arrow.Array
		if a.aggs[j].Arg != nil {
			v, err := a.aggs[j].Arg.Eval(c, rec)
			if err != nil {
				return st, err
			}
			arg = v
		}
		err := acc.update(arg, a.rows, a.gids)
		if arg != nil {
			arg.Release()
		}
		if err != nil {
			return st, fmt.Errorf("%s: %w", a.aggs[j].Name, err)
		}
	}
	st.Updated = int64(len(a.gids))
	return st, nil
}

// add records that row i belongs to the group whose key is in a.buf.
func (a *Aggregator) add(i int, evict, batchID int64) {
	g, ok := a.recent.find(a.buf, a.keyStr)
	if !ok {
		g, ok = a.groups[string(a.buf)]
		if ok {
			a.recent.put(a.buf, g)
		}
	}
	if !ok {
		g = int32(len(a.keyStr))
		k := string(a.buf)
		a.groups[k] = g
		a.keyStr = append(a.keyStr, k)
		a.evictAt = append(a.evictAt, evict)
		a.updated = append(a.updated, batchID)
		a.keyMem += int64(len(k))
		a.recent.put(a.buf, g)
	}
	a.updated[g] = batchID
	a.rows = append(a.rows, int32(i))
	a.gids = append(a.gids, g)
}

// Emit builds the rows of the groups selected by keep (nil = all) as one record.
func (a *Aggregator) Emit(mem memory.Allocator, keep func(g int32) bool) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, a.schema)
	defer b.Release()
	for g := int32(0); g < int32(len(a.keyStr)); g++ {
		if keep != nil && !keep(g) {
			continue
		}
		if err := a.appendGroup(b, g); err != nil {
			return nil, err
		}
	}
	return b.NewRecordBatch(), nil
}

// EmitUpdated returns the groups changed by batchID (update mode).
func (a *Aggregator) EmitUpdated(mem memory.Allocator, batchID int64) (arrow.RecordBatch, error) {
	return a.Emit(mem, func(g int32) bool { return a.updated[g] == batchID })
}

// Expired reports whether group g is at or before the watermark.
func (a *Aggregator) expired(g int32, watermark int64) bool {
	return a.evictAt[g] != NoEviction && a.evictAt[g] <= watermark
}

// EvictExpired removes the groups whose window ended at or before watermark
// (µs). With emit set it returns their rows (append mode emits each closed
// window exactly once, here); otherwise it returns nil (update mode).
func (a *Aggregator) EvictExpired(mem memory.Allocator, watermark int64, emit bool) (arrow.RecordBatch, int, error) {
	if a.evictPos < 0 {
		return nil, 0, nil
	}
	var out arrow.RecordBatch
	if emit {
		rec, err := a.Emit(mem, func(g int32) bool { return a.expired(g, watermark) })
		if err != nil {
			return nil, 0, err
		}
		out = rec
	}
	removed := a.compact(func(g int32) bool { return !a.expired(g, watermark) })
	return out, removed, nil
}

// compact keeps the groups for which keep is true.
func (a *Aggregator) compact(keep func(g int32) bool) int {
	n := int32(len(a.keyStr))
	w := int32(0)
	a.recent.reset() // groups move
	for g := int32(0); g < n; g++ {
		if !keep(g) {
			delete(a.groups, a.keyStr[g])
			a.keyMem -= int64(len(a.keyStr[g]))
			continue
		}
		if w != g {
			a.keyStr[w], a.evictAt[w], a.updated[w] = a.keyStr[g], a.evictAt[g], a.updated[g]
			a.groups[a.keyStr[w]] = w
			for _, acc := range a.accs {
				acc.move(w, g)
			}
		}
		w++
	}
	for i := w; i < n; i++ {
		a.keyStr[i] = ""
	}
	a.keyStr, a.evictAt, a.updated = a.keyStr[:w], a.evictAt[:w], a.updated[:w]
	for _, acc := range a.accs {
		acc.truncate(int(w))
	}
	return int(n - w)
}

func (a *Aggregator) appendGroup(b *array.RecordBuilder, g int32) error {
	key := a.keyStr[g]
	pos := 0
	for k := range a.keys {
		fb := b.Field(k)
		if k == a.winPos {
			start := int64(binary.LittleEndian.Uint64([]byte(key[pos+1 : pos+9])))
			pos += 9
			sb := fb.(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.TimestampBuilder).Append(arrow.Timestamp(start))
			sb.FieldBuilder(1).(*array.TimestampBuilder).Append(arrow.Timestamp(start + a.window.SizeMicros()))
			continue
		}
		var err error
		if pos, err = appendKey(fb, key, pos); err != nil {
			return err
		}
	}
	for j, acc := range a.accs {
		acc.appendResult(b.Field(len(a.keys)+j), g)
	}
	return nil
}

// NumUpdated counts the groups changed by batchID.
func (a *Aggregator) NumUpdated(batchID int64) int64 {
	var n int64
	for _, u := range a.updated {
		if u == batchID {
			n++
		}
	}
	return n
}

// isWindowStruct reports whether t is a window struct: a struct with a
// timestamp field "end".
func isWindowStruct(t arrow.DataType) bool {
	st, ok := t.(*arrow.StructType)
	if !ok {
		return false
	}
	i, ok := st.FieldIdx("end")
	return ok && st.Field(i).Type.ID() == arrow.TIMESTAMP
}

// windowEnds returns the end of every window of a window struct column,
// null where the window is null.
func windowEnds(c *expr.Ctx, col arrow.Array) (*array.Timestamp, error) {
	st, ok := col.(*array.Struct)
	if !ok || !isWindowStruct(col.DataType()) {
		return nil, fmt.Errorf("the watermark key must be a window or a timestamp, got %s", col.DataType())
	}
	i, _ := col.DataType().(*arrow.StructType).FieldIdx("end")
	end := st.Field(i).(*array.Timestamp)
	b := array.NewTimestampBuilder(c.Mem, end.DataType().(*arrow.TimestampType))
	defer b.Release()
	b.Reserve(st.Len())
	for r := 0; r < st.Len(); r++ {
		if st.IsNull(r) || end.IsNull(r) {
			b.AppendNull()
			continue
		}
		b.Append(end.Value(r))
	}
	return b.NewTimestampArray(), nil
}

// EmitEmptyGlobal is the one row a global aggregate (no grouping keys)
// gives over no input rows, as Spark's: every aggregate's value for a group
// that saw no row (count 0, approx_count_distinct 0, collect_list [],
// sum, avg, min, max and first null). Spark returns that row where a
// grouped aggregate returns none: SELECT count(*) FROM t WHERE false is 0.
func (a *Aggregator) EmitEmptyGlobal(mem memory.Allocator) (arrow.RecordBatch, error) {
	if len(a.keys) > 0 {
		return nil, fmt.Errorf("EmitEmptyGlobal: the aggregate has grouping keys")
	}
	b := array.NewRecordBuilder(mem, a.schema)
	defer b.Release()
	for j, ag := range a.aggs {
		acc, err := newAccumulator(ag)
		if err != nil {
			return nil, err
		}
		acc.grow(1)
		acc.appendResult(b.Field(j), 0)
	}
	return b.NewRecordBatch(), nil
}
