package expr

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ParseSparkDate reads a date the way Spark's CAST(string AS DATE) does
// (SparkDateTimeUtils.stringToDate): after trimming blanks, a year of 4
// to 7 digits with an optional sign, then optionally -month and -day of
// one or two digits each; after the day, a blank or a 'T' ends the date
// and whatever follows is ignored ('2009-07-30 04:17:52' is 2009-07-30).
// A month or day that does not exist (2021-02-30) is not a date.
func ParseSparkDate(s string) (arrow.Date32, bool) {
	s = strings.TrimSpace(s)
	sign := 1
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	seg := [3]int{0, 1, 1}
	digits := [3]int{}
	i, n := 0, 0
	for ; n < len(s); n++ {
		ch := s[n]
		switch {
		case ch >= '0' && ch <= '9':
			seg[i] = seg[i]*10 + int(ch-'0')
			if digits[i] == 0 && i > 0 {
				seg[i] = int(ch - '0')
			}
			digits[i]++
		case ch == '-' && i < 2:
			if !validDigits(i, digits[i]) {
				return 0, false
			}
			i++
		case (ch == ' ' || ch == 'T') && i == 2:
			n = len(s) // the rest (a time) is ignored
		default:
			return 0, false
		}
	}
	if !validDigits(i, digits[i]) {
		return 0, false
	}
	y, m, d := sign*seg[0], seg[1], seg[2]
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return 0, false
	}
	return arrow.Date32FromTime(t), true
}

// validDigits: the year has 4 to 7 digits, the month and day 1 or 2.
func validDigits(seg, n int) bool {
	if seg == 0 {
		return n >= 4 && n <= 7
	}
	return n >= 1 && n <= 2
}

// castStringToDate converts strings to dates with ParseSparkDate. A
// string that is not a date fails with CAST_INVALID_INPUT when strict,
// else becomes NULL (try_cast, non-ANSI casts).
func castStringToDate(c *Ctx, in *array.String, strict bool) (arrow.Array, error) {
	b := array.NewDate32Builder(c.Mem)
	defer b.Release()
	b.Reserve(in.Len())
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		d, ok := ParseSparkDate(in.Value(i))
		if !ok {
			if strict {
				return nil, castInvalidInput(in.Value(i), arrow.FixedWidthTypes.Date32)
			}
			b.AppendNull()
			continue
		}
		b.Append(d)
	}
	return b.NewArray(), nil
}
