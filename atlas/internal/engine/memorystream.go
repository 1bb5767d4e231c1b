package engine

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/rowconv"
	mem "github.com/atlas-lakehouse/atlas/atlas/internal/source/memory"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MemoryStream is an in-process stream the program feeds itself, as
// Spark's MemoryStream (tests, demos). Read it with
// ReadStream().Format("memory").Option("name", name).Load() or ToDF.
type MemoryStream struct {
	s      *Session
	stream *mem.Stream
}

// MemoryStream creates (or replaces) a named in-process stream with a DDL schema.
func (s *Session) MemoryStream(name, ddl string) (*MemoryStream, error) {
	schema, err := types.ParseDDL(ddl)
	if err != nil {
		return nil, err
	}
	ms := &MemoryStream{s: s, stream: mem.New(name, schema)}
	s.mu.Lock()
	if s.streams == nil {
		s.streams = map[string]*mem.Stream{}
	}
	s.streams[name] = ms.stream
	s.mu.Unlock()
	return ms, nil
}

func (s *Session) memoryStream(name string) (*mem.Stream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, ok := s.streams[name]
	return ms, ok
}

// ToDF returns the stream as a streaming DataFrame.
func (m *MemoryStream) ToDF() *DataFrame {
	return m.s.ReadStream().Format("memory").Option("name", m.stream.Description()[len("MemoryStream["):len(m.stream.Description())-1]).Load()
}

// AddRecord appends an Arrow record with the stream's schema.
func (m *MemoryStream) AddRecord(rec arrow.RecordBatch) error { return m.stream.Add(rec) }

// AddRows appends rows given as Go values in schema order (nil for null;
// strings, int/int64, float64, bool, time.Time).
func (m *MemoryStream) AddRows(rows ...[]any) error {
	schema := m.stream.Schema()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for ri, row := range rows {
		if len(row) != schema.NumFields() {
			return fmt.Errorf("row %d has %d values, the schema has %d columns", ri, len(row), schema.NumFields())
		}
		for i, v := range row {
			if err := rowconv.AppendValue(b.Field(i), v); err != nil {
				return fmt.Errorf("row %d column %s: %w", ri, schema.Field(i).Name, err)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return m.stream.Add(rec)
}
