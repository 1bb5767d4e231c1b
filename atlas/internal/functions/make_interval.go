package functions

import (
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
	return []*Def{dt}
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
