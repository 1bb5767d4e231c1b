package functions

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// epochDefs convert between timestamps or dates and counts since the
// Unix epoch: timestamp_seconds/millis/micros, unix_seconds/millis/micros,
// unix_date and date_from_unix_date. None depends on the time zone.
func epochDefs() []*Def {
	return []*Def{
		row("timestamp_seconds", "datetime", 1, 1, &rowImpl{resolve: secondsToTimestampSig, eval: secondsToTimestamp}),
		row("timestamp_millis", "datetime", 1, 1, integralToTimestamp(1000)),
		row("timestamp_micros", "datetime", 1, 1, integralToTimestamp(1)),
		row("unix_seconds", "datetime", 1, 1, timestampToLong(1_000_000)),
		row("unix_millis", "datetime", 1, 1, timestampToLong(1000)),
		row("unix_micros", "datetime", 1, 1, timestampToLong(1)),
		row("unix_date", "datetime", 1, 1, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			if in[0].ID() != arrow.DATE32 && in[0].ID() != arrow.NULL {
				return nil, nil, unexpectedType(1, "DATE", in[0])
			}
			return []arrow.DataType{tDate}, tInt, nil
		}, eval: func(v []any) (any, error) {
			return int32(floorDiv(v[0].(time.Time).Unix(), 86400)), nil
		}}),
		row("date_from_unix_date", "datetime", 1, 1, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			if !isIntegral(in[0]) && in[0].ID() != arrow.NULL && in[0].ID() != arrow.STRING {
				return nil, nil, unexpectedType(1, "INT", in[0])
			}
			return []arrow.DataType{tInt}, tDate, nil
		}, eval: func(v []any) (any, error) {
			return time.Unix(v[0].(int64)*86400, 0).UTC(), nil
		}}),
	}
}

// unexpectedType is Spark's DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE.
func unexpectedType(i int, want string, got arrow.DataType) error {
	return fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] parameter %d requires the %q type, however it has the type %q", i, want, types.SQLName(got))
}

// integralToTimestamp is timestamp_millis/micros: an integer times
// scale microseconds (Math.multiplyExact: overflow fails).
func integralToTimestamp(scale int64) *rowImpl {
	return &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if !isIntegral(in[0]) && in[0].ID() != arrow.NULL {
			return nil, nil, unexpectedType(1, "INTEGRAL", in[0])
		}
		return []arrow.DataType{nil}, tTimestamp, nil
	}, eval: func(v []any) (any, error) {
		m, ok := addMulExact(0, v[0].(int64), scale)
		if !ok {
			return nil, errLongOverflow()
		}
		return time.UnixMicro(m).UTC(), nil
	}}
}

// secondsToTimestampSig: timestamp_seconds takes any number; a float or
// a double may give NULL (NaN, infinities).
func secondsToTimestampSig(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	switch {
	case isIntegral(in[0]), in[0].ID() == arrow.DECIMAL128, in[0].ID() == arrow.FLOAT32, in[0].ID() == arrow.FLOAT64, in[0].ID() == arrow.NULL:
		return []arrow.DataType{nil}, tTimestamp, nil
	}
	return nil, nil, unexpectedType(1, "NUMERIC", in[0])
}

// secondsToTimestamp is Spark's SecondsToTimestamp: integers exactly,
// decimals exactly (longValueExact: a fraction finer than a microsecond
// fails), floats and doubles truncated toward zero and saturated as
// Java's (long) cast, NaN and infinities NULL.
func secondsToTimestamp(v []any) (any, error) {
	switch x := v[0].(type) {
	case int64:
		m, ok := addMulExact(0, x, 1_000_000)
		if !ok {
			return nil, errLongOverflow()
		}
		return time.UnixMicro(m).UTC(), nil
	case expr.Decimal:
		r, _, err := expr.RescaleDecimal(x, types.Decimal(38, 6), expr.RoundHalfUp, true)
		if err != nil {
			return nil, err
		}
		if x.Scale > 6 {
			back, _, _ := expr.RescaleDecimal(r, types.Decimal(38, x.Scale), expr.RoundHalfUp, true)
			if back.Unscaled != x.Unscaled {
				return nil, dtError("ARITHMETIC_OVERFLOW", "22003", "Rounding necessary: %s seconds have a fraction finer than a microsecond.", x)
			}
		}
		b := r.Unscaled.BigInt()
		if !b.IsInt64() {
			return nil, errLongOverflow()
		}
		return time.UnixMicro(b.Int64()).UTC(), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil
		}
		return time.UnixMicro(javaLong(x * 1_000_000)).UTC(), nil
	}
	return nil, fmt.Errorf("timestamp_seconds of %T", v[0])
}

// javaLong is Java's (long) cast of a double: toward zero, saturating.
func javaLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// timestampToLong is unix_seconds/millis/micros: the microseconds since
// the epoch divided by scale, rounded toward negative infinity.
func timestampToLong(scale int64) *rowImpl {
	return &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if in[0].ID() != arrow.TIMESTAMP && in[0].ID() != arrow.NULL {
			return nil, nil, unexpectedType(1, "TIMESTAMP", in[0])
		}
		return []arrow.DataType{tTimestamp}, tLong, nil
	}, eval: func(v []any) (any, error) {
		return floorDiv(v[0].(time.Time).UnixMicro(), scale), nil
	}}
}
