package functions

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// makeIntervalDefs is make_dt_interval(days, hours, mins, secs), Spark's
// MakeDTInterval: a day-time interval from INT days, hours and minutes
// and DECIMAL(18,6) seconds, each defaulting to 0. A total beyond a long
// of microseconds fails with ARITHMETIC_OVERFLOW.
func makeIntervalDefs() []*Def {
	dt := row("make_dt_interval", "datetime", 0, 4, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := make([]arrow.DataType, len(in))
		var err error
		for i, t := range in {
			if i < 3 {
				want[i], err = intFieldWant(i, t)
			} else {
				want[i], err = secFieldWant(i, t, 18)
			}
			if err != nil {
				return nil, nil, err
			}
		}
		return want, types.DayTimeInterval, nil
	}, eval: func(v []any) (any, error) {
		micros := int64(0)
		if len(v) == 4 {
			var err error
			if micros, err = secMicros(v[3], 18); err != nil {
				return nil, err
			}
		}
		for i, unit := range []int64{microsPerDay, microsPerHour, microsPerMinute} {
			if i >= len(v) {
				break
			}
			n, err := intField(v[i])
			if err != nil {
				return nil, err
			}
			var ok bool
			if micros, ok = addMulExact(micros, n, unit); !ok {
				return nil, errLongOverflow()
			}
		}
		return arrow.Duration(micros), nil
	}})
	dt.ColumnName = withDefaults(4, "0", "0", "0", "0.000000")
	return []*Def{dt, makeInterval("make_interval", false), makeInterval("try_make_interval", true)}
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs), Spark's MakeInterval: a calendar interval (Arrow's
// month-day-nanosecond interval) from INT fields and DECIMAL(18,6)
// seconds, each defaulting to 0. Months, days or microseconds beyond
// Spark's int, int and long fail with ARITHMETIC_OVERFLOW, or are NULL
// under try.
func makeInterval(name string, try bool) *Def {
	d := row(name, "datetime", 0, 7, &rowImpl{mayBeNull: try, resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := make([]arrow.DataType, len(in))
		var err error
		for i, t := range in {
			if i < 6 {
				want[i], err = intFieldWant(i, t)
			} else {
				want[i], err = secFieldWant(i, t, 18)
			}
			if err != nil {
				return nil, nil, err
			}
		}
		return want, arrow.FixedWidthTypes.MonthDayNanoInterval, nil
	}, eval: func(v []any) (any, error) {
		iv, overflow, err := calendarInterval(v)
		if overflow != "" {
			if try {
				return nil, nil
			}
			return nil, dtError("ARITHMETIC_OVERFLOW", "22003", "%s overflow. Use 'try_make_interval' to tolerate overflow and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", overflow)
		}
		return iv, err
	}})
	d.ColumnName = withDefaults(7, "0", "0", "0", "0", "0", "0", "0.000000")
	return d
}

// calendarInterval is IntervalUtils.makeInterval over the arguments
// given (the others 0); overflow names the type that overflowed
// ("integer", "long"), err is any other error.
func calendarInterval(v []any) (iv arrow.MonthDayNanoInterval, overflow string, err error) {
	var f [6]int64
	for i := range min(len(v), 6) {
		if f[i], err = intField(v[i]); err != nil {
			return iv, "", err
		}
	}
	micros := int64(0)
	if len(v) == 7 {
		if micros, err = secMicros(v[6], 18); err != nil {
			return iv, "", err
		}
	}
	months, days := f[1]+f[0]*12, f[3]+f[2]*7
	for _, n := range []int64{f[0] * 12, months, f[2] * 7, days} { // Math.multiplyExact, addExact on ints
		if n != int64(int32(n)) {
			return iv, "integer", nil
		}
	}
	var ok bool
	if micros, ok = addMulExact(micros, f[4], microsPerHour); ok {
		micros, ok = addMulExact(micros, f[5], microsPerMinute)
	}
	if !ok {
		return iv, "long", nil
	}
	nanos, ok := addMulExact(0, micros, 1000)
	if !ok {
		return iv, "", fmt.Errorf("%d microseconds are more than Arrow's month-day-nanosecond interval, which carries Spark's calendar intervals in Atlas, holds (about 106,751 days)", micros)
	}
	return arrow.MonthDayNanoInterval{Months: int32(months), Days: int32(days), Nanoseconds: nanos}, "", nil
}

// addMulExact is Math.addExact(acc, Math.multiplyExact(n, unit)); ok is
// false when either overflows a long.
func addMulExact(acc, n, unit int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(absInt(n)), uint64(unit))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	p := int64(lo)
	if n < 0 {
		p = -p
	}
	s := acc + p
	if (p > 0 && s < acc) || (p < 0 && s > acc) {
		return 0, false
	}
	return s, true
}

func absInt(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
