package conformance

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// HiveRows renders record batches the way spark-sql prints a result (Spark's
// HiveResult.hiveResultString): one line per row, columns separated by a
// tab, timestamps in loc.
func HiveRows(recs []arrow.RecordBatch, loc *time.Location) []string {
	var out []string
	for _, rec := range recs {
		for r := 0; r < int(rec.NumRows()); r++ {
			cells := make([]string, rec.NumCols())
			for c := range cells {
				cells[c] = HiveValue(rec.Column(c), r, true, loc)
			}
			out = append(out, strings.Join(cells, "\t"))
		}
	}
	return out
}

// HiveValue renders row i of a: NULL at the top level and null inside a
// collection; strings in double quotes inside collections only; arrays
// [a,b]; maps {k:v}; structs {"name":v}; decimals in plain notation;
// doubles as Java prints them.
func HiveValue(a arrow.Array, i int, top bool, loc *time.Location) string {
	if a.IsNull(i) || a.DataType().ID() == arrow.NULL { // Arrow's Null arrays have no validity bitmap
		if top {
			return "NULL"
		}
		return "null"
	}
	switch a := a.(type) {
	case *array.String:
		return quoted(a.Value(i), top)
	case *array.LargeString:
		return quoted(a.Value(i), top)
	case *array.StringView:
		return quoted(a.Value(i), top)
	case *array.Binary:
		return quoted(string(a.Value(i)), top)
	case *array.LargeBinary:
		return quoted(string(a.Value(i)), top)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return JavaDouble(float64(a.Value(i)), 32)
	case *array.Float64:
		return JavaDouble(a.Value(i), 64)
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Timestamp:
		return timestampString(a, i, loc)
	case *array.Time64:
		return clockString(time.Duration(int64(a.Value(i)) * unitNanos(a.DataType().(*arrow.Time64Type).Unit)))
	case *array.Duration:
		return dayTimeString(time.Duration(int64(a.Value(i)) * unitNanos(a.DataType().(*arrow.DurationType).Unit)))
	case *array.MonthInterval:
		return yearMonthString(int64(a.Value(i)))
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return calendarIntervalString(v.Months, v.Days, v.Nanoseconds)
	case *array.List:
		start, end := a.ValueOffsets(i)
		return listString(a.ListValues(), start, end, loc)
	case *array.LargeList:
		start, end := a.ValueOffsets(i)
		return listString(a.ListValues(), start, end, loc)
	case *array.Map:
		return mapString(a, i, loc)
	case *array.Struct:
		return structString(a, i, loc)
	}
	return fmt.Sprintf("<%s>", a.DataType())
}

func quoted(s string, top bool) string {
	if top {
		return s
	}
	return `"` + s + `"`
}

func unitNanos(u arrow.TimeUnit) int64 {
	return int64(u.Multiplier())
}

func listString(vals arrow.Array, start, end int64, loc *time.Location) string {
	parts := make([]string, 0, end-start)
	for j := start; j < end; j++ {
		parts = append(parts, HiveValue(vals, int(j), false, loc))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func mapString(a *array.Map, i int, loc *time.Location) string {
	start, end := a.ValueOffsets(i)
	keys, items := a.Keys(), a.Items()
	parts := make([]string, 0, end-start)
	for j := start; j < end; j++ {
		parts = append(parts, HiveValue(keys, int(j), false, loc)+":"+HiveValue(items, int(j), false, loc))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func structString(a *array.Struct, i int, loc *time.Location) string {
	st := a.DataType().(*arrow.StructType)
	parts := make([]string, a.NumField())
	for f := range parts {
		parts[f] = `"` + st.Field(f).Name + `":` + HiveValue(a.Field(f), i, false, loc)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// timestampString prints a timestamp as Spark does: seconds always,
// the fraction only when it is not zero and without trailing zeros. A
// timestamp with a time zone is shown in loc (the session time zone), one
// without (TIMESTAMP_NTZ) as it is.
func timestampString(a *array.Timestamp, i int, loc *time.Location) string {
	tt := a.DataType().(*arrow.TimestampType)
	t := a.Value(i).ToTime(tt.Unit)
	if tt.TimeZone != "" {
		t = t.In(loc)
	} else {
		t = t.UTC()
	}
	return t.Format("2006-01-02 15:04:05") + fraction(t.Nanosecond())
}

func fraction(nanos int) string {
	if nanos == 0 {
		return ""
	}
	return strings.TrimRight(fmt.Sprintf(".%09d", nanos), "0")
}

func clockString(d time.Duration) string {
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s) + fraction(int(d%time.Second))
}

// dayTimeString is Spark's Hive style for a day-time interval: "1 02:03:04.000000000".
func dayTimeString(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second
	return fmt.Sprintf("%s%d %02d:%02d:%02d.%09d", sign, days, h, m, s, d%time.Second)
}

// yearMonthString is Spark's Hive style for a year-month interval: "1-2".
func yearMonthString(months int64) string {
	sign := ""
	if months < 0 {
		sign, months = "-", -months
	}
	return fmt.Sprintf("%s%d-%d", sign, months/12, months%12)
}

// calendarIntervalString is CalendarInterval.toString: "1 years 2 months
// 3 days 4 hours 5 minutes 6.000007 seconds", zero units left out.
func calendarIntervalString(months, days int32, nanos int64) string {
	var parts []string
	add := func(n int64, unit string) {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, unit))
		}
	}
	add(int64(months/12), "years")
	add(int64(months%12), "months")
	add(int64(days), "days")
	micros := nanos / 1000
	add(micros/3_600_000_000, "hours")
	micros %= 3_600_000_000
	add(micros/60_000_000, "minutes")
	micros %= 60_000_000
	if micros != 0 {
		sec := strconv.FormatInt(micros/1_000_000, 10)
		if f := micros % 1_000_000; f != 0 {
			if micros < 0 && micros > -1_000_000 {
				sec = "-0"
			}
			sec += strings.TrimRight(fmt.Sprintf(".%06d", abs(f)), "0")
		}
		parts = append(parts, sec+" seconds")
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	return strings.Join(parts, " ")
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// JavaDouble prints f as Java's Double.toString (Float.toString for
// bits=32): the shortest digits that read back to f, in plain notation for
// magnitudes in [1e-3, 1e7) with at least one fractional digit, otherwise
// as d.dddE[-]n.
func JavaDouble(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // 1.234e+10
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}
