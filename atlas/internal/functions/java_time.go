package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// javaField is one of java.time's ChronoFields as LocalDateTime.of
// checks it: its name and its range.
type javaField struct {
	name     string
	min, max int64
	rng      string // ValueRange.toString
}

var (
	fieldYear   = javaField{"Year", -999_999_999, 999_999_999, "-999999999 - 999999999"}
	fieldMonth  = javaField{"MonthOfYear", 1, 12, "1 - 12"}
	fieldDay    = javaField{"DayOfMonth", 1, 31, "1 - 28/31"}
	fieldHour   = javaField{"HourOfDay", 0, 23, "0 - 23"}
	fieldMinute = javaField{"MinuteOfHour", 0, 59, "0 - 59"}
	fieldSecond = javaField{"SecondOfMinute", 0, 59, "0 - 59"}
)

// check is ChronoField.checkValidValue: its DateTimeException message.
func (f javaField) check(v int64) error {
	if v < f.min || v > f.max {
		return fmt.Errorf("Invalid value for %s (valid values %s): %d", f.name, f.rng, v)
	}
	return nil
}

// localDateTime is java.time's LocalDateTime.of(y, mo, d, h, mi, s, ns):
// the wall clock (held in UTC), or the DateTimeException message Java
// gives, checking the fields in Java's order.
func localDateTime(y, mo, d, h, mi, s, ns int64) (time.Time, error) {
	for _, c := range []struct {
		f javaField
		v int64
	}{{fieldYear, y}, {fieldMonth, mo}, {fieldDay, d}} {
		if err := c.f.check(c.v); err != nil {
			return time.Time{}, err
		}
	}
	if d > 28 {
		if dom := int64(daysIn(time.Date(int(y), time.Month(mo), 1, 0, 0, 0, 0, time.UTC))); d > dom {
			if d == 29 {
				return time.Time{}, fmt.Errorf("Invalid date 'February 29' as '%d' is not a leap year", y)
			}
			return time.Time{}, fmt.Errorf("Invalid date '%s %d'", strings.ToUpper(time.Month(mo).String()), d)
		}
	}
	for _, c := range []struct {
		f javaField
		v int64
	}{{fieldHour, h}, {fieldMinute, mi}, {fieldSecond, s}} {
		if err := c.f.check(c.v); err != nil {
			return time.Time{}, err
		}
	}
	return time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(s), int(ns), time.UTC), nil
}

// atZone is java.time's LocalDateTime.atZone(zone).toInstant() for a wall
// clock held in UTC: in a gap (clocks moved forward) the wall clock moves
// forward by the gap's length; in an overlap (clocks moved back) the
// earlier offset wins.
func atZone(wall time.Time, loc *time.Location) time.Time {
	if loc == time.UTC {
		return wall
	}
	u := wall.Unix()
	_, before := time.Unix(u-36*3600, 0).In(loc).Zone()
	_, after := time.Unix(u+36*3600, 0).In(loc).Zone()
	var best time.Time
	for _, off := range []int{before, after} {
		inst := wall.Add(-time.Duration(off) * time.Second)
		if _, o := inst.In(loc).Zone(); o == off && (best.IsZero() || inst.Before(best)) {
			best = inst
		}
	}
	if best.IsZero() { // a gap: the offset before it, which lands after it
		best = wall.Add(-time.Duration(before) * time.Second)
	}
	return best.UTC()
}

// wallIn is the wall clock of instant t in loc, held in UTC.
func wallIn(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	y, mo, d := l.Date()
	return time.Date(y, mo, d, l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}

// zoneArg reads a time zone argument as Spark's DateTimeUtils.getZoneId.
func zoneArg(s string) (*time.Location, error) {
	if loc, ok := expr.ZoneID(s); ok {
		return loc, nil
	}
	return nil, dtError("INVALID_TIMEZONE", "22009", "The timezone: %s is invalid. The timezone must be either a region-based zone ID or a zone offset. Region IDs must have the form 'area/city', such as 'America/Los_Angeles'. Zone offsets must be in the format '(+|-)HH', '(+|-)HH:mm' or '(+|-)HH:mm:ss', e.g '-08', '+01:00' or '-13:33:33', and must be in the range from -18:00 to +18:00. 'Z' and 'UTC' are accepted as synonyms for '+00:00'.", s)
}
