// Package numfmt formats numbers for people: the progress line, the live
// view and the producer's summary share it; as Java writes doubles
// (JavaFloat), which Spark's CAST to string and show() use; and timestamps
// as show() writes them (Timestamp).
package numfmt

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Group writes n with a comma between groups of three digits: 1,234,567.
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var sb strings.Builder
	sb.Grow(len(s) + len(digits)/3)
	if len(digits) < len(s) {
		sb.WriteByte('-')
	}
	for i := 0; i < len(digits); i++ {
		if i > 0 && (len(digits)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte(digits[i])
	}
	return sb.String()
}

// JavaFloat formats v like Java's Double.toString (bitSize 64) or
// Float.toString (bitSize 32), which Spark uses to cast floating point to
// string: the shortest digits that round-trip; plain notation with at least
// one fractional digit when 1e-3 <= |v| < 1e7; otherwise computerized
// scientific notation such as "1.0E7" or "1.5E-4".
func JavaFloat(v float64, bitSize int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	// 'e' with precision -1 gives the shortest round-trip digits: d.ddde±XX.
	e := strconv.FormatFloat(v, 'e', -1, bitSize)
	mant, expPart, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expPart)
	digits := strings.Replace(mant, ".", "", 1)
	if v >= 1e-3 && v < 1e7 {
		var intPart, frac string
		if exp >= 0 {
			if len(digits) <= exp+1 {
				intPart = digits + strings.Repeat("0", exp+1-len(digits))
			} else {
				intPart, frac = digits[:exp+1], digits[exp+1:]
			}
		} else {
			intPart = "0"
			frac = strings.Repeat("0", -exp-1) + digits
		}
		if frac == "" {
			frac = "0"
		}
		return sign + intPart + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// Timestamp formats t in UTC with Spark's pattern: seconds always,
// fractional seconds only when non-zero and without trailing zeros
// ("2026-11-30 10:00:00", "2026-11-30 10:00:00.25").
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.999999999")
}
