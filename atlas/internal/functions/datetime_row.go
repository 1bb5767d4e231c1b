package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

var tDate = arrow.FixedWidthTypes.Date32

// dateRowDefs are the date functions of Spark's datetime group evaluated
// a row at a time: a string argument reads as a date (Spark's
// stringToDate), a timestamp as its date in UTC, Atlas's session time zone.
func dateRowDefs() []*Def {
	part := func(name string, f func(time.Time) int, aliases ...string) *Def {
		return row(name, "datetime", 1, 1, &rowImpl{resolve: dateSig(tInt), eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			return int32(f(d)), nil
		}}, aliases...)
	}
	addDays := func(sign int) func(v []any) (any, error) {
		return func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			return d.AddDate(0, 0, sign*int(v[1].(int64))), nil
		}
	}
	diff := &rowImpl{resolve: dateSig(tInt, nil, nil), eval: func(v []any) (any, error) {
		end, err := dateOf(v[0])
		if err != nil {
			return nil, err
		}
		start, err := dateOf(v[1])
		if err != nil {
			return nil, err
		}
		// Days since the epoch: time.Duration would overflow past 292 years.
		return int32(end.Unix()/86400 - start.Unix()/86400), nil
	}}
	return []*Def{
		part("year", time.Time.Year),
		part("month", func(t time.Time) int { return int(t.Month()) }),
		part("day", time.Time.Day),
		part("dayofmonth", time.Time.Day),
		part("dayofweek", func(t time.Time) int { return int(t.Weekday()) + 1 }),
		part("weekday", func(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }),
		part("dayofyear", time.Time.YearDay),
		part("quarter", func(t time.Time) int { return (int(t.Month())-1)/3 + 1 }),
		part("weekofyear", func(t time.Time) int { _, w := t.ISOWeek(); return w }),
		{Name: "date_add", Aliases: []string{"dateadd"}, Group: "datetime", MinArgs: 2, MaxArgs: 2, ColumnName: func(_ string, a []string) string {
			return "date_add(" + strings.Join(a, ", ") + ")"
		}, Build: rowBuild(&rowImpl{resolve: dateSig(tDate, tInt), eval: addDays(1)})},
		row("date_sub", "datetime", 2, 2, &rowImpl{resolve: dateSig(tDate, tInt), eval: addDays(-1)}),
		row("datediff", "datetime", 2, 2, diff),
		row("date_diff", "datetime", 2, 2, diff),
		row("add_months", "datetime", 2, 2, &rowImpl{resolve: dateSig(tDate, tInt), eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			first := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, int(v[1].(int64)), 0)
			return first.AddDate(0, 0, min(d.Day(), daysIn(first))-1), nil
		}}),
		row("last_day", "datetime", 1, 1, &rowImpl{resolve: dateSig(tDate), eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			return time.Date(d.Year(), d.Month(), daysIn(d), 0, 0, 0, 0, time.UTC), nil
		}}),
		row("make_date", "datetime", 3, 3, &rowImpl{resolve: sig(tDate, tInt, tInt, tInt), eval: func(v []any) (any, error) {
			y, m, d := int(v[0].(int64)), int(v[1].(int64)), int(v[2].(int64))
			t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
			if t.Year() != y || int(t.Month()) != m || t.Day() != d || y < 1 || y > 9999 {
				return nil, fmt.Errorf("[DATETIME_FIELD_OUT_OF_BOUNDS] Invalid date: year %d, month %d, day %d. SQLSTATE: 22023", y, m, d)
			}
			return t, nil
		}}),
	}
}

func daysIn(t time.Time) int {
	return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// dateSig keeps a date, reads a timestamp as a date and a string as
// text parsed by dateOf; the other arguments are cast to rest.
func dateSig(out arrow.DataType, rest ...arrow.DataType) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := make([]arrow.DataType, len(in))
		for i, t := range in {
			if i > 0 && i-1 < len(rest) && rest[i-1] != nil {
				want[i] = rest[i-1]
				continue
			}
			switch t.ID() {
			case arrow.DATE32, arrow.STRING, arrow.NULL:
			case arrow.TIMESTAMP:
				want[i] = tDate
			default:
				return nil, nil, fmt.Errorf("argument %d requires a date, got %s", i+1, t)
			}
		}
		return want, out, nil
	}
}

// dateOf reads a date argument: a date, or a string as Spark's stringToDate.
func dateOf(v any) (time.Time, error) {
	if t, ok := v.(time.Time); ok {
		return t, nil
	}
	d, err := toDate([]any{v})
	if err != nil {
		return time.Time{}, err
	}
	return d.(time.Time), nil
}
