package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tz"
)

// datetimeZoneDefs are the functions moving timestamps between zones:
// from_utc_timestamp,
// to_utc_timestamp (Spark's DateTimeUtils.fromUTCTime/toUTCTime) and
// convert_timezone (of a TIMESTAMP_NTZ).
func datetimeZoneDefs() []*Def {
	tsZone := func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		switch in[0].ID() {
		case arrow.TIMESTAMP, arrow.STRING, arrow.DATE32, arrow.NULL:
		default:
			return nil, nil, fmt.Errorf("argument 1 requires a timestamp, got %s", in[0])
		}
		return []arrow.DataType{tTimestamp, tString}, tTimestamp, nil
	}
	return []*Def{
		row("from_utc_timestamp", "datetime", 2, 2, &rowImpl{resolve: tsZone, evalZone: func(_ *time.Location, v []any) (any, error) {
			to, err := zoneArg(v[1].(string))
			if err != nil {
				return nil, err
			}
			return convertTz(v[0].(time.Time), time.UTC, to), nil
		}}),
		row("to_utc_timestamp", "datetime", 2, 2, &rowImpl{resolve: tsZone, evalZone: func(_ *time.Location, v []any) (any, error) {
			from, err := zoneArg(v[1].(string))
			if err != nil {
				return nil, err
			}
			return convertTz(v[0].(time.Time), from, time.UTC), nil
		}}),
		convertTimezone(),
	}
}

// currentTimezone is current_timezone() (registered in current.go) as the
// implicit first argument of convert_timezone.
var currentTimezone = &rowImpl{resolve: sig(tString), evalZone: func(loc *time.Location, _ []any) (any, error) {
	return loc.String(), nil
}}

// convertTz is Spark's DateTimeUtils.convertTz: the wall-clock time of t
// in to, read as a wall-clock time in from.
func convertTz(t time.Time, from, to *time.Location) time.Time {
	w := t.In(to)
	wall := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC)
	return tz.LocalToInstant(wall, from)
}

// convertTimezone is convert_timezone([sourceTz, ]targetTz, sourceTs):
// the wall-clock time sourceTs (a TIMESTAMP_NTZ) of sourceTz (the
// session time zone when left out) as a wall-clock time of targetTz.
func convertTimezone() *Def {
	impl := &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		last := in[len(in)-1]
		if last.ID() == arrow.TIMESTAMP && last.(*arrow.TimestampType).TimeZone != "" {
			return nil, nil, fmt.Errorf("the source timestamp must be a TIMESTAMP_NTZ, got timestamp; Atlas does not convert TIMESTAMP (LTZ) values with convert_timezone")
		}
		want := make([]arrow.DataType, len(in))
		for i := range in[:len(in)-1] {
			want[i] = tString
		}
		want[len(in)-1] = tNTZ
		return want, tNTZ, nil
	}, evalZone: func(loc *time.Location, v []any) (any, error) {
		from := loc
		if len(v) == 3 {
			var err error
			if from, err = zoneArg(v[0].(string)); err != nil {
				return nil, err
			}
		}
		to, err := zoneArg(v[len(v)-2].(string))
		if err != nil {
			return nil, err
		}
		// A TIMESTAMP_NTZ holds its wall-clock time as if in UTC.
		w := v[len(v)-1].(time.Time).UTC()
		out := tz.LocalToInstant(time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC), from).In(to)
		return time.Date(out.Year(), out.Month(), out.Day(), out.Hour(), out.Minute(), out.Second(), out.Nanosecond(), time.UTC), nil
	}}
	return &Def{Name: "convert_timezone", Group: "datetime", MinArgs: 2, MaxArgs: 3,
		// Spark names the two-argument form with its source zone filled in.
		ColumnName: func(name string, a []string) string {
			if len(a) == 2 {
				a = append([]string{"current_timezone()"}, a...)
			}
			return name + "(" + strings.Join(a, ", ") + ")"
		},
		Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			if len(a) == 2 {
				a = append([]expr.Expr{&rowCall{name: "current_timezone", impl: currentTimezone}}, a...)
			}
			return &rowCall{name: called, args: a, impl: impl}, nil
		}}
}
