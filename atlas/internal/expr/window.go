package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// WindowType is the type of a window column: struct<start: timestamp, end: timestamp>.
var WindowType = arrow.StructOf(
	arrow.Field{Name: "start", Type: types.Timestamp, Nullable: true},
	arrow.Field{Name: "end", Type: types.Timestamp, Nullable: true},
)

// TimeWindow is Spark's window(timeColumn, windowDuration[, slideDuration[,
// startTime]]): it assigns each row to the event-time windows
// [start, start+Size) that contain its time, Slide apart (tumbling when
// Slide equals Size). Windows are aligned to the epoch plus Offset. In a
// GroupBy, a row falls into every sliding window that holds it; rows with a
// null time fall into none, as in Spark.
type TimeWindow struct {
	Time   Expr
	Size   time.Duration
	Slide  time.Duration
	Offset time.Duration
}

func (w *TimeWindow) String() string { return "window" }

// Tumbling reports whether windows do not overlap.
func (w *TimeWindow) Tumbling() bool { return w.Slide == w.Size }

// Bind checks the durations and that the time column is a timestamp.
func (w *TimeWindow) Bind(s *arrow.Schema) (Bound, error) {
	if w.Size <= 0 {
		return nil, fmt.Errorf("window duration must be positive, got %s", w.Size)
	}
	if w.Slide <= 0 || w.Slide > w.Size {
		return nil, fmt.Errorf("window slide duration must be positive and at most the window duration %s, got %s", w.Size, w.Slide)
	}
	if w.Size%time.Microsecond != 0 || w.Slide%time.Microsecond != 0 {
		return nil, fmt.Errorf("window durations must be whole microseconds")
	}
	t, err := w.Time.Bind(s)
	if err != nil {
		return nil, err
	}
	if t.Type().ID() == arrow.STRUCT {
		// window(windowColumn, ...): the window's window_time, as Spark.
		if t, err = bindWindowTime(&WindowTime{X: w.Time}, t); err != nil {
			return nil, err
		}
	}
	t = windowTimeColumn(t)
	if t.Type().ID() != arrow.TIMESTAMP {
		return nil, fmt.Errorf("window(%s, ...): the time column must be a timestamp, got %s; cast it first, e.g. CAST(%s AS timestamp)", w.Time, types.Name(t.Type()), w.Time)
	}
	return &WindowBound{Def: w, TimeCol: castTo(t, types.Timestamp), size: w.Size.Microseconds(), slide: w.Slide.Microseconds(), offset: w.Offset.Microseconds()}, nil
}

// WindowBound is a resolved TimeWindow. Aggregations use Starts directly
// (several windows per row when sliding); evaluating it as a column works
// for tumbling windows only.
type WindowBound struct {
	Def     *TimeWindow
	TimeCol Bound
	size    int64
	slide   int64
	offset  int64
}

// Type is WindowType.
func (w *WindowBound) Type() arrow.DataType { return WindowType }

// Nullable is true: a null time gives a null window.
func (w *WindowBound) Nullable() bool { return true }

// SizeMicros is the window length in microseconds.
func (w *WindowBound) SizeMicros() int64 { return w.size }

// Starts appends to buf the start (in microseconds) of every window holding
// time ts, latest first.
func (w *WindowBound) Starts(ts int64, buf []int64) []int64 {
	last := ts - floorMod(ts-w.offset, w.slide)
	for start := last; start > ts-w.size; start -= w.slide {
		buf = append(buf, start)
	}
	return buf
}

// Start returns the start of the tumbling window holding ts.
func (w *WindowBound) Start(ts int64) int64 {
	return ts - floorMod(ts-w.offset, w.size)
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// Eval builds the window struct column (tumbling windows only).
func (w *WindowBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	if w.slide != w.size {
		return nil, fmt.Errorf("sliding window(%s, %s, %s) can only be used as a GroupBy key, where a row joins several windows", w.Def.Time, w.Def.Size, w.Def.Slide)
	}
	in, err := w.TimeCol.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	ts := in.(*array.Timestamp)
	b := array.NewStructBuilder(c.Mem, WindowType)
	defer b.Release()
	sb := b.FieldBuilder(0).(*array.TimestampBuilder)
	eb := b.FieldBuilder(1).(*array.TimestampBuilder)
	b.Reserve(ts.Len())
	for i := 0; i < ts.Len(); i++ {
		if ts.IsNull(i) {
			b.AppendNull()
			sb.AppendNull()
			eb.AppendNull()
			continue
		}
		s := w.Start(int64(ts.Value(i)))
		b.Append(true)
		sb.Append(arrow.Timestamp(s))
		eb.Append(arrow.Timestamp(s + w.size))
	}
	return b.NewArray(), nil
}

// AsWindow reports whether b is a time window.
func AsWindow(b Bound) (*WindowBound, bool) {
	w, ok := b.(*WindowBound)
	return w, ok
}
