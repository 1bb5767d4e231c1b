package functions

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// timeBucketDefs is time_bucket(bucketSize, ts[, origin]) (Spark 4.2):
// the start of the bucket [start, start + size) holding ts, buckets laid
// end to end from origin (by default 1970-01-01 00:00:00, a wall clock in
// the session time zone for a TIMESTAMP). The size is a positive
// day-time interval; year-month sizes are refused, as Atlas has no
// year-month intervals yet.
func timeBucketDefs() []*Def {
	d := row("time_bucket", "datetime", 2, 3, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if in[0].ID() != arrow.DURATION && in[0].ID() != arrow.NULL {
			return nil, nil, fmt.Errorf("the bucket size must be a day-time interval, got %s (year-month intervals are not supported yet)", types.Name(in[0]))
		}
		out := arrow.DataType(tTimestamp)
		if ts, ok := in[1].(*arrow.TimestampType); ok && ts.TimeZone == "" {
			out = tNTZ
		}
		switch in[1].ID() {
		case arrow.TIMESTAMP, arrow.STRING, arrow.DATE32, arrow.NULL:
		default:
			return nil, nil, unexpectedType(2, "TIMESTAMP", in[1])
		}
		want := []arrow.DataType{nil, out, out}
		return want[:len(in)], out, nil
	}, evalTyped: func(out arrow.DataType, v []any) (any, error) {
		size := v[0].(time.Duration).Microseconds()
		if size <= 0 {
			return nil, fmt.Errorf("time_bucket: the bucket size must be positive, got %d microseconds", size)
		}
		ntz := out.(*arrow.TimestampType).TimeZone == ""
		loc := sessionLoc()
		if !ntz && loc != time.UTC && size%microsPerDay == 0 {
			return nil, fmt.Errorf("time_bucket: buckets of whole days in the session time zone %s are not implemented", loc)
		}
		origin := time.Unix(0, 0).UTC()
		if len(v) == 3 {
			origin = v[2].(time.Time)
		} else if !ntz {
			origin = atZone(origin, loc)
		}
		ts := v[1].(time.Time).UnixMicro()
		o := origin.UnixMicro()
		diff := ts - o
		if (ts >= 0) != (o >= 0) && (diff >= 0) != (ts >= 0) { // ts - o overflowed
			return nil, errLongOverflow()
		}
		start, ok := addMulExact(o, floorDiv(diff, size), size)
		if !ok {
			return nil, errLongOverflow()
		}
		return time.UnixMicro(start).UTC(), nil
	}})
	d.ColumnName = withDefaults(3, "TIMESTAMP '1970-01-01 00:00:00'")
	return []*Def{d}
}
