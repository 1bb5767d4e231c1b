package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// bindInterval handles the operators Spark defines on timestamps and
// day-time intervals: timestamp ± interval is a timestamp, timestamp -
// timestamp an interval (Spark 3.x+), interval ± interval an interval. It
// returns ok=false when neither side is an interval nor both timestamps.
func bindInterval(op string, text fmt.Stringer, l, r Bound) (Bound, bool, error) {
	lt, rt := l.Type().ID(), r.Type().ID()
	if lt != arrow.DURATION && rt != arrow.DURATION && !(lt == arrow.TIMESTAMP && rt == arrow.TIMESTAMP) {
		return nil, false, nil
	}
	b := &intervalBound{text: text, l: l, r: r}
	switch {
	case op == "+" && lt == arrow.TIMESTAMP && rt == arrow.DURATION,
		op == "-" && lt == arrow.TIMESTAMP && rt == arrow.DURATION:
		b.l, b.typ = castTo(l, types.Timestamp), types.Timestamp
	case op == "+" && lt == arrow.DURATION && rt == arrow.TIMESTAMP:
		b.l, b.r, b.typ = r, l, types.Timestamp // ts + interval
		b.r = castTo(l, types.DayTimeInterval)
		b.l = castTo(r, types.Timestamp)
	case op == "-" && lt == arrow.TIMESTAMP && rt == arrow.TIMESTAMP:
		b.l, b.r, b.typ = castTo(l, types.Timestamp), castTo(r, types.Timestamp), types.DayTimeInterval
	case (op == "+" || op == "-") && lt == arrow.DURATION && rt == arrow.DURATION:
		b.typ = types.DayTimeInterval
	case op != "+" && op != "-" && op != "*" && op != "/" && op != "%" && lt == rt:
		return nil, false, nil // comparisons: the common path
	default:
		return nil, true, fmt.Errorf("%s: operator %s is not defined for %s and %s (timestamp ± interval, timestamp - timestamp and interval ± interval are)", text, op, types.Name(l.Type()), types.Name(r.Type()))
	}
	b.neg = op == "-"
	return b, true, nil
}

type intervalBound struct {
	text fmt.Stringer
	l, r Bound
	neg  bool
	typ  arrow.DataType
}

func (b *intervalBound) Type() arrow.DataType { return b.typ }
func (b *intervalBound) Nullable() bool       { return true }
func (b *intervalBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	la, err := b.l.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ra, err := b.r.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	lv, rv := int64Micros(la), int64Micros(ra)
	n := int(rec.NumRows())
	var out array.Builder
	var put func(int64)
	if b.typ.ID() == arrow.TIMESTAMP {
		tb := array.NewTimestampBuilder(c.Mem, types.Timestamp)
		out, put = tb, func(v int64) { tb.Append(arrow.Timestamp(v)) }
	} else {
		db := array.NewDurationBuilder(c.Mem, types.DayTimeInterval)
		out, put = db, func(v int64) { db.Append(arrow.Duration(v)) }
	}
	defer out.Release()
	for i := 0; i < n; i++ {
		if la.IsNull(i) || ra.IsNull(i) {
			out.AppendNull()
			continue
		}
		x, y := lv(i), rv(i)
		if b.neg {
			y = -y
		}
		s := x + y
		if (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0) {
			return nil, fmt.Errorf("[DATETIME_OVERFLOW] %s overflows at row %d", b.text, i)
		}
		put(s)
	}
	return out.NewArray(), nil
}

// int64Micros reads a timestamp(us) or duration(us) column as int64.
func int64Micros(a arrow.Array) func(int) int64 {
	switch x := a.(type) {
	case *array.Timestamp:
		return func(i int) int64 { return int64(x.Value(i)) }
	case *array.Duration:
		return func(i int) int64 { return int64(x.Value(i)) }
	}
	return func(int) int64 { return 0 }
}
