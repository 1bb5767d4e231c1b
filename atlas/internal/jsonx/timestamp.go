package jsonx

// Timestamps and dates in Spark's default grammar (DateTimeUtils
// .stringToTimestamp and stringToDate, which back CAST(string AS timestamp)
// and from_json when no timestampFormat is given), parsed by hand: the
// common ISO-8601 shape takes a fixed-position fast path with no allocation;
// everything else goes through a segment-by-segment parser that mirrors
// Spark's.

const (
	microsPerSecond = 1_000_000
	secondsPerDay   = 86_400
	// maxSeconds bounds |seconds since the epoch| so that micros fit an
	// int64 (Spark's Math.multiplyExact fails beyond it).
	maxSeconds = (1<<63 - 1) / microsPerSecond
)

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// validDate reports whether y-m-d is a real date.
func validDate(y, m, d int64) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	switch m {
	case 2:
		if isLeap(y) {
			return d <= 29
		}
		return d <= 28
	case 4, 6, 9, 11:
		return d <= 30
	}
	return d <= 31
}

// toMicros combines a validated date and time with a zone offset (seconds
// east of UTC) into microseconds since the epoch.
func toMicros(y, mo, d, h, mi, s, frac, offset int64) (int64, bool) {
	return daysToMicros(daysFromCivil(y, mo, d), h, mi, s, frac, offset)
}

// daysToMicros is toMicros for a date given as days since the epoch.
func daysToMicros(days, h, mi, s, frac, offset int64) (int64, bool) {
	secs := days*secondsPerDay + h*3600 + mi*60 + s - offset
	if secs > maxSeconds || secs < -maxSeconds {
		return 0, false
	}
	return secs*microsPerSecond + frac, true
}

func dig2(b []byte) (int64, bool) {
	if !isDigit(b[0]) || !isDigit(b[1]) {
		return 0, false
	}
	return int64(b[0]-'0')*10 + int64(b[1]-'0'), true
}

// dateCache remembers the date part (yyyy-MM-dd) of the last timestamp
// the fast path parsed with a valid date, and its day number: a batch's
// event times mostly share their date, and the calendar arithmetic is the
// costliest part of the parse.
type dateCache struct {
	key  [10]byte
	days int64
	ok   bool
}

// timestamp is the fast path: it parses
// yyyy-MM-dd(T| )HH:mm:ss[.f*][Z|±HH|±HHmm|±HH:mm], taking the day number
// from the cache when s has the remembered date. handled is false when s
// has another shape, for the general parser to try.
func (dc *dateCache) timestamp(s []byte) (micros int64, ok, handled bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return 0, false, false
	}
	var days int64
	dateOK := true
	if dc.ok && string(s[:10]) == string(dc.key[:]) {
		days = dc.days
	} else {
		y1, ok1 := dig2(s[0:2])
		y2, ok2 := dig2(s[2:4])
		mo, ok3 := dig2(s[5:7])
		d, ok4 := dig2(s[8:10])
		if !(ok1 && ok2 && ok3 && ok4) {
			return 0, false, false
		}
		y := y1*100 + y2
		if dateOK = validDate(y, mo, d); dateOK {
			days = daysFromCivil(y, mo, d)
			dc.key, dc.days, dc.ok = [10]byte(s[:10]), days, true
		}
	}
	h, ok5 := dig2(s[11:13])
	mi, ok6 := dig2(s[14:16])
	sec, ok7 := dig2(s[17:19])
	if !(ok5 && ok6 && ok7) {
		return 0, false, false
	}
	i := 19
	var frac int64
	if i < len(s) && s[i] == '.' {
		i++
		n := 0
		for i < len(s) && isDigit(s[i]) {
			if n < 6 {
				frac = frac*10 + int64(s[i]-'0')
			}
			n++
			i++
		}
		for ; n < 6; n++ {
			frac *= 10
		}
	}
	var offset int64
	if i < len(s) {
		rest := s[i:]
		switch {
		case len(rest) == 1 && rest[0] == 'Z':
		case rest[0] == '+' || rest[0] == '-':
			oh, okh := int64(0), false
			om, okm := int64(0), true
			switch len(rest) {
			case 3:
				oh, okh = dig2(rest[1:3])
			case 5:
				oh, okh = dig2(rest[1:3])
				om, okm = dig2(rest[3:5])
			case 6:
				if rest[3] != ':' {
					return 0, false, false
				}
				oh, okh = dig2(rest[1:3])
				om, okm = dig2(rest[4:6])
			default:
				return 0, false, false
			}
			if !okh || !okm {
				return 0, false, false
			}
			if om > 59 || oh*3600+om*60 > 18*3600 {
				return 0, false, true
			}
			offset = oh*3600 + om*60
			if rest[0] == '-' {
				offset = -offset
			}
		default:
			return 0, false, false
		}
	}
	if !dateOK || h > 23 || mi > 59 || sec > 59 {
		return 0, false, true
	}
	micros, ok = daysToMicros(days, h, mi, sec, frac, offset)
	return micros, ok, true
}

// trimSpace trims what Spark's UTF8String.trimAll trims: bytes <= ' '.
func trimSpace(s []byte) []byte {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// timestampParts is a timestamp split by the general parser.
type timestampParts struct {
	seg  [7]int64 // year, month, day, hour, minute, second, microseconds
	zone []byte   // zone text after the time, trimmed; nil when absent
}

// splitTimestamp mirrors Spark's DateTimeUtils.parseTimestampString:
// [+-]yyyy[-[m]m[-[d]d[(T| )[h]h[:[m]m[:[s]s[.f*]]]]]][zone]. Time-only
// text is rejected.
func splitTimestamp(s []byte) (p timestampParts, ok bool) {
	s = trimSpace(s)
	if len(s) == 0 {
		return p, false
	}
	p.seg = [7]int64{1, 1, 1, 0, 0, 0, 0}
	valid := func(seg, digits int) bool {
		switch seg {
		case 0:
			return digits >= 4 && digits <= 6
		case 6:
			return true
		}
		return digits > 0 && digits <= 2
	}
	sign := int64(1)
	j := 0
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = -1
		}
		j++
	}
	seg, cur, digits, fracDigits := 0, int64(0), 0, 0
	for ; j < len(s); j++ {
		c := s[j]
		if isDigit(c) {
			if seg == 6 {
				fracDigits++
				if digits < 6 {
					cur = cur*10 + int64(c-'0')
				}
			} else if digits < 9 {
				cur = cur*10 + int64(c-'0')
			}
			digits++
			continue
		}
		next := false
		switch seg {
		case 0, 1:
			next = c == '-'
		case 2:
			next = c == ' ' || c == 'T'
		case 3, 4:
			next = c == ':'
		case 5:
			next = c == '.'
		}
		if !valid(seg, digits) {
			return p, false
		}
		if next {
			p.seg[seg] = cur
			seg++
			cur, digits = 0, 0
			continue
		}
		if seg != 5 && seg != 6 {
			return p, false
		}
		// The zone starts right after the seconds or their fraction.
		p.zone = trimSpace(s[j:])
		break
	}
	if p.zone == nil && !valid(seg, digits) {
		return p, false
	}
	p.seg[seg] = cur
	if seg == 6 {
		for ; fracDigits < 6; fracDigits++ {
			p.seg[6] *= 10
		}
	}
	p.seg[0] *= sign
	return p, true
}

// splitDate mirrors Spark's DateTimeUtils.stringToDate:
// [+-]yyyy[-[m]m[-[d]d]] optionally followed by ' ' or 'T' and anything.
func splitDate(s []byte) (y, m, d int64, ok bool) {
	s = trimSpace(s)
	if len(s) == 0 {
		return 0, 0, 0, false
	}
	valid := func(seg, digits int) bool {
		if seg == 0 {
			return digits >= 4 && digits <= 7
		}
		return digits > 0 && digits <= 2
	}
	seg := [3]int64{1, 1, 1}
	sign := int64(1)
	j := 0
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = -1
		}
		j++
	}
	i, cur, digits := 0, int64(0), 0
	for ; j < len(s) && !(i == 2 && (s[j] == ' ' || s[j] == 'T')); j++ {
		c := s[j]
		if i < 2 && c == '-' {
			if !valid(i, digits) {
				return 0, 0, 0, false
			}
			seg[i] = cur
			i, cur, digits = i+1, 0, 0
			continue
		}
		if !isDigit(c) {
			return 0, 0, 0, false
		}
		if digits < 9 {
			cur = cur*10 + int64(c-'0')
		}
		digits++
	}
	if !valid(i, digits) {
		return 0, 0, 0, false
	}
	seg[i] = cur
	return sign * seg[0], seg[1], seg[2], true
}

// parseDate returns the days since the epoch of a date string: a fast path
// for yyyy-MM-dd, Spark's date grammar, then Spark's legacy fallback of an
// integer string read as days.
func parseDate(s []byte) (int32, bool) {
	var y, m, d int64
	ok := false
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		y1, ok1 := dig2(s[0:2])
		y2, ok2 := dig2(s[2:4])
		mm, ok3 := dig2(s[5:7])
		dd, ok4 := dig2(s[8:10])
		y, m, d, ok = y1*100+y2, mm, dd, ok1 && ok2 && ok3 && ok4
	}
	if !ok {
		y, m, d, ok = splitDate(s)
	}
	if ok {
		if !validDate(y, m, d) {
			return 0, false
		}
		days := daysFromCivil(y, m, d)
		if days < -1<<31 || days > 1<<31-1 {
			return 0, false
		}
		return int32(days), true
	}
	return parseDays(s)
}

// parseDays reads s as Java's Integer.parseInt would: an optional sign and
// decimal digits, within int32.
func parseDays(s []byte) (int32, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 10 {
		return 0, false
	}
	var v int64
	for _, c := range s {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}
