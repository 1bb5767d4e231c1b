package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// isDecimalCast reports a cast to or from a decimal, which castDecimal
// converts itself: arrow's decimal casts truncate where Spark rounds half
// up, and know nothing of Spark's string syntax or ANSI errors.
func isDecimalCast(from, to arrow.DataType) bool {
	return (isDecimal(from) || isDecimal(to)) && !arrow.TypeEqual(from, to) && from.ID() != arrow.NULL
}

// castDecimal is Spark's CAST to and from DECIMAL(p,s) (Cast.scala's
// castToDecimal, Decimal.toPrecision, ToStringBase):
//   - to a decimal from a decimal, an integer, a double (read as Java's
//     Double.toString writes it, so 0.1 is 0.1) or a boolean (1 or 0): the
//     value is rounded half up to the scale; one with more integer digits
//     than the type holds fails with NUMERIC_VALUE_OUT_OF_RANGE under ANSI
//     and is NULL otherwise; NaN and infinity do not convert;
//   - to a decimal from a string: trimmed, then read as Java's BigDecimal
//     (1.5, -.5, 1e3); anything else fails with CAST_INVALID_INPUT under
//     ANSI and is NULL otherwise;
//   - from a decimal to an integer: the fraction is dropped; beyond the
//     type's range CAST_OVERFLOW under ANSI, the low bits otherwise (Java's
//     long and int narrowing);
//   - from a decimal to a double or float: the nearest value;
//   - from a decimal to a string: plain digits with the scale kept (0.20)
//     under ANSI (the session's, for implicit casts), Java's
//     BigDecimal.toString otherwise (1E-7);
//   - from a decimal to a boolean: whether it is not zero;
//   - from a decimal to a timestamp: as seconds since the epoch.
//
// With try, every error is a NULL instead.
func castDecimal(c *Ctx, in arrow.Array, t arrow.DataType, mode EvalMode) (arrow.Array, error) {
	strict, try := mode == EvalANSI, mode == EvalTry
	b := array.NewBuilder(c.Mem, t)
	defer b.Release()
	b.Reserve(in.Len())
	if d, ok := in.(*array.Decimal128); ok {
		scale := d.DataType().(*arrow.Decimal128Type).Scale
		prec := d.DataType().(*arrow.Decimal128Type).Precision
		// Plain text under ANSI, implicit casts (concat, ...) included.
		plain := strict || try || ANSIFromContext(c.Context)
		for i := 0; i < in.Len(); i++ {
			if in.IsNull(i) {
				b.AppendNull()
				continue
			}
			if err := appendFromDecimal(b, d.Value(i), prec, scale, strict || try, plain, t); err != nil {
				if try {
					b.AppendNull()
					continue
				}
				return nil, err
			}
		}
		return b.NewArray(), nil
	}
	dt, ok := t.(*arrow.Decimal128Type)
	if !ok {
		return nil, fmt.Errorf("cast %s to %s is not supported", types.SQL(in.DataType()), types.SQL(t))
	}
	db := b.(*array.Decimal128Builder)
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, scale, err := decimalSource(in, i, dt, strict)
		if err != nil {
			if try {
				b.AppendNull()
				continue
			}
			return nil, err
		}
		if v == nil {
			b.AppendNull()
			continue
		}
		r, ok, err := fitDecimal(v, scale, dt, strict || try)
		if err != nil {
			if try {
				b.AppendNull()
				continue
			}
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		db.UnsafeAppend(decimal128.FromBigInt(r))
	}
	return b.NewArray(), nil
}

// decimalSource reads row i of a non-decimal array as an exact decimal
// (unscaled value and scale); nil for a value that does not convert
// without strict, an error with it.
func decimalSource(in arrow.Array, i int, t *arrow.Decimal128Type, strict bool) (*big.Int, int32, error) {
	switch a := in.(type) {
	case *array.String:
		s := strings.TrimFunc(a.Value(i), func(r rune) bool { return r <= ' ' })
		v, scale, ok := parseJavaDecimal(s)
		if !ok {
			if strict {
				return nil, 0, castInvalidInput(a.Value(i), t)
			}
			return nil, 0, nil
		}
		if scale < -2*types.MaxDecimalPrecision {
			if strict {
				return nil, 0, numValueOutOfRange(v, 0, t)
			}
			return nil, 0, nil
		}
		return v, scale, nil
	case *array.Boolean:
		if a.Value(i) {
			return big.NewInt(1), 0, nil
		}
		return big.NewInt(0), 0, nil
	case *array.Float32, *array.Float64:
		_, f, _ := numberAt(in, i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			if strict {
				return nil, 0, castOverflow(in, i, t)
			}
			return nil, 0, nil
		}
		bits := 64
		if in.DataType().ID() == arrow.FLOAT32 {
			bits = 32
		}
		v, scale, _ := parseJavaDecimal(strconv.FormatFloat(f, 'e', -1, bits))
		return v, scale, nil
	}
	if isInteger(in.DataType()) {
		n, _, _ := numberAt(in, i)
		return big.NewInt(n), 0, nil
	}
	return nil, 0, fmt.Errorf("cast %s to %s is not supported", types.SQL(in.DataType()), types.SQL(t))
}

// appendFromDecimal appends a decimal converted to the builder's type.
func appendFromDecimal(b array.Builder, n decimal128.Num, prec, scale int32, strict, plain bool, t arrow.DataType) error {
	switch bb := b.(type) {
	case *array.Decimal128Builder:
		r, ok, err := fitDecimal(n.BigInt(), scale, t.(*arrow.Decimal128Type), strict)
		if err != nil {
			return err
		}
		if !ok {
			bb.AppendNull()
			return nil
		}
		bb.UnsafeAppend(decimal128.FromBigInt(r))
	case *array.StringBuilder:
		if plain {
			bb.Append(plainDecimalString(n.BigInt(), scale))
		} else {
			bb.Append(javaDecimalString(n.BigInt(), scale))
		}
	case *array.BooleanBuilder:
		bb.Append(n.Sign() != 0)
	case *array.TimestampBuilder:
		// Seconds since the epoch, the fraction beyond microseconds dropped
		// (Spark's decimalToTimestamp).
		us := rescale(n.BigInt(), scale, 6, roundDown)
		if !us.IsInt64() || t.(*arrow.TimestampType).Unit != arrow.Microsecond {
			return &CastError{Class: "CAST_OVERFLOW", SQLState: "22003", JavaClass: "org.apache.spark.SparkArithmeticException", Message: fmt.Sprintf(
				"[CAST_OVERFLOW] The value %sBD of the type \"DECIMAL(%d,%d)\" cannot be cast to \"TIMESTAMP\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. SQLSTATE: 22003",
				plainDecimalString(n.BigInt(), scale), prec, scale)}
		}
		bb.Append(arrow.Timestamp(us.Int64()))
	case *array.Float64Builder:
		bb.Append(decimalToFloat(n, prec, scale))
	case *array.Float32Builder:
		f, _ := strconv.ParseFloat(plainDecimalString(n.BigInt(), scale), 32)
		bb.Append(float32(f))
	default:
		if !isSignedInteger(t) {
			return fmt.Errorf("cast DECIMAL(%d,%d) to %s is not supported", prec, scale, types.SQL(t))
		}
		v := rescale(n.BigInt(), scale, 0, roundDown)
		lo, hi := integerRange(t)
		if !v.IsInt64() || v.Int64() < lo || v.Int64() > hi {
			if strict {
				return &CastError{Class: "CAST_OVERFLOW", SQLState: "22003", JavaClass: "org.apache.spark.SparkArithmeticException", Message: fmt.Sprintf(
					"[CAST_OVERFLOW] The value %sBD of the type \"DECIMAL(%d,%d)\" cannot be cast to %q due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. SQLSTATE: 22003",
					plainDecimalString(n.BigInt(), scale), prec, scale, types.SQL(t))}
			}
			// Java's narrowing keeps the low bits.
			low := new(big.Int).And(v, new(big.Int).SetUint64(math.MaxUint64))
			appendInt(b, int64(low.Uint64()))
			return nil
		}
		appendInt(b, v.Int64())
	}
	return nil
}

// decimalToFloat is Spark's Decimal.toDouble: a decimal of up to 18 digits
// (held in a long) divides its unscaled value by 10^scale in doubles; a
// wider one is BigDecimal.doubleValue, the nearest double.
func decimalToFloat(n decimal128.Num, prec, scale int32) float64 {
	if prec <= 18 && scale <= 22 {
		return float64(n.BigInt().Int64()) / math.Pow10(int(scale))
	}
	f, _ := strconv.ParseFloat(plainDecimalString(n.BigInt(), scale), 64)
	return f
}

// DecimalString writes a decimal value as Spark's Hive-style results and
// CAST(x AS STRING) under ANSI do: plain digits, the scale kept (0.20).
func DecimalString(n decimal128.Num, scale int32) string {
	return plainDecimalString(n.BigInt(), scale)
}
