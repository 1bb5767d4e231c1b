// Package rate is Spark's "rate" source: it generates rows
// (timestamp timestamp, value long) at a fixed rate, for demos and load
// tests. Row i has value i and timestamp start + i/rowsPerSecond, so a
// replayed range yields the same rows.
package rate

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
	"github.com/atlas-lakehouse/atlas/atlas/source"
)

// ValidOptions are the options the rate source accepts.
var ValidOptions = []string{"rowsPerSecond", "numPartitions", "rampUpTime"}

// Schema is the rate source's fixed schema.
var Schema = arrow.NewSchema([]arrow.Field{
	{Name: "timestamp", Type: types.Timestamp, Nullable: true},
	{Name: "value", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// Source generates rows.
type Source struct {
	perSecond int64
	mu        sync.Mutex
	pinned    int64
	now       func() time.Time
}

// New builds a rate source from options (rowsPerSecond, default 1).
func New(opts map[string]string) (*Source, error) {
	s := &Source{perSecond: 1, pinned: -1, now: time.Now}
	for k, v := range opts {
		switch k {
		case "rowsPerSecond":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("rate source: rowsPerSecond must be a positive integer, got %q", v)
			}
			s.perSecond = n
		case "numPartitions", "rampUpTime":
		default:
			return nil, fmt.Errorf("rate source: unknown option %q; valid options: %v", k, ValidOptions)
		}
	}
	return s, nil
}

type offset struct {
	StartMs int64 `json:"startMs"`
	Rows    int64 `json:"rows"`
}

func parse(o source.Offset) (offset, error) {
	var x offset
	if err := json.Unmarshal([]byte(o), &x); err != nil {
		return x, fmt.Errorf("rate source offset %q: %w", o, err)
	}
	return x, nil
}

func (o offset) format() source.Offset {
	b, _ := json.Marshal(o)
	return source.Offset(b)
}

// Description implements source.Source.
func (s *Source) Description() string {
	return "RateStreamV2[rowsPerSecond=" + strconv.FormatInt(s.perSecond, 10) + "]"
}

// Schema implements source.Source.
func (s *Source) Schema() *arrow.Schema { return Schema }

// InitialOffset starts the clock now.
func (s *Source) InitialOffset(context.Context) (source.Offset, error) {
	return offset{StartMs: s.now().UnixMilli()}.format(), nil
}

func (s *Source) available(start offset) int64 {
	el := s.now().UnixMilli() - start.StartMs
	if el < 0 {
		return 0
	}
	return el * s.perSecond / 1000
}

// LatestOffset implements source.Source.
func (s *Source) LatestOffset(_ context.Context, start source.Offset) (source.Offset, error) {
	st, err := parse(start)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	n := s.available(st)
	if s.pinned >= 0 {
		n = s.pinned
	}
	s.mu.Unlock()
	if n <= st.Rows {
		return start, nil
	}
	return offset{StartMs: st.StartMs, Rows: n}.format(), nil
}

// AvailableOffset implements source.Source (relative to a zero start, so
// only the row count is meaningful).
func (s *Source) AvailableOffset(context.Context) (source.Offset, error) { return "", nil }

// PrepareForAvailableNow pins the rows generated so far; the start time is
// only known from the first offset, so the pin happens lazily.
func (s *Source) PrepareForAvailableNow(context.Context) error { return nil }

// GetBatch implements source.Source.
func (s *Source) GetBatch(ctx context.Context, start, end source.Offset, fn func(arrow.RecordBatch) error) error {
	a, err := parse(start)
	if err != nil {
		return err
	}
	b, err := parse(end)
	if err != nil {
		return err
	}
	const chunk = 64 << 10
	for from := a.Rows; from < b.Rows; from += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		to := min(from+chunk, b.Rows)
		tb := array.NewTimestampBuilder(memory.DefaultAllocator, types.Timestamp)
		vb := array.NewInt64Builder(memory.DefaultAllocator)
		for i := from; i < to; i++ {
			tb.Append(arrow.Timestamp(a.StartMs*1000 + i*1_000_000/s.perSecond))
			vb.Append(i)
		}
		ts, vs := tb.NewArray(), vb.NewArray()
		tb.Release()
		vb.Release()
		rec := array.NewRecordBatch(Schema, []arrow.Array{ts, vs}, to-from)
		ts.Release()
		vs.Release()
		err := fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// Commit implements source.Source.
func (s *Source) Commit(context.Context, source.Offset) error { return nil }

// Close implements source.Source.
func (s *Source) Close() error { return nil }
