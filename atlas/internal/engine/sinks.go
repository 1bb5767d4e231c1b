package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink/iceberg"
)

// tapSink forwards to the real sink and keeps the last batch's first rows
// for the live view.
type tapSink struct {
	inner sink.Sink
	mu    sync.Mutex
	last  []arrow.RecordBatch
	sch   *arrow.Schema
	batch int64
}

const tapRows = 10

func (t *tapSink) Description() string { return t.inner.Description() }

// BatchMetrics forwards to the real sink's metrics, if it has any.
func (t *tapSink) BatchMetrics(batchID int64) map[string]string {
	if m, ok := t.inner.(sink.MetricsReporter); ok {
		return m.BatchMetrics(batchID)
	}
	return nil
}

func (t *tapSink) AddBatch(ctx context.Context, b *sink.Batch) error {
	if err := t.inner.AddBatch(ctx, b); err != nil {
		return err
	}
	if b.NumRows() == 0 {
		return nil
	}
	var keep []arrow.RecordBatch
	left := int64(tapRows)
	for _, r := range b.Records {
		if left <= 0 {
			break
		}
		n := min(left, r.NumRows())
		if n > 0 {
			keep = append(keep, r.NewSlice(0, n))
			left -= n
		}
	}
	t.mu.Lock()
	releaseAll(t.last)
	t.last, t.sch, t.batch = keep, b.Schema, b.BatchID
	t.mu.Unlock()
	return nil
}

// latest returns the retained rows of the last non-empty batch.
func (t *tapSink) latest(fn func(schema *arrow.Schema, recs []arrow.RecordBatch, batchID int64)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sch != nil {
		fn(t.sch, t.last, t.batch)
	}
}

// foreachBatchSink hands each batch to user code as a batch DataFrame.
type foreachBatchSink struct {
	s   *Session
	fn  func(*DataFrame, int64) error
	log writeLog // the table writes of the latest batches' callbacks
}

func (f *foreachBatchSink) Description() string { return "ForeachBatchSink" }

func (f *foreachBatchSink) AddBatch(ctx context.Context, b *sink.Batch) error {
	df := &DataFrame{s: f.s, node: &plan.LocalScan{Name: "microBatch", Out: b.Schema, Records: b.Records}}
	bc := &batchContext{queryID: b.QueryID, batchID: b.BatchID}
	restore := f.s.enterBatch(bc)
	defer restore()
	err := f.fn(df, b.BatchID)
	f.log.add(bc.writes)
	return err
}

// BatchMetrics sums the table writes the callback made in batch batchID
// (the progress's sink metrics: progress.SinkNumWrites and the others), or
// nil when it made none.
//
// When the automatic maintenance ran on the tables the batch wrote, the
// metrics carry its totals for them too, under the Iceberg sink's names
// (maintenanceRuns, snapshotsExpired, ...; summed over the tables).
func (f *foreachBatchSink) BatchMetrics(batchID int64) map[string]string {
	ws := f.log.recent()
	out := writeMetrics(ws, batchID)
	if st, ok := f.s.maintenanceOf(ws, batchID); ok && out != nil {
		maps.Copy(out, iceberg.MaintenanceMetrics(st))
	}
	return out
}

// batchContext identifies the micro-batch a foreachBatch callback runs
// for; writes through the session inside it are keyed by it.
type batchContext struct {
	queryID string
	batchID int64
	seq     int // writes so far in this batch, to key several writes apart
	// writes are the table writes made so far, for the live view.
	writes []BatchWrite
}

// enterBatch makes bc the session's current micro-batch until the
// returned function is called. Callbacks of several queries of one session
// take turns: a table write inside a callback is keyed by the batch of
// the query whose callback it is, never another's. (Writes made through
// the session from other goroutines while a callback runs are keyed by
// that callback's batch too: in a callback, write through the session;
// outside one, wait for the query or use a second session.)
func (s *Session) enterBatch(bc *batchContext) func() {
	s.callbackMu.Lock()
	s.mu.Lock()
	prev := s.batch
	s.batch = bc
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.batch = prev
		s.mu.Unlock()
		s.callbackMu.Unlock()
	}
}

// memoryTable is the memory sink: rows kept in the session under the query
// name, readable with Session.Table(name). As Spark's MemorySink, a batch
// whose id is not above the last one added is a replay and is skipped, and
// a complete-mode batch replaces the rows. Unlike Spark's (which keeps
// every row of a query that runs for days in the driver's memory), it keeps
// at most maxRows rows (ConfMemoryMaxRows): beyond them the oldest rows are
// dropped, and the query's progress says so (sink metrics numRowsDropped).
type memoryTable struct {
	name    string
	schema  *arrow.Schema
	maxRows int64 // 0: no bound
	mu      sync.Mutex
	recs    []arrow.RecordBatch
	rows    int64 // rows in recs
	latest  int64 // the id of the last batch added, -1 before the first
	dropped int64 // rows dropped by maxRows so far
}

func (s *Session) newMemoryTable(name string, schema *arrow.Schema) (*memoryTable, error) {
	maxRows, err := s.memoryMaxRows()
	if err != nil {
		return nil, err
	}
	t := &memoryTable{name: name, schema: schema, maxRows: maxRows, latest: -1}
	s.mu.Lock()
	if s.tables == nil {
		s.tables = map[string]*memoryTable{}
	}
	s.tables[name] = t
	s.mu.Unlock()
	return t, nil
}

func (m *memoryTable) Description() string { return "MemorySink[" + m.name + "]" }

func (m *memoryTable) AddBatch(_ context.Context, b *sink.Batch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b.BatchID <= m.latest {
		return nil // already added: a replay
	}
	m.latest = b.BatchID
	if b.Mode == sink.Complete {
		releaseAll(m.recs)
		m.recs, m.rows = nil, 0
	}
	for _, r := range b.Records {
		if r.NumRows() == 0 {
			continue
		}
		r.Retain()
		m.recs = append(m.recs, r)
		m.rows += r.NumRows()
	}
	m.trim()
	return nil
}

// trim drops the oldest rows beyond maxRows; the caller holds mu.
func (m *memoryTable) trim() {
	for m.maxRows > 0 && m.rows > m.maxRows {
		over, first := m.rows-m.maxRows, m.recs[0]
		if n := first.NumRows(); n <= over {
			first.Release()
			m.recs = m.recs[1:]
			m.rows -= n
			m.dropped += n
			continue
		}
		m.recs[0] = first.NewSlice(over, first.NumRows())
		first.Release()
		m.rows -= over
		m.dropped += over
	}
}

// Memory sink metrics (progress sink.metrics of a memory sink query).
const (
	// MetricMemoryRows is the rows the memory table holds.
	MetricMemoryRows = "numRows"
	// MetricMemoryRowsDropped is the oldest rows dropped so far to keep
	// at most ConfMemoryMaxRows.
	MetricMemoryRowsDropped = "numRowsDropped"
	// MetricMemoryMaxRows is the bound in force (0: none).
	MetricMemoryMaxRows = "maxRows"
)

// BatchMetrics implements sink.MetricsReporter: the rows kept, the rows
// dropped by the bound and the bound.
func (m *memoryTable) BatchMetrics(int64) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return map[string]string{
		MetricMemoryRows:        strconv.FormatInt(m.rows, 10),
		MetricMemoryRowsDropped: strconv.FormatInt(m.dropped, 10),
		MetricMemoryMaxRows:     strconv.FormatInt(m.maxRows, 10),
	}
}

// snapshot returns the table's current rows for a batch DataFrame. Each
// record is retained for it: a complete-mode batch releases the rows it
// replaces, and a DataFrame read at the same time (or kept) must still see
// whole, valid records. The DataFrame never releases them; buffers from
// Go's allocator are reclaimed by the garbage collector.
func (m *memoryTable) snapshot() []arrow.RecordBatch {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.recs {
		r.Retain()
	}
	return append([]arrow.RecordBatch(nil), m.recs...)
}

// ForeachWriter writes a query's output one row at a time, as Spark's
// ForeachWriter: for every micro-batch, Open(partitionID, epochID) is
// called with the batch id as epoch id (Atlas runs each batch as one
// partition, 0); when it returns true, Process gets every row of the
// batch; Close ends the batch with the error that stopped it (nil when it
// went through), and is called even when Open declined or failed. An
// error from Open, Process or Close fails the query; on restart the batch
// runs again with the same epoch id, so a writer that remembers the epochs
// it committed can return false from Open to skip a replay.
type ForeachWriter interface {
	// Open prepares to write a batch; false skips its rows.
	Open(partitionID, epochID int64) (bool, error)
	// Process writes one row.
	Process(row Row) error
	// Close ends the batch; err is what stopped it, nil on success.
	Close(err error) error
}

// foreachWriterSink drives a ForeachWriter.
type foreachWriterSink struct{ w ForeachWriter }

func (f *foreachWriterSink) Description() string { return "ForeachWriterSink" }

func (f *foreachWriterSink) AddBatch(_ context.Context, b *sink.Batch) error {
	ok, err := f.w.Open(0, b.BatchID)
	if err != nil {
		return errors.Join(fmt.Errorf("foreach writer: open of batch %d: %w", b.BatchID, err), f.w.Close(err))
	}
	if ok {
		for _, row := range toRows(b.Schema, b.Records) {
			if err := f.w.Process(row); err != nil {
				return errors.Join(fmt.Errorf("foreach writer: batch %d: %w", b.BatchID, err), f.w.Close(err))
			}
		}
	}
	if err := f.w.Close(nil); err != nil {
		return fmt.Errorf("foreach writer: close of batch %d: %w", b.BatchID, err)
	}
	return nil
}
