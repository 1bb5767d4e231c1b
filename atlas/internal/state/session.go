package state

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// GroupState is the state of a streaming aggregation: Aggregator for
// fixed groups (keys, time windows), SessionAggregator for session
// windows, whose groups merge as rows arrive.
type GroupState interface {
	Schema() *arrow.Schema
	NumGroups() int
	MemoryBytes() int64
	SetEventTimeLimit(limit int64)
	CollectLateRows()
	Update(c *expr.Ctx, rec arrow.RecordBatch, batchID, watermark int64, dropLate bool) (UpdateStats, error)
	Emit(mem memory.Allocator, keep func(g int32) bool) (arrow.RecordBatch, error)
	EmitUpdated(mem memory.Allocator, batchID int64) (arrow.RecordBatch, error)
	EvictExpired(mem memory.Allocator, watermark int64, emit bool) (arrow.RecordBatch, int, error)
	NumUpdated(batchID int64) int64
	Save() ([]byte, error)
	Load(data []byte) error
}

// NewGroupState returns a SessionAggregator when a key is a session
// window, otherwise an Aggregator.
func NewGroupState(cfg Config) (GroupState, error) {
	pos, win := -1, false
	for i, k := range cfg.Keys {
		if _, ok := expr.AsSession(k); ok {
			if pos >= 0 {
				return nil, fmt.Errorf("only one session_window may be a grouping key")
			}
			pos = i
		}
		if _, ok := expr.AsWindow(k); ok {
			win = true
		}
	}
	if pos < 0 {
		a, err := NewAggregator(cfg)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	if win {
		return nil, fmt.Errorf("grouping by both window and session_window is not supported: multiple time window expressions would result in a cartesian product of rows")
	}
	return newSessionAggregator(cfg, pos)
}

// SessionAggregator aggregates by session_window as Spark's
// MergingSessionsExec and SessionWindowStateStoreSaveExec: the rows of
// open sessions are kept (their keys, interval, batch and aggregate
// arguments), sessions are merged from them whenever rows arrive (sorted
// by key and start, a row whose start is at or before the session's end
// extends it), and a session's aggregates are computed from its rows when
// it is emitted: in append mode once the watermark passes its end, in
// update mode whenever a batch adds rows to it. Keeping rows rather than
// partial aggregates lets every aggregate merge without a merge function,
// at the cost of memory proportional to the open sessions' rows, which
// the watermark bounds.
type SessionAggregator struct {
	cfg     Config
	pos     int
	sess    *expr.SessionBound
	others  []int // key positions other than the session
	aggs    []*expr.BoundAgg
	argCols []int // column of each aggregate's argument in bufSchema, -1 for count(*)
	schema  *arrow.Schema
	buf     *arrow.Schema // others..., __start, __end, __batch, args...
	rows    []arrow.RecordBatch

	// sessions is the merge of rows, valid while !dirty.
	sessions []sessionSpan
	dirty    bool
	all      arrow.RecordBatch // rows concatenated, valid while !dirty

	timeLimit   int64
	collectLate bool
	late        []int32
	nullTime    []int32
	ahead       []int32
	keyBuf      []byte
}

// sessionSpan is one merged session: its rows (indices into all), its
// interval and the last batch that added a row.
type sessionSpan struct {
	start, end int64
	batch      int64
	rows       []int32
}

func newSessionAggregator(cfg Config, pos int) (*SessionAggregator, error) {
	s := &SessionAggregator{cfg: cfg, pos: pos, aggs: cfg.Aggs, timeLimit: NoEviction}
	s.sess, _ = expr.AsSession(cfg.Keys[pos])
	var out, buf []arrow.Field
	for i, k := range cfg.Keys {
		out = append(out, arrow.Field{Name: cfg.KeyNames[i], Type: k.Type(), Nullable: true})
		if i == pos {
			continue
		}
		if !keyEncodable(k.Type()) {
			return nil, fmt.Errorf("grouping by %s beside session_window is not supported", k.Type())
		}
		s.others = append(s.others, i)
		buf = append(buf, arrow.Field{Name: fmt.Sprintf("__k%d", i), Type: k.Type(), Nullable: true})
	}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	if f, ok := expr.WindowType.FieldByName("start"); ok {
		ts = f.Type.(*arrow.TimestampType)
	}
	buf = append(buf,
		arrow.Field{Name: "__start", Type: ts}, arrow.Field{Name: "__end", Type: ts},
		arrow.Field{Name: "__batch", Type: arrow.PrimitiveTypes.Int64})
	for j, ag := range cfg.Aggs {
		out = append(out, arrow.Field{Name: ag.Name, Type: ag.Type, Nullable: ag.Nullable()})
		if ag.Arg == nil {
			s.argCols = append(s.argCols, -1)
			continue
		}
		s.argCols = append(s.argCols, len(buf))
		buf = append(buf, arrow.Field{Name: fmt.Sprintf("__a%d", j), Type: ag.Arg.Type(), Nullable: true})
	}
	s.schema, s.buf = arrow.NewSchema(out, nil), arrow.NewSchema(buf, nil)
	return s, nil
}

func keyEncodable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DATE32, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL:
		return true
	}
	return false
}

// Schema is the output schema: the keys (session_window as a struct),
// then the aggregates.
func (s *SessionAggregator) Schema() *arrow.Schema { return s.schema }

// SetEventTimeLimit keeps rows whose event time is above limit (µs) out.
func (s *SessionAggregator) SetEventTimeLimit(limit int64) { s.timeLimit = limit }

// CollectLateRows makes Update report the rows it kept out.
func (s *SessionAggregator) CollectLateRows() { s.collectLate = true }

func (s *SessionAggregator) skip(n *int64, rows *[]int32, i int) {
	*n++
	if s.collectLate {
		*rows = append(*rows, int32(i))
	}
}

// Update adds rec's rows to the open sessions. Rows without a time or
// with a null or non-positive gap join none (NullTime); with dropLate,
// the rows of a session merged within this batch whose end is at or
// before watermark (µs) are dropped as late, as Spark's
// SessionWindowStateStoreRestoreExec does after the batch's partial merge.
func (s *SessionAggregator) Update(c *expr.Ctx, rec arrow.RecordBatch, batchID, watermark int64, dropLate bool) (st UpdateStats, err error) {
	n := int(rec.NumRows())
	if n == 0 {
		return st, nil
	}
	s.late, s.nullTime, s.ahead = s.late[:0], s.nullTime[:0], s.ahead[:0]
	defer func() { st.LateRows, st.NullTimeRows, st.AheadRows = s.late, s.nullTime, s.ahead }()
	start, end, ok, err := s.sess.Intervals(c, rec)
	if err != nil {
		return st, err
	}
	cols := make([]arrow.Array, 0, s.buf.NumFields())
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	for _, k := range s.others {
		a, err := s.cfg.Keys[k].Eval(c, rec)
		if err != nil {
			return st, err
		}
		cols = append(cols, a)
	}
	var keep []int32
	for i := range n {
		switch {
		case !ok[i]:
			s.skip(&st.NullTime, &s.nullTime, i)
		case start[i] > s.timeLimit:
			s.skip(&st.Ahead, &s.ahead, i)
		default:
			keep = append(keep, int32(i))
		}
	}
	if dropLate {
		keep = s.dropLate(cols, keep, start, end, watermark, &st)
	}
	if len(keep) == 0 {
		return st, nil
	}
	sb := array.NewTimestampBuilder(c.Mem, s.buf.Field(len(s.others)).Type.(*arrow.TimestampType))
	eb := array.NewTimestampBuilder(c.Mem, s.buf.Field(len(s.others)).Type.(*arrow.TimestampType))
	bb := array.NewInt64Builder(c.Mem)
	for i := range n {
		sb.Append(arrow.Timestamp(start[i]))
		eb.Append(arrow.Timestamp(end[i]))
		bb.Append(batchID)
	}
	cols = append(cols, sb.NewArray(), eb.NewArray(), bb.NewArray())
	sb.Release()
	eb.Release()
	bb.Release()
	for _, ag := range s.aggs {
		if ag.Arg == nil {
			continue
		}
		a, err := ag.Arg.Eval(c, rec)
		if err != nil {
			return st, fmt.Errorf("%s: %w", ag.Name, err)
		}
		if a.DataType().ID() == arrow.NULL && ag.Arg.Type().ID() != arrow.NULL {
			m := array.MakeArrayOfNull(c.Mem, ag.Arg.Type(), a.Len())
			a.Release()
			a = m
		}
		cols = append(cols, a)
	}
	full := array.NewRecordBatch(s.buf, cols, int64(n))
	defer full.Release()
	kept, err := takeRows(c.Context, c.Mem, full, keep)
	if err != nil {
		return st, err
	}
	s.rows = append(s.rows, kept)
	s.dirty = true
	st.Updated = int64(len(keep))
	return st, nil
}

// dropLate merges this batch's rows into sessions and drops those whose
// merged end is at or before watermark.
func (s *SessionAggregator) dropLate(keyCols []arrow.Array, keep []int32, start, end []int64, watermark int64, st *UpdateStats) []int32 {
	keys := s.encodeKeys(keyCols, keep)
	order := make([]int, len(keep))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := bytes.Compare([]byte(keys[a]), []byte(keys[b])); c != 0 {
			return c
		}
		return cmp.Compare(start[keep[a]], start[keep[b]])
	})
	drop := make([]bool, len(keep))
	for lo := 0; lo < len(order); {
		hi, e := lo+1, end[keep[order[lo]]]
		for hi < len(order) && keys[order[hi]] == keys[order[lo]] && start[keep[order[hi]]] <= e {
			e = max(e, end[keep[order[hi]]])
			hi++
		}
		if e <= watermark {
			for _, j := range order[lo:hi] {
				drop[j] = true
			}
		}
		lo = hi
	}
	out := keep[:0:0]
	for j, i := range keep {
		if drop[j] {
			st.Dropped++
			if s.collectLate {
				s.late = append(s.late, i)
			}
			continue
		}
		out = append(out, i)
	}
	if s.collectLate {
		slices.Sort(s.late)
	}
	return out
}

// encodeKeys encodes the non-session keys of rows idx.
func (s *SessionAggregator) encodeKeys(cols []arrow.Array, idx []int32) []string {
	encs := make([]keyEncoder, len(cols))
	for j, c := range cols {
		encs[j], _ = newKeyEncoder(c)
	}
	out := make([]string, len(idx))
	for n, i := range idx {
		s.keyBuf = s.keyBuf[:0]
		for _, enc := range encs {
			if enc != nil {
				s.keyBuf = enc(s.keyBuf, int(i))
			}
		}
		out[n] = string(s.keyBuf)
	}
	return out
}

// merge recomputes the sessions over all open rows.
func (s *SessionAggregator) merge(mem memory.Allocator) error {
	if !s.dirty && s.all != nil {
		return nil
	}
	if s.all != nil {
		s.all.Release()
		s.all = nil
	}
	all, err := concatRecords(mem, s.buf, s.rows)
	if err != nil {
		return err
	}
	for _, r := range s.rows {
		r.Release()
	}
	all.Retain()
	s.rows = []arrow.RecordBatch{all}
	s.all = all
	s.dirty = false
	n := int(all.NumRows())
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	keyCols := make([]arrow.Array, len(s.others))
	for j := range keyCols {
		keyCols[j] = all.Column(j)
	}
	keys := s.encodeKeys(keyCols, idx)
	starts := all.Column(len(s.others)).(*array.Timestamp)
	ends := all.Column(len(s.others) + 1).(*array.Timestamp)
	batches := all.Column(len(s.others) + 2).(*array.Int64)
	slices.SortStableFunc(idx, func(a, b int32) int {
		if c := bytes.Compare([]byte(keys[a]), []byte(keys[b])); c != 0 {
			return c
		}
		return cmp.Compare(starts.Value(int(a)), starts.Value(int(b)))
	})
	s.sessions = s.sessions[:0]
	for lo := 0; lo < n; {
		first := idx[lo]
		sp := sessionSpan{start: int64(starts.Value(int(first))), end: int64(ends.Value(int(first))), batch: batches.Value(int(first))}
		hi := lo
		// Spark's MergingSessionsIterator: a row starting at or before the
		// session's end belongs to it and may extend it.
		for hi < n && keys[idx[hi]] == keys[first] && int64(starts.Value(int(idx[hi]))) <= sp.end {
			r := int(idx[hi])
			sp.end = max(sp.end, int64(ends.Value(r)))
			sp.batch = max(sp.batch, batches.Value(r))
			sp.rows = append(sp.rows, idx[hi])
			hi++
		}
		s.sessions = append(s.sessions, sp)
		lo = hi
	}
	return nil
}

// NumGroups is the number of open sessions.
func (s *SessionAggregator) NumGroups() int {
	if err := s.merge(memory.DefaultAllocator); err != nil {
		return 0
	}
	return len(s.sessions)
}

// NumUpdated counts the sessions batchID added rows to.
func (s *SessionAggregator) NumUpdated(batchID int64) int64 {
	if err := s.merge(memory.DefaultAllocator); err != nil {
		return 0
	}
	var n int64
	for _, sp := range s.sessions {
		if sp.batch == batchID {
			n++
		}
	}
	return n
}

// MemoryBytes estimates the memory the open rows hold.
func (s *SessionAggregator) MemoryBytes() int64 {
	var n int64
	for _, r := range s.rows {
		for _, c := range r.Columns() {
			for _, b := range c.Data().Buffers() {
				if b != nil {
					n += int64(b.Len())
				}
			}
		}
	}
	return n
}

// Emit aggregates the sessions selected by keep (nil = all).
func (s *SessionAggregator) Emit(mem memory.Allocator, keep func(g int32) bool) (arrow.RecordBatch, error) {
	if err := s.merge(mem); err != nil {
		return nil, err
	}
	var sel []int
	for g := range s.sessions {
		if keep == nil || keep(int32(g)) {
			sel = append(sel, g)
		}
	}
	return s.aggregate(mem, sel)
}

// EmitUpdated aggregates the sessions batchID added rows to.
func (s *SessionAggregator) EmitUpdated(mem memory.Allocator, batchID int64) (arrow.RecordBatch, error) {
	return s.Emit(mem, func(g int32) bool { return s.sessions[g].batch == batchID })
}

// EvictExpired removes the sessions that end at or before watermark (µs),
// returning their aggregates when emit is set (append mode).
func (s *SessionAggregator) EvictExpired(mem memory.Allocator, watermark int64, emit bool) (arrow.RecordBatch, int, error) {
	if s.cfg.EvictKey < 0 {
		return nil, 0, nil
	}
	if err := s.merge(mem); err != nil {
		return nil, 0, err
	}
	expired := func(g int32) bool { return s.sessions[g].end <= watermark }
	var out arrow.RecordBatch
	if emit {
		rec, err := s.Emit(mem, expired)
		if err != nil {
			return nil, 0, err
		}
		out = rec
	}
	var keepRows []int32
	removed := 0
	for g, sp := range s.sessions {
		if expired(int32(g)) {
			removed++
			continue
		}
		keepRows = append(keepRows, sp.rows...)
	}
	if removed == 0 {
		return out, 0, nil
	}
	slices.Sort(keepRows)
	rest, err := takeRows(context.Background(), mem, s.all, keepRows)
	if err != nil {
		if out != nil {
			out.Release()
		}
		return nil, 0, err
	}
	for _, r := range s.rows {
		r.Release()
	}
	s.rows = []arrow.RecordBatch{rest}
	s.dirty = true
	return out, removed, nil
}

// aggregate computes the aggregates of sessions sel with a batch
// Aggregator over their rows, keyed by the other keys and the session's
// start and end, and puts session_window back in its key position.
func (s *SessionAggregator) aggregate(mem memory.Allocator, sel []int) (arrow.RecordBatch, error) {
	if len(sel) == 0 {
		return emptyRecord(mem, s.schema), nil
	}
	var rows []int32
	sb := array.NewTimestampBuilder(mem, s.buf.Field(len(s.others)).Type.(*arrow.TimestampType))
	eb := array.NewTimestampBuilder(mem, s.buf.Field(len(s.others)).Type.(*arrow.TimestampType))
	defer sb.Release()
	defer eb.Release()
	for _, g := range sel {
		sp := s.sessions[g]
		for _, r := range sp.rows {
			rows = append(rows, r)
			sb.Append(arrow.Timestamp(sp.start))
			eb.Append(arrow.Timestamp(sp.end))
		}
	}
	ctx := expr.NewCtx(context.Background())
	ctx.Mem = mem
	taken, err := takeRows(ctx.Context, mem, s.all, rows)
	if err != nil {
		return nil, err
	}
	defer taken.Release()
	cols := make([]arrow.Array, 0, taken.NumCols())
	fields := make([]arrow.Field, 0, taken.NumCols())
	for j := range taken.NumCols() {
		switch int(j) {
		case len(s.others):
			cols = append(cols, sb.NewArray())
		case len(s.others) + 1:
			cols = append(cols, eb.NewArray())
		default:
			c := taken.Column(int(j))
			c.Retain()
			cols = append(cols, c)
		}
		fields = append(fields, s.buf.Field(int(j)))
	}
	in := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	defer in.Release()
	keys := make([]expr.Bound, 0, len(s.others)+2)
	names := make([]string, 0, len(s.others)+2)
	for j := range len(s.others) + 2 {
		b, err := expr.Col(fields[j].Name).Bind(in.Schema())
		if err != nil {
			return nil, err
		}
		keys = append(keys, b)
		names = append(names, fields[j].Name)
	}
	aggs := make([]*expr.BoundAgg, len(s.aggs))
	for j, ag := range s.aggs {
		cp := *ag
		if s.argCols[j] >= 0 {
			b, err := expr.Col(fields[s.argCols[j]].Name).Bind(in.Schema())
			if err != nil {
				return nil, err
			}
			cp.Arg = b
		}
		aggs[j] = &cp
	}
	agg, err := NewAggregator(Config{Keys: keys, KeyNames: names, Aggs: aggs, EvictKey: -1})
	if err != nil {
		return nil, err
	}
	if _, err := agg.Update(ctx, in, 0, 0, false); err != nil {
		return nil, err
	}
	res, err := agg.Emit(mem, nil)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	nk := len(s.others)
	window, err := array.NewStructArrayWithFields([]arrow.Array{res.Column(nk), res.Column(nk + 1)}, expr.WindowType.Fields())
	if err != nil {
		return nil, fmt.Errorf("session_window: %w", err)
	}
	defer window.Release()
	out := make([]arrow.Array, 0, s.schema.NumFields())
	o := 0
	for i := range s.cfg.Keys {
		if i == s.pos {
			out = append(out, window)
			continue
		}
		out = append(out, res.Column(o))
		o++
	}
	for j := range s.aggs {
		out = append(out, res.Column(nk+2+j))
	}
	return array.NewRecordBatch(s.schema, out, res.NumRows()), nil
}

type sessionSnapshot struct {
	Shape string
	Rows  []byte
}

func (s *SessionAggregator) shape() string {
	return "session " + s.schema.String() + " over " + s.buf.String()
}

// Save serialises the open rows as Arrow IPC.
func (s *SessionAggregator) Save() ([]byte, error) {
	var out bytes.Buffer
	w := ipc.NewWriter(&out, ipc.WithSchema(s.buf))
	for _, r := range s.rows {
		if err := w.Write(r); err != nil {
			return nil, fmt.Errorf("state: encode session rows: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("state: encode session rows: %w", err)
	}
	return encodeGob(sessionSnapshot{Shape: s.shape(), Rows: out.Bytes()})
}

// Load replaces the open rows with a saved version.
func (s *SessionAggregator) Load(data []byte) error {
	var snap sessionSnapshot
	if err := decodeGob(data, &snap); err != nil {
		return fmt.Errorf("state: decode session rows: %w", err)
	}
	if snap.Shape != s.shape() {
		return fmt.Errorf("state: the checkpoint holds the sessions of a different aggregation; the query changed since it was checkpointed: use a new checkpointLocation")
	}
	r, err := ipc.NewReader(bytes.NewReader(snap.Rows))
	if err != nil {
		return fmt.Errorf("state: decode session rows: %w", err)
	}
	defer r.Release()
	for _, old := range s.rows {
		old.Release()
	}
	s.rows = nil
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		s.rows = append(s.rows, rec)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("state: decode session rows: %w", err)
	}
	s.dirty = true
	return nil
}

// takeRows returns rows idx of rec.
func takeRows(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	res, err := compute.Take(compute.WithAllocator(ctx, mem), *compute.DefaultTakeOptions(), compute.NewDatumWithoutOwning(rec), compute.NewDatumWithoutOwning(ia))
	if err != nil {
		return nil, fmt.Errorf("take rows: %w", err)
	}
	return res.(*compute.RecordDatum).Value, nil
}

func concatRecords(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 0 {
		return emptyRecord(mem, schema), nil
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, fmt.Errorf("session rows: %w", err)
		}
		cols[i] = a
	}
	out := array.NewRecordBatch(schema, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func emptyRecord(mem memory.Allocator, schema *arrow.Schema) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	return b.NewRecordBatch()
}
