package functions

import (
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// dateNameDefs are dayname, monthname, next_day and months_between.
func dateNameDefs() []*Def {
	mb := row("months_between", "datetime", 2, 3, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		return []arrow.DataType{tTimestamp, tTimestamp, tBool}[:len(in)], tDouble, nil
	}, evalZone: func(loc *time.Location, v []any) (any, error) {
		round := len(v) < 3 || v[2].(bool)
		return monthsBetween(v[0].(time.Time), v[1].(time.Time), round, loc), nil
	}})
	mb.ColumnName = withDefaults(3, "true")
	return []*Def{
		row("dayname", "datetime", 1, 1, &rowImpl{resolve: dateSig(tString), eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			return d.Weekday().String()[:3], nil
		}}),
		row("monthname", "datetime", 1, 1, &rowImpl{resolve: dateSig(tString), eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			return d.Month().String()[:3], nil
		}}),
		row("next_day", "datetime", 2, 2, &rowImpl{resolve: dateSig(tDate, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			d, err := dateOf(v[0])
			if err != nil {
				return nil, err
			}
			dow, ok := dayOfWeek(v[1].(string))
			if !ok {
				return nil, dtError("ILLEGAL_DAY_OF_WEEK", "22009", "Illegal input for day of week: %s.", v[1])
			}
			ahead := (int(dow) - int(d.Weekday()) + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			return d.AddDate(0, 0, ahead), nil
		}}),
		mb,
	}
}

// dayOfWeek is DateTimeUtils.getDayOfWeekFromString: SU, SUN, SUNDAY, ...
// in any case.
func dayOfWeek(s string) (time.Weekday, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	for d := time.Sunday; d <= time.Saturday; d++ {
		full := strings.ToUpper(d.String())
		if s == full || s == full[:3] || s == full[:2] {
			return d, true
		}
	}
	return 0, false
}

// monthsBetween is DateTimeUtils.monthsBetween: whole months when the
// days of month match or both are the last of their month, otherwise the
// difference of the days and times counted in months of 31 days; rounded
// to 8 digits when round (Math.round: half up).
func monthsBetween(t1, t2 time.Time, round bool, loc *time.Location) float64 {
	w1, w2 := wallIn(t1, loc), wallIn(t2, loc)
	months := float64((w1.Year()*12 + int(w1.Month())) - (w2.Year()*12 + int(w2.Month())))
	last1, last2 := w1.Day() == daysIn(w1), w2.Day() == daysIn(w2)
	if w1.Day() == w2.Day() || (last1 && last2) {
		return months
	}
	secs := func(w time.Time) int64 { return int64(w.Hour()*3600 + w.Minute()*60 + w.Second()) }
	diff := int64(w1.Day()-w2.Day())*86400 + secs(w1) - secs(w2)
	r := months + float64(diff)/float64(31*86400)
	if round {
		return math.Floor(r*1e8+0.5) / 1e8
	}
	return r
}
