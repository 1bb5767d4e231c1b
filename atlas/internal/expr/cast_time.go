package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Spark's casts between numbers and timestamps count seconds since the
// epoch (Cast.scala: longToTimestamp, doubleToTimestamp, timestampToLong,
// timestampToDouble), where Arrow's count the timestamp's own unit
// (microseconds). castTimeNumber does them Spark's way:
//
//   - integer to timestamp: seconds; out of range saturates to the
//     largest/smallest timestamp (TimeUnit.SECONDS.toMicros);
//   - float/double to timestamp: fractional seconds, truncated toward zero
//     to the unit; NaN and infinity are null (non-ANSI);
//   - timestamp to bigint: whole seconds, floor (floorDiv: one microsecond
//     before the epoch is -1); to int, smallint, tinyint: that value
//     narrowed (wraps, as non-ANSI Spark's toInt/toShort/toByte);
//   - timestamp to double/float: fractional seconds.
//
// It returns false when the conversion is not one of these.
func castTimeNumber(c *Ctx, in arrow.Array, t arrow.DataType) (arrow.Array, bool, error) {
	switch {
	case t.ID() == arrow.TIMESTAMP && isInteger(in.DataType()):
		perSec := unitsPerSecond(t.(*arrow.TimestampType).Unit)
		b := array.NewTimestampBuilder(c.Mem, t.(*arrow.TimestampType))
		defer b.Release()
		b.Reserve(in.Len())
		for i := 0; i < in.Len(); i++ {
			if in.IsNull(i) {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Timestamp(saturatingMul(integerAt(in, i), perSec)))
		}
		return b.NewArray(), true, nil
	case t.ID() == arrow.TIMESTAMP && isFloat(in.DataType()):
		perSec := float64(unitsPerSecond(t.(*arrow.TimestampType).Unit))
		b := array.NewTimestampBuilder(c.Mem, t.(*arrow.TimestampType))
		defer b.Release()
		b.Reserve(in.Len())
		for i := 0; i < in.Len(); i++ {
			if in.IsNull(i) {
				b.AppendNull()
				continue
			}
			d := floatAt(in, i)
			if math.IsNaN(d) || math.IsInf(d, 0) {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Timestamp(floatToInt64(d * perSec)))
		}
		return b.NewArray(), true, nil
	case in.DataType().ID() == arrow.TIMESTAMP && (isSignedInteger(t) || isFloat(t)):
		ts := in.(*array.Timestamp)
		perSec := unitsPerSecond(in.DataType().(*arrow.TimestampType).Unit)
		b := array.NewBuilder(c.Mem, t)
		defer b.Release()
		b.Reserve(in.Len())
		for i := 0; i < in.Len(); i++ {
			if in.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := int64(ts.Value(i))
			switch tb := b.(type) {
			case *array.Int64Builder:
				tb.Append(floorDiv(v, perSec))
			case *array.Int32Builder:
				tb.Append(int32(floorDiv(v, perSec)))
			case *array.Int16Builder:
				tb.Append(int16(floorDiv(v, perSec)))
			case *array.Int8Builder:
				tb.Append(int8(floorDiv(v, perSec)))
			case *array.Float64Builder:
				tb.Append(float64(v) / float64(perSec))
			case *array.Float32Builder:
				tb.Append(float32(float64(v) / float64(perSec)))
			default:
				return nil, false, nil
			}
		}
		return b.NewArray(), true, nil
	}
	return nil, false, nil
}

// checkCastable refuses casts Spark refuses at analysis whatever the
// values: a boolean is not a point in time (Spark 4, ANSI by default,
// rejects it; non-ANSI Spark 3 made true the first microsecond of 1970).
func checkCastable(from, to arrow.DataType) error {
	if (from.ID() == arrow.BOOL && to.ID() == arrow.TIMESTAMP) || (from.ID() == arrow.TIMESTAMP && to.ID() == arrow.BOOL) {
		return fmt.Errorf("cannot cast %s to %s: a boolean is not a point in time; use CASE WHEN ... THEN TIMESTAMP '...' END instead", typeName(from), typeName(to))
	}
	return nil
}

func typeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.BOOL:
		return "boolean"
	case arrow.TIMESTAMP:
		return "timestamp"
	}
	return t.String()
}

// isTimeNumber reports whether a cast from one type to the other is one
// castTimeNumber does.
func isTimeNumber(from, to arrow.DataType) bool {
	if to.ID() == arrow.TIMESTAMP {
		return isInteger(from) || isFloat(from)
	}
	return from.ID() == arrow.TIMESTAMP && (isSignedInteger(to) || isFloat(to))
}

func isInteger(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return isSignedInteger(t)
}

func isSignedInteger(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1_000
	case arrow.Nanosecond:
		return 1_000_000_000
	}
	return 1_000_000
}

// integerAt returns element i of an integer array as int64 (a uint64
// above math.MaxInt64 saturates).
func integerAt(a arrow.Array, i int) int64 {
	switch x := a.(type) {
	case *array.Int8:
		return int64(x.Value(i))
	case *array.Int16:
		return int64(x.Value(i))
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	case *array.Uint8:
		return int64(x.Value(i))
	case *array.Uint16:
		return int64(x.Value(i))
	case *array.Uint32:
		return int64(x.Value(i))
	case *array.Uint64:
		if x.Value(i) > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(x.Value(i))
	}
	return 0
}

func floatAt(a arrow.Array, i int) float64 {
	switch x := a.(type) {
	case *array.Float32:
		return float64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	}
	return math.NaN()
}

// saturatingMul is v*m clamped to the int64 range (m > 0), as Java's
// TimeUnit conversions to a finer unit.
func saturatingMul(v, m int64) int64 {
	if v > math.MaxInt64/m {
		return math.MaxInt64
	}
	if v < math.MinInt64/m {
		return math.MinInt64
	}
	return v * m
}

// floatToInt64 truncates toward zero and saturates, as Scala's
// Double.toLong.
func floatToInt64(d float64) int64 {
	switch {
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	}
	return int64(d)
}

// floorDiv is Java's Math.floorDiv: the quotient rounded toward negative
// infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
