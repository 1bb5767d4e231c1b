package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// isNTZ reports Spark's TIMESTAMP_NTZ: an Arrow timestamp without a zone.
func isNTZ(t arrow.DataType) bool {
	ts, ok := t.(*arrow.TimestampType)
	return ok && ts.TimeZone == ""
}

// isZoneCast reports the casts whose result depends on the session time
// zone beyond text, as Spark's Cast does them: a timestamp to a date (the
// date of the instant there) and a date to a timestamp (its midnight
// there), and between TIMESTAMP (an instant) and TIMESTAMP_NTZ (a wall
// clock: the instant's wall clock there, the instant of the wall clock
// there). A date and a TIMESTAMP_NTZ convert through the wall clock alone,
// which this cast also does.
func isZoneCast(from, to arrow.DataType) bool {
	switch {
	case from.ID() == arrow.TIMESTAMP && to.ID() == arrow.DATE32, from.ID() == arrow.DATE32 && to.ID() == arrow.TIMESTAMP:
		return true
	case from.ID() == arrow.TIMESTAMP && to.ID() == arrow.TIMESTAMP:
		return isNTZ(from) != isNTZ(to)
	}
	return false
}

// castZoned is a cast isZoneCast reports, as Spark's DateTimeUtils
// microsToDays, daysToMicros, convertTz to and from the session time zone.
func castZoned(c *Ctx, in arrow.Array, t arrow.DataType) arrow.Array {
	loc := c.Zone()
	if isNTZ(in.DataType()) {
		loc = time.UTC // its fields are its wall clock
	}
	if t.ID() == arrow.DATE32 {
		ts := in.(*array.Timestamp)
		unit := ts.DataType().(*arrow.TimestampType).Unit
		b := array.NewDate32Builder(c.Mem)
		defer b.Release()
		b.Reserve(ts.Len())
		for i := 0; i < ts.Len(); i++ {
			if ts.IsNull(i) {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Date32FromTime(CivilDate(ts.Value(i).ToTime(unit), loc)))
		}
		return b.NewArray()
	}
	tt := t.(*arrow.TimestampType)
	toLoc := c.Zone()
	if isNTZ(tt) {
		toLoc = time.UTC
	}
	wallOf := func(i int) (time.Time, bool) {
		switch a := in.(type) {
		case *array.Date32:
			return a.Value(i).ToTime(), true
		case *array.Timestamp:
			w := a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).In(loc)
			return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC), true
		}
		return time.Time{}, false
	}
	b := array.NewTimestampBuilder(c.Mem, tt)
	defer b.Release()
	b.Reserve(in.Len())
	for i := 0; i < in.Len(); i++ {
		w, ok := wallOf(i)
		if in.IsNull(i) || !ok {
			b.AppendNull()
			continue
		}
		v, err := arrow.TimestampFromTime(LocalToInstant(w, toLoc), tt.Unit)
		if err != nil {
			b.AppendNull()
			continue
		}
		b.Append(v)
	}
	return b.NewArray()
}
