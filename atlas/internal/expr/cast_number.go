package expr

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

// isSparkNumberCast reports whether castSparkNumber converts from one type
// to the other: strings to numbers and booleans, and floating-point numbers
// to integers. Arrow's casts differ from Spark's there (arrow does not trim
// " 12 ", refuses "1.5" as an int, and wraps 1e10 into an int), so Atlas
// follows Spark's rules itself.
func isSparkNumberCast(from, to arrow.DataType) bool {
	switch {
	case from.ID() == arrow.STRING:
		return isSignedInteger(to) || isFloat(to) || to.ID() == arrow.BOOL
	case isFloat(from):
		return isSignedInteger(to)
	}
	return false
}

// castSparkNumber converts as Spark's non-ANSI CAST (Spark 3.5's default,
// and Spark 4's with spark.sql.ansi.enabled=false; Cast.scala and
// UTF8String.toLong/toInt):
//   - string to an integer type: surrounding whitespace and control
//     characters are trimmed, an optional sign and decimal digits are read,
//     and a fractional part of digits is dropped (" 12 " is 12, "1.9" is 1,
//     "-1.9" is -1); anything else ("1e3", "12abc", "") or a value out of
//     the type's range is null;
//   - string to double or float: trimmed, then Java's Double.parseDouble
//     (exponents, "Infinity", "NaN", a trailing d or f) and Spark's special
//     literals "inf", "-inf", "infinity" and "nan" in any case; else null;
//   - string to boolean: trimmed and lower-cased, "t", "true", "y", "yes"
//     and "1" are true, "f", "false", "n", "no" and "0" false, else null;
//   - double or float to an integer type: the fraction is dropped and a
//     value beyond the range saturates at the type's bound (the JVM's
//     d2i/d2l: 1e10 as an int is 2147483647, NaN is 0); a smallint or
//     tinyint takes the int's low bits, as Spark's toInt.toShort does.
func castSparkNumber(c *Ctx, in arrow.Array, t arrow.DataType) (arrow.Array, error) {
	b := array.NewBuilder(c.Mem, t)
	defer b.Release()
	b.Reserve(in.Len())
	str, _ := in.(*array.String)
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		if str != nil {
			appendParsed(b, str.Value(i), t)
			continue
		}
		_, f, _ := numberAt(in, i)
		appendInt(b, floatToInt(f, t))
	}
	return b.NewArray(), nil
}

func appendParsed(b array.Builder, s string, t arrow.DataType) {
	switch {
	case t.ID() == arrow.BOOL:
		v, ok := parseSparkBool(s)
		if !ok {
			b.AppendNull()
			return
		}
		b.(*array.BooleanBuilder).Append(v)
	case isFloat(t):
		v, ok := parseSparkDouble(s)
		if !ok {
			b.AppendNull()
			return
		}
		if t.ID() == arrow.FLOAT32 {
			b.(*array.Float32Builder).Append(float32(v))
			return
		}
		b.(*array.Float64Builder).Append(v)
	default:
		v, ok := parseSparkLong(s)
		lo, hi := integerRange(t)
		if !ok || v < lo || v > hi {
			b.AppendNull()
			return
		}
		appendInt(b, v)
	}
}

func appendInt(b array.Builder, v int64) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Int64Builder:
		b.Append(v)
	}
}

// floatToInt is the JVM's conversion of a double to t: truncated toward
// zero, saturated at long's (bigint) or int's bounds, NaN as 0; smallint
// and tinyint keep the low bits of the int.
func floatToInt(f float64, t arrow.DataType) int64 {
	if math.IsNaN(f) {
		return 0
	}
	if t.ID() == arrow.INT64 {
		switch {
		case f >= math.MaxInt64: // float64(MaxInt64) is 2^63
			return math.MaxInt64
		case f <= math.MinInt64:
			return math.MinInt64
		}
		return int64(f)
	}
	var n int32
	switch {
	case f >= math.MaxInt32:
		n = math.MaxInt32
	case f <= math.MinInt32:
		n = math.MinInt32
	default:
		n = int32(f)
	}
	switch t.ID() {
	case arrow.INT8:
		return int64(int8(n))
	case arrow.INT16:
		return int64(int16(n))
	}
	return int64(n)
}

// trimSpark drops what UTF8String.trimAll and toLong skip at both ends:
// ASCII whitespace and control characters (bytes up to 0x20, and 0x7F).
func trimSpark(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 || r == 0x7F })
}

// parseSparkLong is UTF8String.toLong with decimals allowed (non-ANSI).
func parseSparkLong(s string) (int64, bool) {
	s = trimSpark(s)
	if s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		s = s[1:]
		if s == "" {
			return 0, false
		}
	}
	digits, frac, _ := strings.Cut(s, ".")
	for _, r := range frac {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	var v uint64
	for _, r := range digits {
		if r < '0' || r > '9' {
			return 0, false
		}
		if v > (math.MaxInt64+1)/10 {
			return 0, false
		}
		v = v*10 + uint64(r-'0')
		if v > math.MaxInt64+1 {
			return 0, false
		}
	}
	if neg {
		return -int64(v), true // v == 2^63 wraps to MinInt64, which is right
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// parseSparkDouble is Spark's string to double: Java's parseDouble on the
// trimmed text, then the special literals.
func parseSparkDouble(s string) (float64, bool) {
	s = trimSpark(s)
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan":
		return math.NaN(), true
	}
	if s == "" || strings.ContainsRune(s, '_') {
		return 0, false
	}
	lower := strings.ToLower(s)
	if strings.HasPrefix(strings.TrimLeft(lower, "+-"), "in") || strings.HasPrefix(strings.TrimLeft(lower, "+-"), "nan") {
		// Java spells these exactly Infinity and NaN; Go also takes "INF" and the like.
		if t := strings.TrimLeft(s, "+-"); t != "Infinity" && t != "NaN" {
			return 0, false
		}
	}
	isHex := strings.HasPrefix(strings.TrimLeft(lower, "+-"), "0x")
	if n := len(s); !isHex && n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1] // Java's optional FloatTypeSuffix
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return v, true // Java rounds to Infinity or 0 as Go does
		}
		return 0, false
	}
	return v, true
}

// parseSparkBool is StringUtils.isTrueString/isFalseString on the trimmed,
// lower-cased text.
func parseSparkBool(s string) (bool, bool) {
	switch strings.ToLower(trimSpark(s)) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

// isFloatToString reports a cast castFloatString does.
func isFloatToString(from, to arrow.DataType) bool {
	return isFloat(from) && to.ID() == arrow.STRING
}

// castFloatString writes doubles and floats as Spark's CAST(x AS STRING)
// does, with Java's Double.toString / Float.toString: a decimal point
// always ("2.0", not "2"), plain notation for magnitudes in [1e-3, 1e7)
// and computerized scientific notation outside it ("1.0E20", "1.0E-4",
// "1.23456789E7"), the shortest digits that identify the value, and
// "NaN", "Infinity", "-Infinity".
func castFloatString(c *Ctx, in arrow.Array) arrow.Array {
	b := array.NewStringBuilder(c.Mem)
	defer b.Release()
	b.Reserve(in.Len())
	bits := 64
	if in.DataType().ID() == arrow.FLOAT32 {
		bits = 32
	}
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		_, f, _ := numberAt(in, i)
		b.Append(numfmt.JavaFloat(f, bits))
	}
	return b.NewArray()
}
