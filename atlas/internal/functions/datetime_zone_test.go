package functions_test

import (
	"strings"
	"testing"
)

// TestCalendarIntervalsAndZones checks make_interval, try_make_interval,
// the zone conversions and time_bucket against values computed by hand from Spark's
// IntervalUtils.makeInterval and DateTimeUtils.convertTz (session time
// zone UTC), with NULLs, overflow and invalid zones.
func TestCalendarIntervalsAndZones(t *testing.T) {
	for _, c := range []struct{ q, typ, val string }{
		// 100 years 11 months = 1211 months; 1 week 1 day = 8 days; 12:30:01.001001.
		{"make_interval(100, 11, 1, 1, 12, 30, 01.001001)", "interval", "1211 months 8 days 45001001001000 ns"},
		{"make_interval(0, 1, 0, 1, 0, 0, 100.000001)", "interval", "1 months 1 days 100000001000 ns"},
		{"make_interval()", "interval", "0 months 0 days 0 ns"},
		{"make_interval(-1, 0, 0, 0, 0, -1)", "interval", "-12 months 0 days -60000000000 ns"},
		{"make_interval(100, null, 3)", "interval", "NULL"},
		{"try_make_interval(2147483647)", "interval", "NULL"},
		{"try_make_interval(0, 0, 306783379)", "interval", "NULL"}, // 306783379 weeks are more days than an int holds
		{"try_make_interval(1, 2)", "interval", "14 months 0 days 0 ns"},

		// 2016-08-31 00:00 UTC is 09:00 in Seoul (UTC+9).
		{"from_utc_timestamp('2016-08-31', 'Asia/Seoul')", "timestamp", "2016-08-31 09:00:00"},
		{"to_utc_timestamp('2016-08-31', 'Asia/Seoul')", "timestamp", "2016-08-30 15:00:00"},
		{"from_utc_timestamp(NULL, 'Asia/Seoul')", "timestamp", "NULL"},
		// Brussels is UTC+1 in December, Los Angeles UTC-8.
		{"convert_timezone('Europe/Brussels', 'America/Los_Angeles', TIMESTAMP '2021-12-06 00:00:00')", "timestamp_ntz", "2021-12-05 15:00:00"},
		{"convert_timezone('Europe/Brussels', TIMESTAMP '2021-12-05 15:00:00')", "timestamp_ntz", "2021-12-05 16:00:00"},
		{"convert_timezone('+05:30', 'UTC', TIMESTAMP '2021-12-06 00:00:00')", "timestamp_ntz", "2021-12-05 18:30:00"},

		{"time_bucket(INTERVAL '15' MINUTE, TIMESTAMP '2024-01-01 11:27:00')", "timestamp", "2024-01-01 11:15:00"},
		{"time_bucket(INTERVAL '1' HOUR, TIMESTAMP '1969-12-31 23:30:00')", "timestamp", "1969-12-31 23:00:00"},
		{"time_bucket(INTERVAL '7' DAY, TIMESTAMP '2024-01-10 08:00:00', TIMESTAMP '2024-01-01 00:00:00')", "timestamp", "2024-01-08 00:00:00"},
		{"time_bucket(INTERVAL '1' HOUR, TIMESTAMP '2024-01-01 10:30:00', TIMESTAMP '2024-01-01 11:15:00')", "timestamp", "2024-01-01 10:15:00"},
		{"time_bucket(INTERVAL '1' HOUR, CAST(NULL AS TIMESTAMP))", "timestamp", "NULL"},
	} {
		_, typ, val, err := cell(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if typ != c.typ || val != c.val {
			t.Errorf("%s = %s %s, want %s %s", c.q, typ, val, c.typ, c.val)
		}
	}
	for q, want := range map[string]string{
		"make_interval(2147483647)":                                            "[ARITHMETIC_OVERFLOW] integer overflow. Use 'try_make_interval'",
		"make_interval(0, 0, 0, 0, 2562047789)":                                "[CAST_OVERFLOW]",
		"make_interval(0, 0, 0, 0, 2147483647, 2147483647, 9999999999.999999)": "microseconds are more than Arrow's month-day-nanosecond interval",
		"try_make_interval(0, 0, 0, 0, 0, 0, 1000000000000)":                   "[NUMERIC_VALUE_OUT_OF_RANGE",
		"from_utc_timestamp('2016-08-31', 'Mars/Olympus')":                     "[INVALID_TIMEZONE] The timezone: Mars/Olympus is invalid",
		"convert_timezone('Nowhere', 'UTC', TIMESTAMP '2021-12-06 00:00:00')":  "[INVALID_TIMEZONE]",
		"time_bucket(INTERVAL '-1' HOUR, TIMESTAMP '2024-01-01 10:30:00')":     "the bucket size must be positive",
		"time_bucket(1, TIMESTAMP '2024-01-01 10:30:00')":                      "the bucket size must be a day-time interval",
	} {
		_, _, val, err := cell(t, q)
		if err == nil {
			t.Errorf("%s = %s, want the error %s", q, val, want)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
	for q, want := range map[string]string{
		"make_interval(100, null, 3)":                                          "make_interval(100, NULL, 3, 0, 0, 0, 0.000000)",
		"try_make_interval(2147483647)":                                        "try_make_interval(2147483647, 0, 0, 0, 0, 0, 0.000000)",
		"convert_timezone('Europe/Brussels', TIMESTAMP '2021-12-05 15:00:00')": "convert_timezone(current_timezone(), Europe/Brussels, TIMESTAMP '2021-12-05 15:00:00')",
	} {
		if name, _, _, err := cell(t, q); err != nil || name != want {
			t.Errorf("%s is named %q (%v), want %q", q, name, err, want)
		}
	}
}
