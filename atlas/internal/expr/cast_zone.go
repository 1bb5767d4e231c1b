package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// isZoneCast reports the casts whose result depends on the session time
// zone beyond text: a timestamp to a date (the date of the instant there)
// and a date to a timestamp (its midnight there).
func isZoneCast(from, to arrow.DataType) bool {
	return (from.ID() == arrow.TIMESTAMP && to.ID() == arrow.DATE32) || (from.ID() == arrow.DATE32 && to.ID() == arrow.TIMESTAMP)
}

// castZoned is a cast isZoneCast reports, in the session time zone, as
// Spark's DateTimeUtils.microsToDays and daysToMicros.
func castZoned(c *Ctx, in arrow.Array, t arrow.DataType) arrow.Array {
	loc := c.Zone()
	if ts, ok := in.(*array.Timestamp); ok {
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
	d := in.(*array.Date32)
	tt := t.(*arrow.TimestampType)
	b := array.NewTimestampBuilder(c.Mem, tt)
	defer b.Release()
	b.Reserve(d.Len())
	for i := 0; i < d.Len(); i++ {
		if d.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, err := arrow.TimestampFromTime(LocalToInstant(d.Value(i).ToTime(), loc), tt.Unit)
		if err != nil {
			b.AppendNull()
			continue
		}
		b.Append(v)
	}
	return b.NewArray()
}
