package rate

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MicroBatchOptions are the options the rate-micro-batch source accepts.
var MicroBatchOptions = []string{"rowsPerBatch", "numPartitions", "startTimestamp", "advanceMillisPerBatch"}

// MicroBatch is Spark's "rate-micro-batch" source (Spark 3.3+,
// RatePerMicroBatchStream): every micro-batch has exactly rowsPerBatch
// rows, whatever the clock says, so that a test or a benchmark runs a
// predictable number of batches back to back. Batch k holds the values
// [k*rowsPerBatch, (k+1)*rowsPerBatch), each with the timestamp
// startTimestamp + k*advanceMillisPerBatch (milliseconds since the epoch).
type MicroBatch struct {
	perBatch, startMs, advanceMs int64
	numPartitions                int
}

// mbOffset is the offset of MicroBatch, Spark's
// RatePerMicroBatchStreamOffset: the next value and its timestamp.
type mbOffset struct {
	Offset    int64 `json:"offset"`
	Timestamp int64 `json:"timestamp"`
}

func (o mbOffset) format() source.Offset {
	b, _ := json.Marshal(o)
	return source.Offset(b)
}

func parseMB(o source.Offset) (mbOffset, error) {
	var x mbOffset
	if err := json.Unmarshal([]byte(o), &x); err != nil {
		return x, fmt.Errorf("rate-micro-batch source offset %q: %w", o, err)
	}
	return x, nil
}

// NewMicroBatch builds a rate-micro-batch source from options, as Spark's
// RatePerMicroBatchProvider: rowsPerBatch (required, positive),
// numPartitions (default 1), startTimestamp (default 0) and
// advanceMillisPerBatch (default 1000), all non-negative.
func NewMicroBatch(opts map[string]string) (*MicroBatch, error) {
	s := &MicroBatch{advanceMs: 1000, numPartitions: 1}
	for k, v := range opts {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "rowsPerBatch":
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("rate-micro-batch source: invalid value %q: the option 'rowsPerBatch' must be a positive integer", v)
			}
			s.perBatch = n
		case "numPartitions":
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("rate-micro-batch source: invalid value %q: the option 'numPartitions' must be a positive integer", v)
			}
			s.numPartitions = int(n)
		case "startTimestamp":
			if err != nil || n < 0 {
				return nil, fmt.Errorf("rate-micro-batch source: invalid value %q: the option 'startTimestamp' must be a non-negative integer", v)
			}
			s.startMs = n
		case "advanceMillisPerBatch":
			if err != nil || n < 0 {
				return nil, fmt.Errorf("rate-micro-batch source: invalid value %q: the option 'advanceMillisPerBatch' must be a non-negative integer", v)
			}
			s.advanceMs = n
		default:
			return nil, fmt.Errorf("rate-micro-batch source: unknown option %q; valid options: %s", k, strings.Join(MicroBatchOptions, ", "))
		}
	}
	if s.perBatch == 0 {
		return nil, fmt.Errorf("rate-micro-batch source: the option 'rowsPerBatch' is required (a positive integer)")
	}
	return s, nil
}

// Description implements source.Source, as Spark's RatePerMicroBatchStream.
func (s *MicroBatch) Description() string {
	return fmt.Sprintf("RatePerMicroBatchStream[rowsPerBatch=%d, numPartitions=%d, startTimestamp=%d, advanceMillisPerBatch=%d]",
		s.perBatch, s.numPartitions, s.startMs, s.advanceMs)
}

// Schema implements source.Source: (timestamp, value), as the rate source.
func (s *MicroBatch) Schema() *arrow.Schema { return Schema }

// InitialOffset implements source.Source: value 0 at startTimestamp.
func (s *MicroBatch) InitialOffset(context.Context) (source.Offset, error) {
	return mbOffset{Timestamp: s.startMs}.format(), nil
}

// LatestOffset implements source.Source: one batch of rowsPerBatch rows
// after start, always available.
func (s *MicroBatch) LatestOffset(_ context.Context, start source.Offset) (source.Offset, error) {
	o, err := parseMB(start)
	if err != nil {
		return "", err
	}
	return mbOffset{Offset: o.Offset + s.perBatch, Timestamp: o.Timestamp + s.advanceMs}.format(), nil
}

// AvailableOffset implements source.Source (unbounded: only the row count
// of one batch is meaningful).
func (s *MicroBatch) AvailableOffset(context.Context) (source.Offset, error) { return "", nil }

// GetBatch yields the values [start, end), partition p taking start+p,
// start+p+n, ..., every row with the start's timestamp.
func (s *MicroBatch) GetBatch(ctx context.Context, start, end source.Offset, fn func(arrow.RecordBatch) error) error {
	a, err := parseMB(start)
	if err != nil {
		return err
	}
	b, err := parseMB(end)
	if err != nil {
		return err
	}
	n := int64(s.numPartitions)
	for p := int64(0); p < n; p++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		tb := array.NewTimestampBuilder(memory.DefaultAllocator, types.Timestamp)
		vb := array.NewInt64Builder(memory.DefaultAllocator)
		for v := a.Offset + p; v < b.Offset; v += n {
			tb.Append(arrow.Timestamp(a.Timestamp * 1000))
			vb.Append(v)
		}
		ts, vs := tb.NewArray(), vb.NewArray()
		tb.Release()
		vb.Release()
		rec := array.NewRecordBatch(Schema, []arrow.Array{ts, vs}, int64(vs.Len()))
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
func (s *MicroBatch) Commit(context.Context, source.Offset) error { return nil }

// Close implements source.Source.
func (s *MicroBatch) Close() error { return nil }
