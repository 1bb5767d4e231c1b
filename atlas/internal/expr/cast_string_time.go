package expr

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// castStringToTimestamp reads strings as Spark's CAST(s AS TIMESTAMP)
// does (stringToTimestamp): yyyy, yyyy-[m]m, yyyy-[m]m-[d]d, then
// optionally ' ' or 'T' and [h]h:[m]m[:[s]s[.fraction]], then an optional
// zone (Z, UTC, GMT, +hh, +hh:mm, +hhmm or a region such as
// Europe/Paris). Without a zone the text is a wall-clock time in the
// session time zone (LocalToInstant). Text that does not match gives NULL.
func castStringToTimestamp(c *Ctx, in *array.String) arrow.Array {
	loc := c.Zone()
	b := array.NewTimestampBuilder(c.Mem, types.Timestamp)
	defer b.Release()
	b.Reserve(in.Len())
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		t, ok := ParseSparkTimestampIn(in.Value(i), loc)
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(arrow.Timestamp(t.UnixMicro()))
	}
	return b.NewArray()
}

// ParseSparkTimestamp parses s as CAST(s AS TIMESTAMP) in Spark with the
// session time zone UTC.
func ParseSparkTimestamp(s string) (time.Time, bool) { return ParseSparkTimestampIn(s, time.UTC) }

// ParseSparkTimestampIn parses s as CAST(s AS TIMESTAMP) in Spark, text
// without a zone being a wall-clock time in loc; the result is in UTC.
func ParseSparkTimestampIn(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	pos := 0
	digits := func(minN, maxN int) (int, bool) {
		j := pos
		for j < len(s) && j-pos < maxN && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-pos < minN {
			return 0, false
		}
		n, err := strconv.Atoi(s[pos:j])
		pos = j
		return n, err == nil
	}
	sep := func(ch byte) bool {
		if pos < len(s) && s[pos] == ch {
			pos++
			return true
		}
		return false
	}
	year, ok := digits(4, 6)
	if !ok {
		return time.Time{}, false
	}
	month, day := 1, 1
	var hour, minute, sec, nanos int
	if sep('-') {
		if month, ok = digits(1, 2); !ok {
			return time.Time{}, false
		}
		if sep('-') {
			if day, ok = digits(1, 2); !ok {
				return time.Time{}, false
			}
		}
	}
	if pos < len(s) && (s[pos] == ' ' || s[pos] == 'T') {
		pos++
		if pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
			if hour, ok = digits(1, 2); !ok || !sep(':') {
				return time.Time{}, false
			}
			if minute, ok = digits(1, 2); !ok {
				return time.Time{}, false
			}
			if sep(':') {
				if sec, ok = digits(1, 2); !ok {
					return time.Time{}, false
				}
				if sep('.') {
					start := pos
					if _, ok = digits(1, 9); !ok {
						return time.Time{}, false
					}
					frac := s[start:pos] + strings.Repeat("0", 9-(pos-start))
					nanos, _ = strconv.Atoi(frac)
					nanos = nanos / 1000 * 1000
				}
			}
		}
	}
	if rest := strings.TrimSpace(s[pos:]); rest != "" {
		l, ok := parseZone(rest)
		if !ok {
			return time.Time{}, false
		}
		loc = l
	}
	if month < 1 || month > 12 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	wall := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC)
	if wall.Day() != day {
		return time.Time{}, false
	}
	return LocalToInstant(wall, loc).UTC(), true
}

func parseZone(z string) (*time.Location, bool) {
	switch strings.ToUpper(z) {
	case "Z", "UTC", "GMT", "UT":
		return time.UTC, true
	}
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(strings.ToUpper(z), p) && len(z) > len(p) && (z[len(p)] == '+' || z[len(p)] == '-') {
			z = z[len(p):]
			break
		}
	}
	if z[0] == '+' || z[0] == '-' {
		off, next, err := parseOffset(z, 0, false)
		if err != nil || next != len(z) {
			// +h and +h:mm forms
			parts := strings.SplitN(z[1:], ":", 2)
			h, err1 := strconv.Atoi(parts[0])
			m := 0
			var err2 error
			if len(parts) == 2 {
				m, err2 = strconv.Atoi(parts[1])
			}
			if err1 != nil || err2 != nil || len(parts[0]) > 2 || h > 18 || m > 59 {
				return nil, false
			}
			off = h*3600 + m*60
			if z[0] == '-' {
				off = -off
			}
		}
		return time.FixedZone(z, off), true
	}
	l, err := time.LoadLocation(z)
	if err != nil {
		return nil, false
	}
	return l, true
}

// castTimestampToString renders timestamps as Spark's CAST(ts AS STRING):
// yyyy-MM-dd HH:mm:ss in the session time zone, with the fraction of a
// second only when non-zero and without trailing zeros.
func castTimestampToString(c *Ctx, in *array.Timestamp) arrow.Array {
	unit := in.DataType().(*arrow.TimestampType).Unit
	loc := c.Zone()
	if isNTZ(in.DataType()) {
		loc = time.UTC // a TIMESTAMP_NTZ shows its wall clock
	}
	b := array.NewStringBuilder(c.Mem)
	defer b.Release()
	b.Reserve(in.Len())
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(in.Value(i).ToTime(unit).In(loc).Format("2006-01-02 15:04:05.999999999"))
	}
	return b.NewArray()
}
