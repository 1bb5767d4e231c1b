package functions

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// zoneConvertDefs are from_utc_timestamp and to_utc_timestamp (Spark's
// DateTimeUtils.convertTz between UTC and a zone) and convert_timezone
// (a TIMESTAMP_NTZ wall clock moved from one zone to another; without a
// source zone, from the session time zone).
func zoneConvertDefs() []*Def {
	tsAndZone := func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		switch in[0].ID() {
		case arrow.TIMESTAMP, arrow.STRING, arrow.DATE32, arrow.NULL:
		default:
			return nil, nil, unexpectedType(1, "TIMESTAMP", in[0])
		}
		return []arrow.DataType{tTimestamp, tString}, tTimestamp, nil
	}
	convert := row("convert_timezone", "datetime", 2, 3, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := make([]arrow.DataType, len(in))
		for i := range len(in) - 1 {
			want[i] = tString
		}
		switch ts := in[len(in)-1]; ts.ID() {
		case arrow.TIMESTAMP, arrow.STRING, arrow.DATE32, arrow.NULL:
			want[len(in)-1] = tNTZ
		default:
			return nil, nil, unexpectedType(len(in), "TIMESTAMP_NTZ", ts)
		}
		return want, tNTZ, nil
	}, evalZone: func(loc *time.Location, v []any) (any, error) {
		from, to := loc, time.UTC
		var err error
		if len(v) == 3 {
			if from, err = zoneArg(v[0].(string)); err != nil {
				return nil, err
			}
		}
		if to, err = zoneArg(v[len(v)-2].(string)); err != nil {
			return nil, err
		}
		return wallIn(atZone(v[len(v)-1].(time.Time), from), to), nil
	}})
	convert.ColumnName = func(called string, a []string) string {
		if len(a) == 2 {
			a = append([]string{"current_timezone()"}, a...)
		}
		return plainName(called, a)
	}
	return []*Def{
		row("from_utc_timestamp", "datetime", 2, 2, &rowImpl{resolve: tsAndZone, eval: func(v []any) (any, error) {
			loc, err := zoneArg(v[1].(string))
			if err != nil {
				return nil, err
			}
			return wallIn(v[0].(time.Time), loc), nil // the UTC wall clock read in the zone
		}}),
		row("to_utc_timestamp", "datetime", 2, 2, &rowImpl{resolve: tsAndZone, eval: func(v []any) (any, error) {
			loc, err := zoneArg(v[1].(string))
			if err != nil {
				return nil, err
			}
			return atZone(v[0].(time.Time), loc), nil // the zone's wall clock read in UTC
		}}),
		convert,
	}
}
