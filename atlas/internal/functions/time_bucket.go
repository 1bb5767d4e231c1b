package functions

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// timeBucketDefs is time_bucket(bucketSize, ts[, origin]) (Spark 4.2):
// the start of the bucket [start, start + size) holding ts, buckets laid
// end to end from origin (by default 1970-01-01 00:00:00, a wall clock in
// the session time zone for a TIMESTAMP, in UTC for a TIMESTAMP_NTZ).
// The size is a positive day-time interval; year-month sizes are
// refused, as Atlas has no year-month intervals yet.
func timeBucketDefs() []*Def {
	ltz, ntz := timeBucket(tTimestamp), timeBucket(tNTZ)
	return []*Def{{Name: "time_bucket", Group: "datetime", MinArgs: 2, MaxArgs: 3,
		ColumnName: withDefaults(3, "TIMESTAMP '1970-01-01 00:00:00'"),
		Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			return &timeBucketCall{ltz: &rowCall{name: called, args: a, impl: ltz}, ntz: &rowCall{name: called, args: a, impl: ntz}}, nil
		}}}
}

// timeBucketCall binds to the TIMESTAMP or the TIMESTAMP_NTZ bucketing by
// the type of ts.
type timeBucketCall struct{ ltz, ntz *rowCall }

func (c *timeBucketCall) String() string { return c.ltz.String() }

// Bind picks the bucketing by the type of ts.
func (c *timeBucketCall) Bind(s *arrow.Schema) (expr.Bound, error) {
	ts, err := c.ltz.args[1].Bind(s)
	if err != nil {
		return nil, err
	}
	if t, ok := ts.Type().(*arrow.TimestampType); ok && t.TimeZone == "" {
		return c.ntz.Bind(s)
	}
	return c.ltz.Bind(s)
}

// timeBucket buckets timestamps of type out (TIMESTAMP or TIMESTAMP_NTZ).
func timeBucket(out *arrow.TimestampType) *rowImpl {
	ntz := out.TimeZone == ""
	return &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if in[0].ID() != arrow.DURATION && in[0].ID() != arrow.NULL {
			return nil, nil, fmt.Errorf("the bucket size must be a day-time interval, got %s (year-month intervals are not supported yet)", types.Name(in[0]))
		}
		switch in[1].ID() {
		case arrow.TIMESTAMP, arrow.STRING, arrow.DATE32, arrow.NULL:
		default:
			return nil, nil, unexpectedType(2, "TIMESTAMP", in[1])
		}
		want := []arrow.DataType{nil, out, out}
		return want[:len(in)], out, nil
	}, evalZone: func(loc *time.Location, v []any) (any, error) {
		size := v[0].(time.Duration).Microseconds()
		if size <= 0 {
			return nil, fmt.Errorf("time_bucket: the bucket size must be positive, got %d microseconds", size)
		}
		if !ntz && loc != time.UTC && size >= microsPerDay {
			return nil, fmt.Errorf("time_bucket: buckets of a day or more in the session time zone %s (aligned to its calendar days) are not implemented", loc)
		}
		origin := time.Unix(0, 0).UTC()
		if len(v) == 3 {
			origin = v[2].(time.Time)
		} else if !ntz {
			origin = atZone(origin, loc)
		}
		ts, o := v[1].(time.Time).UnixMicro(), origin.UnixMicro()
		diff := ts - o
		if (ts >= 0) != (o >= 0) && (diff >= 0) != (ts >= 0) { // ts - o overflowed
			return nil, errLongOverflow()
		}
		start, ok := addMulExact(o, floorDiv(diff, size), size)
		if !ok {
			return nil, errLongOverflow()
		}
		return time.UnixMicro(start).UTC(), nil
	}}
}
