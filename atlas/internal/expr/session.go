package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// SessionWindow is Spark's session_window(timeColumn, gapDuration): in a
// GroupBy, rows of one group whose [time, time+gap) intervals overlap or
// touch merge into one session [first time, last time + gap), emitted as
// the column session_window struct<start, end>. The gap is a constant
// (Gap) or an expression per row (GapExpr: a string such as "5 minutes"
// or a day-time interval), Spark's dynamic gap; rows whose gap is null or
// not positive join no session, as in Spark.
type SessionWindow struct {
	Time Expr
	// Gap is a constant gap; GapExpr, when set, computes it per row.
	Gap     time.Duration
	GapExpr Expr
	// ParseGap parses a string gap ("5 minutes"); the caller provides
	// Spark's duration syntax.
	ParseGap func(string) (time.Duration, error)
}

func (w *SessionWindow) String() string { return "session_window" }

// Bind checks the time column is a timestamp and the gap a positive
// duration, a string or an interval.
func (w *SessionWindow) Bind(s *arrow.Schema) (Bound, error) {
	t, err := w.Time.Bind(s)
	if err != nil {
		return nil, err
	}
	t = windowTimeColumn(t)
	if t.Type().ID() != arrow.TIMESTAMP {
		return nil, fmt.Errorf("session_window(%s, ...): the time column must be a timestamp, got %s; cast it first, e.g. CAST(%s AS timestamp)", w.Time, types.Name(t.Type()), w.Time)
	}
	sb := &SessionBound{Def: w, TimeCol: castTo(t, types.Timestamp), gap: w.Gap.Microseconds()}
	if w.GapExpr == nil {
		if w.Gap <= 0 || w.Gap%time.Microsecond != 0 {
			return nil, fmt.Errorf("session_window: the gap duration must be a positive whole number of microseconds, got %s", w.Gap)
		}
		return sb, nil
	}
	g, err := w.GapExpr.Bind(s)
	if err != nil {
		return nil, err
	}
	switch g.Type().ID() {
	case arrow.STRING:
		if w.ParseGap == nil {
			return nil, fmt.Errorf("session_window: no parser for string gaps")
		}
	case arrow.DURATION:
	default:
		return nil, fmt.Errorf("session_window(%s, %s): the gap must be a string such as \"5 minutes\" or an interval, got %s", w.Time, w.GapExpr, types.Name(g.Type()))
	}
	sb.GapCol = g
	return sb, nil
}

// SessionBound is a resolved SessionWindow. Aggregations merge sessions
// from Intervals; evaluating it as a column gives each row's own interval
// [time, time+gap), before any merge.
type SessionBound struct {
	Def     *SessionWindow
	TimeCol Bound
	GapCol  Bound // nil for a constant gap
	gap     int64
}

// Type is WindowType.
func (w *SessionBound) Type() arrow.DataType { return WindowType }

// Nullable is true.
func (w *SessionBound) Nullable() bool { return true }

// Intervals returns each row's start (its time) and end (time + gap) in
// microseconds; ok[i] is false where the time is null or the gap null or
// not positive.
func (w *SessionBound) Intervals(c *Ctx, rec arrow.RecordBatch) (start, end []int64, ok []bool, err error) {
	in, err := w.TimeCol.Eval(c, rec)
	if err != nil {
		return nil, nil, nil, err
	}
	defer in.Release()
	ts := in.(*array.Timestamp)
	n := ts.Len()
	start, end, ok = make([]int64, n), make([]int64, n), make([]bool, n)
	gapOf := func(int) (int64, bool) { return w.gap, true }
	if w.GapCol != nil {
		g, err := w.GapCol.Eval(c, rec)
		if err != nil {
			return nil, nil, nil, err
		}
		defer g.Release()
		switch col := g.(type) {
		case *array.String:
			gapOf = func(i int) (int64, bool) {
				if col.IsNull(i) {
					return 0, false
				}
				d, err := w.Def.ParseGap(col.Value(i))
				if err != nil {
					return 0, false
				}
				return d.Microseconds(), true
			}
		case *array.Duration:
			gapOf = func(i int) (int64, bool) { return int64(col.Value(i)), col.IsValid(i) }
		case *array.Null:
			gapOf = func(int) (int64, bool) { return 0, false }
		default:
			return nil, nil, nil, fmt.Errorf("session_window: the gap evaluated to %s", g.DataType())
		}
	}
	for i := range n {
		if ts.IsNull(i) {
			continue
		}
		gap, valid := gapOf(i)
		if !valid || gap <= 0 {
			continue
		}
		start[i] = int64(ts.Value(i))
		end[i] = start[i] + gap
		ok[i] = true
	}
	return start, end, ok, nil
}

// Eval builds each row's own session interval as a window struct.
func (w *SessionBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	start, end, ok, err := w.Intervals(c, rec)
	if err != nil {
		return nil, err
	}
	b := array.NewStructBuilder(c.Mem, WindowType)
	defer b.Release()
	sb := b.FieldBuilder(0).(*array.TimestampBuilder)
	eb := b.FieldBuilder(1).(*array.TimestampBuilder)
	for i := range start {
		if !ok[i] {
			b.AppendNull()
			sb.AppendNull()
			eb.AppendNull()
			continue
		}
		b.Append(true)
		sb.Append(arrow.Timestamp(start[i]))
		eb.Append(arrow.Timestamp(end[i]))
	}
	return b.NewArray(), nil
}

// AsSession reports whether b is a session window.
func AsSession(b Bound) (*SessionBound, bool) {
	w, ok := b.(*SessionBound)
	return w, ok
}
