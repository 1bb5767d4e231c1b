package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration the way Spark writes intervals in
// withWatermark, window and triggers ("10 minutes", "5 min", "1 hour
// 30 minutes", "500 milliseconds", "2 seconds") and also Go's syntax
// ("10m", "1h30m").
func ParseDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(strings.ToLower(s))
	in = strings.TrimPrefix(in, "interval ")
	if d, err := time.ParseDuration(in); err == nil {
		return d, nil
	}
	fields := strings.Fields(in)
	if len(fields) == 0 || len(fields)%2 != 0 {
		return 0, fmt.Errorf("cannot parse duration %q: write it like \"10 minutes\" or \"10m\"", s)
	}
	var total time.Duration
	for i := 0; i < len(fields); i += 2 {
		n, err := strconv.ParseFloat(strings.Trim(fields[i], "'"), 64)
		if err != nil {
			return 0, fmt.Errorf("cannot parse duration %q: %q is not a number", s, fields[i])
		}
		unit, ok := units[strings.Trim(fields[i+1], "'")]
		if !ok {
			return 0, fmt.Errorf("cannot parse duration %q: unknown unit %q (use milliseconds, seconds, minutes, hours, days, weeks)", s, fields[i+1])
		}
		total += time.Duration(n * float64(unit))
	}
	return total, nil
}

var units = map[string]time.Duration{}

func init() {
	for names, d := range map[string]time.Duration{
		"microsecond microseconds us":            time.Microsecond,
		"millisecond milliseconds ms msec msecs": time.Millisecond,
		"second seconds sec secs s":              time.Second,
		"minute minutes min mins m":              time.Minute,
		"hour hours h hr hrs":                    time.Hour,
		"day days d":                             24 * time.Hour,
		"week weeks w":                           7 * 24 * time.Hour,
	} {
		for _, n := range strings.Fields(names) {
			units[n] = d
		}
	}
}

// FormatDuration renders a duration Spark's way, e.g. "10 minutes".
func FormatDuration(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{7 * 24 * time.Hour, "week"}, {24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}, {time.Millisecond, "millisecond"}} {
		if d != 0 && d%u.d == 0 {
			n := int64(d / u.d)
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.FormatInt(n, 10) + " " + u.name + "s"
		}
	}
	return d.String()
}
