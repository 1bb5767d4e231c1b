package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tz"
)

// datetimeMoreDefs are date_trunc, trunc and date_part/datepart over
// dates and timestamps (a timestamp's fields in the session time zone).
func datetimeMoreDefs() []*Def {
	return []*Def{
		row("date_trunc", "datetime", 2, 2, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			return []arrow.DataType{tString, types.Timestamp}, types.Timestamp, nil
		}, mayBeNull: true, eval: func(v []any) (any, error) {
			return truncTime(v[1].(time.Time), v[0].(string), false), nil
		}}),
		row("trunc", "datetime", 2, 2, &rowImpl{resolve: dateSig(tDate, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			return truncTime(d, v[1].(string), true), nil
		}}),
		withIntervals(datePart("date_part", func(f string, a []string) string { return "date_part(" + f + ", " + a[1] + ")" })),
		withIntervals(datePart("datepart", func(f string, a []string) string { return "datepart(" + f + " FROM " + a[1] + ")" })),
	}
}

// truncTime is Spark's DateTimeUtils.truncTimestamp/truncDate: the start
// of the unit holding t, in t's location (the session time zone for a
// timestamp, UTC for a date), or nil for a unit Spark does not know (dates
// take YEAR to WEEK only). A start that falls in a gap of the zone
// resolves as Java does (tz.LocalToInstant).
func truncTime(t time.Time, unit string, dateOnly bool) any {
	loc := t.Location()
	y, m, d := t.Date()
	at := func(y int, m time.Month, d, h, mi, s, ns int) time.Time {
		return tz.LocalToInstant(time.Date(y, m, d, h, mi, s, ns, time.UTC), loc)
	}
	switch strings.ToUpper(strings.TrimSpace(unit)) {
	case "YEAR", "YYYY", "YY":
		return at(y, 1, 1, 0, 0, 0, 0)
	case "QUARTER":
		return at(y, (m-1)/3*3+1, 1, 0, 0, 0, 0)
	case "MONTH", "MM", "MON":
		return at(y, m, 1, 0, 0, 0, 0)
	case "WEEK":
		back := (int(t.Weekday()) + 6) % 7 // back to Monday
		return at(y, m, d-back, 0, 0, 0, 0)
	}
	if dateOnly {
		return nil
	}
	h := t.Hour()
	switch strings.ToUpper(strings.TrimSpace(unit)) {
	case "DAY", "DD":
		return at(y, m, d, 0, 0, 0, 0)
	case "HOUR":
		return at(y, m, d, h, 0, 0, 0)
	case "MINUTE":
		return t.Truncate(time.Minute)
	case "SECOND":
		return t.Truncate(time.Second)
	case "MILLISECOND":
		return t.Truncate(time.Millisecond)
	case "MICROSECOND":
		return t.Truncate(time.Microsecond)
	}
	return nil
}

// datePart is date_part(field, source) for a date or timestamp source:
// the integer fields of Spark's DatePart, and SECOND as a DECIMAL(8,6)
// with the microseconds (secondsPart). Interval sources are refused.
func datePart(name string, col func(field string, args []string) string) *Def {
	d := row(name, "datetime", 2, 2, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		switch in[1].ID() {
		case arrow.DATE32, arrow.TIMESTAMP, arrow.NULL:
		case arrow.STRING:
			return []arrow.DataType{tString, types.Timestamp}, tInt, nil
		default:
			return nil, nil, fmt.Errorf("%s of %s is not supported: Atlas extracts fields of dates and timestamps only", name, types.Name(in[1]))
		}
		return []arrow.DataType{tString, nil}, tInt, nil
	}, eval: func(v []any) (any, error) {
		t := v[1].(time.Time) // in the session time zone (rowBound)
		field := strings.ToUpper(strings.TrimSpace(v[0].(string)))
		switch field {
		case "YEAR", "Y", "YEARS", "YR", "YRS":
			return int32(t.Year()), nil
		case "YEAROFWEEK":
			y, _ := t.ISOWeek()
			return int32(y), nil
		case "QUARTER", "QTR":
			return int32((int(t.Month())-1)/3 + 1), nil
		case "MONTH", "MON", "MONS", "MONTHS":
			return int32(t.Month()), nil
		case "WEEK", "W", "WEEKS":
			_, w := t.ISOWeek()
			return int32(w), nil
		case "DAY", "D", "DAYS":
			return int32(t.Day()), nil
		case "DAYOFWEEK", "DOW":
			return int32(t.Weekday()) + 1, nil
		case "DAYOFWEEK_ISO", "DOW_ISO":
			return int32((int(t.Weekday())+6)%7 + 1), nil
		case "DOY":
			return int32(t.YearDay()), nil
		case "HOUR", "H", "HOURS", "HR", "HRS":
			return int32(t.Hour()), nil
		case "MINUTE", "M", "MIN", "MINS", "MINUTES":
			return int32(t.Minute()), nil
		}
		if isSecondsField(field) {
			return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: %s(%s, ...): the SECOND field (a DECIMAL(8,6)) must be a literal. SQLSTATE: 0A000", name, v[0])
		}
		return nil, fmt.Errorf("[INVALID_EXTRACT_FIELD] Cannot extract %s from %s. SQLSTATE: 42601", v[0], name)
	}})
	d.ColumnName = func(_ string, a []string) string { return col(a[0], a) }
	build := d.Build
	d.Build = func(called string, a []expr.Expr) (expr.Expr, error) {
		f, err := stringLit(called, a, 0, "the field")
		if err == nil && isSecondsField(f) {
			return &rowCall{name: called, args: a, impl: secondsPart}, nil
		}
		other, berr := build(called, a)
		if err != nil || berr != nil {
			return other, berr
		}
		return &ymPart{field: f, arg: a[1], other: other}, nil
	}
	return d
}

// isSecondsField reports Spark's names of the SECOND field.
func isSecondsField(f string) bool {
	switch strings.ToUpper(strings.TrimSpace(f)) {
	case "SECOND", "S", "SEC", "SECONDS", "SECS":
		return true
	}
	return false
}

// secondsPart is date_part('SECOND', ts): the seconds with their
// microseconds, a DECIMAL(8,6) as Spark's SecondWithFraction.
var secondsPart = &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	out := types.Decimal(8, 6)
	switch in[1].ID() {
	case arrow.DATE32, arrow.TIMESTAMP, arrow.NULL:
	case arrow.STRING:
		return []arrow.DataType{tString, types.Timestamp}, out, nil
	default:
		return nil, nil, fmt.Errorf("extracting the seconds of %s is not supported: Atlas extracts fields of dates and timestamps only", types.Name(in[1]))
	}
	return []arrow.DataType{tString, nil}, out, nil
}, eval: func(v []any) (any, error) {
	t := v[1].(time.Time)
	us := int64(t.Second())*1_000_000 + int64(t.Nanosecond()/1000)
	return expr.Decimal{Unscaled: decimal128.FromI64(us), Precision: 8, Scale: 6}, nil
}}
