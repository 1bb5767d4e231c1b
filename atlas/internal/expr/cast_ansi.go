package expr

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// EvalMode is how an explicit cast treats a value that does not convert,
// Spark's Cast.evalMode (Spark Connect's Expression.Cast.EvalMode).
type EvalMode int

const (
	// EvalDefault follows spark.sql.ansi.enabled of the session running
	// the query (ANSIFromContext): ANSI unless it is set to false.
	EvalDefault EvalMode = iota
	// EvalLegacy is Spark's non-ANSI cast: NULL, saturation or wrapping
	// (castSparkNumber, CastArray).
	EvalLegacy
	// EvalANSI fails the query with CAST_INVALID_INPUT or CAST_OVERFLOW.
	EvalANSI
	// EvalTry is try_cast: ANSI's rules, with NULL instead of the error.
	EvalTry
)

type ansiKey struct{}

// WithANSI returns ctx carrying the session's spark.sql.ansi.enabled for
// the casts of the queries run under it (EvalDefault).
func WithANSI(ctx context.Context, enabled bool) context.Context {
	return context.WithValue(ctx, ansiKey{}, enabled)
}

// ANSIFromContext is the spark.sql.ansi.enabled WithANSI put in ctx; true
// (Spark 4's default) when none was.
func ANSIFromContext(ctx context.Context) bool {
	if ctx == nil {
		return true
	}
	if v, ok := ctx.Value(ansiKey{}).(bool); ok {
		return v
	}
	return true
}

// resolve turns EvalDefault into the session's mode.
func (m EvalMode) resolve(c *Ctx) EvalMode {
	if m != EvalDefault {
		return m
	}
	if c != nil && !ANSIFromContext(c.Context) {
		return EvalLegacy
	}
	return EvalANSI
}

// isANSICheckedCast reports the casts whose values ANSI and TRY check
// themselves: strings to numbers, booleans and timestamps, floating-point numbers to
// integers, and integers to narrower integers. Every other cast converts
// the same in every mode.
func isANSICheckedCast(from, to arrow.DataType) bool {
	switch {
	case isDecimalCast(from, to):
		return true
	case from.ID() == arrow.STRING:
		return isSignedInteger(to) || isFloat(to) || to.ID() == arrow.BOOL || to.ID() == arrow.TIMESTAMP || to.ID() == arrow.DATE32
	case isFloat(from) || isSignedInteger(from):
		return isSignedInteger(to)
	}
	return false
}

// castANSI is Spark's ANSI cast (Cast.scala with ansiEnabled, and
// UTF8String.toLongExact): a string to an integer is trimmed and read as
// an optional sign and digits only ("1.5" and "2147483648" as an int are
// malformed), a string to a double or boolean follows the non-ANSI parsing,
// a floating-point number or integer out of the target's range (NaN and
// infinity included) overflows. A malformed value fails with
// CAST_INVALID_INPUT, an out-of-range one with CAST_OVERFLOW; with try
// both become NULL.
func castANSI(c *Ctx, in arrow.Array, t arrow.DataType, try bool) (arrow.Array, error) {
	if isDecimalCast(in.DataType(), t) {
		mode := EvalANSI
		if try {
			mode = EvalTry
		}
		return castDecimal(c, in, t, mode)
	}
	if str, ok := in.(*array.String); ok && t.ID() == arrow.TIMESTAMP {
		return castANSITimestamp(c, str, t, try)
	}
	if str, ok := in.(*array.String); ok && t.ID() == arrow.DATE32 {
		return castStringToDate(c, str, !try)
	}
	b := array.NewBuilder(c.Mem, t)
	defer b.Release()
	b.Reserve(in.Len())
	str, _ := in.(*array.String)
	lo, hi := integerRange(t)
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		if str != nil {
			s := str.Value(i)
			ok := true
			switch {
			case t.ID() == arrow.BOOL:
				var v bool
				if v, ok = parseSparkBool(s); ok {
					b.(*array.BooleanBuilder).Append(v)
				}
			case isFloat(t):
				var v float64
				if v, ok = parseSparkDouble(s); ok {
					if t.ID() == arrow.FLOAT32 {
						b.(*array.Float32Builder).Append(float32(v))
					} else {
						b.(*array.Float64Builder).Append(v)
					}
				}
			default:
				var v int64
				v, ok = parseSparkLong(s)
				ok = ok && !strings.Contains(s, ".") && v >= lo && v <= hi
				if ok {
					appendInt(b, v)
				}
			}
			if !ok {
				if !try {
					return nil, castInvalidInput(s, t)
				}
				b.AppendNull()
			}
			continue
		}
		n, f, isF := numberAt(in, i)
		if !fitsRange(n, f, isF, lo, hi) {
			if !try {
				return nil, castOverflow(in, i, t)
			}
			b.AppendNull()
			continue
		}
		if isF {
			n = int64(f)
		}
		appendInt(b, n)
	}
	return b.NewArray(), nil
}

// CastError is an ANSI cast failure with Spark's error class, SQLSTATE
// and the exception class Spark throws, for clients that map them
// (Spark Connect's ErrorInfo).
type CastError struct {
	Class     string // CAST_INVALID_INPUT or CAST_OVERFLOW
	SQLState  string // 22018 or 22003
	JavaClass string // org.apache.spark.SparkNumberFormatException, ...
	Message   string
}

// Error is Spark's message, "[CLASS] ...".
func (e *CastError) Error() string { return e.Message }

// castANSITimestamp is CAST(string AS TIMESTAMP) under ANSI: text
// ParseSparkTimestamp does not read fails with CAST_INVALID_INPUT (NULL
// with try).
func castANSITimestamp(c *Ctx, in *array.String, t arrow.DataType, try bool) (arrow.Array, error) {
	out := castStringToTimestamp(c, in)
	if !try {
		for i := 0; i < in.Len(); i++ {
			if in.IsValid(i) && out.IsNull(i) {
				out.Release()
				return nil, castInvalidInput(in.Value(i), t)
			}
		}
	}
	if arrow.TypeEqual(out.DataType(), t) {
		return out, nil
	}
	defer out.Release()
	return CastArray(c, out, t)
}

// castInvalidInput is Spark 4's CAST_INVALID_INPUT for a string.
func castInvalidInput(s string, t arrow.DataType) error {
	java := "org.apache.spark.SparkNumberFormatException"
	switch t.ID() {
	case arrow.BOOL:
		java = "org.apache.spark.SparkRuntimeException"
	case arrow.TIMESTAMP, arrow.DATE32:
		java = "org.apache.spark.SparkDateTimeException"
	}
	return &CastError{Class: "CAST_INVALID_INPUT", SQLState: "22018", JavaClass: java, Message: fmt.Sprintf(
		"[CAST_INVALID_INPUT] The value %s of the type \"STRING\" cannot be cast to %q because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead.",
		sqlStringLiteral(s), types.SQL(t))}
}

// castOverflow is Spark 4's CAST_OVERFLOW, the value written as Spark's
// toSQLValue does (3000000000L, 1.0E10D, NaN).
func castOverflow(in arrow.Array, i int, t arrow.DataType) error {
	return &CastError{Class: "CAST_OVERFLOW", SQLState: "22003", JavaClass: "org.apache.spark.SparkArithmeticException", Message: fmt.Sprintf(
		"[CAST_OVERFLOW] The value %s of the type %q cannot be cast to %q due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead.",
		sqlNumberValue(in, i), types.SQL(in.DataType()), types.SQL(t))}
}

// sqlStringLiteral is Spark's Literal.sql of a string: quoted, with
// backslashes and quotes escaped.
func sqlStringLiteral(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// sqlNumberValue is QueryErrorsBase.toSQLValue of a number.
func sqlNumberValue(in arrow.Array, i int) string {
	n, f, _ := numberAt(in, i)
	switch in.DataType().ID() {
	case arrow.FLOAT64:
		s := numfmt.JavaFloat(f, 64)
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return s
		}
		return s + "D"
	case arrow.FLOAT32:
		return numfmt.JavaFloat(f, 32)
	case arrow.INT64:
		return fmt.Sprintf("%dL", n)
	case arrow.INT16:
		return fmt.Sprintf("%dS", n)
	case arrow.INT8:
		return fmt.Sprintf("%dY", n)
	}
	return fmt.Sprint(n)
}
