// Package memory is an in-process streaming source fed by the program
// itself, as Spark's MemoryStream: tests and demos append records, and
// each micro-batch reads the rows appended since the previous one. It lives
// in one process only: a notebook cell's memory stream is gone in the next
// cell.
package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Stream is an append-only sequence of rows. Offsets are row counts.
type Stream struct {
	name   string
	schema *arrow.Schema

	mu      sync.Mutex
	records []arrow.RecordBatch
	ends    []int64 // cumulative row count after each record
}

// New returns an empty stream with a fixed schema.
func New(name string, schema *arrow.Schema) *Stream {
	return &Stream{name: name, schema: schema}
}

// Add appends a record (retained by the stream); its schema must match.
func (s *Stream) Add(rec arrow.RecordBatch) error {
	if !rec.Schema().Equal(s.schema) {
		return fmt.Errorf("memory stream %s: record schema %s does not match %s", s.name, rec.Schema(), s.schema)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Retain()
	var total int64
	if n := len(s.ends); n > 0 {
		total = s.ends[n-1]
	}
	s.records = append(s.records, rec)
	s.ends = append(s.ends, total+rec.NumRows())
	return nil
}

func (s *Stream) total() int64 {
	if len(s.ends) == 0 {
		return 0
	}
	return s.ends[len(s.ends)-1]
}

type offset struct {
	Rows int64 `json:"rows"`
}

func format(n int64) source.Offset {
	b, _ := json.Marshal(offset{Rows: n})
	return source.Offset(b)
}

func parse(o source.Offset) (int64, error) {
	if o == "" {
		return 0, nil
	}
	var x offset
	if err := json.Unmarshal([]byte(o), &x); err != nil {
		return 0, fmt.Errorf("memory stream offset %q: %w", o, err)
	}
	return x.Rows, nil
}

// Description implements source.Source for every Reader of the stream.
func (s *Stream) Description() string { return "MemoryStream[" + s.name + "]" }

// Schema implements source.Source for every Reader of the stream.
func (s *Stream) Schema() *arrow.Schema { return s.schema }

// InitialOffset implements source.Source for every Reader of the stream: the beginning.
func (s *Stream) InitialOffset(context.Context) (source.Offset, error) { return format(0), nil }

// Reader is one query's source over a Stream: the stream's rows, with the
// query's own Trigger.AvailableNow end, so queries reading one stream do
// not limit each other.
type Reader struct {
	*Stream
	mu     sync.Mutex
	pinned int64 // -1 unless available-now
}

var (
	_ source.Source       = (*Reader)(nil)
	_ source.AvailableNow = (*Reader)(nil)
)

// Open returns a new Reader of the stream for one query.
func (s *Stream) Open() *Reader { return &Reader{Stream: s, pinned: -1} }

// LatestOffset implements source.Source: everything appended so far, or up
// to the end pinned by PrepareForAvailableNow.
func (r *Reader) LatestOffset(_ context.Context, start source.Offset) (source.Offset, error) {
	r.mu.Lock()
	pinned := r.pinned
	r.mu.Unlock()
	r.Stream.mu.Lock()
	n := r.total()
	r.Stream.mu.Unlock()
	if pinned >= 0 {
		n = pinned
	}
	st, err := parse(start)
	if err != nil {
		return "", err
	}
	if n <= st {
		return start, nil
	}
	return format(n), nil
}

// AvailableOffset implements source.Source for every Reader of the stream.
func (s *Stream) AvailableOffset(context.Context) (source.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return format(s.total()), nil
}

// PrepareForAvailableNow implements source.AvailableNow: this reader stops
// at the rows appended so far.
func (r *Reader) PrepareForAvailableNow(context.Context) error {
	r.Stream.mu.Lock()
	n := r.total()
	r.Stream.mu.Unlock()
	r.mu.Lock()
	r.pinned = n
	r.mu.Unlock()
	return nil
}

// GetBatch implements source.Source for every Reader of the stream.
func (s *Stream) GetBatch(ctx context.Context, start, end source.Offset, fn func(arrow.RecordBatch) error) error {
	from, err := parse(start)
	if err != nil {
		return err
	}
	to, err := parse(end)
	if err != nil {
		return err
	}
	s.mu.Lock()
	recs := append([]arrow.RecordBatch(nil), s.records...)
	ends := append([]int64(nil), s.ends...)
	s.mu.Unlock()
	var begin int64
	for i, r := range recs {
		lo, hi := begin, ends[i]
		begin = hi
		if hi <= from || lo >= to {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		a, b := max(from, lo)-lo, min(to, hi)-lo
		slice := r.NewSlice(a, b)
		err := fn(slice)
		slice.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// Commit implements source.Source for every Reader of the stream (a no-op: the stream keeps all rows).
func (s *Stream) Commit(context.Context, source.Offset) error { return nil }

// Close implements source.Source for every Reader of the stream; the stream stays usable by its owner.
func (s *Stream) Close() error { return nil }
