package expr

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A DatetimePattern is a compiled Spark datetime pattern ("yyyy-MM-dd
// HH:mm:ss.SSS"), used by to_timestamp and date_format. Supported letters:
// y (year; yy is two digits, 2000-2099 when parsing), M and L (month: M,
// MM, MMM "Jan", MMMM "January"), d, D (day of year), H (0-23), k (1-24),
// h (1-12), K (0-11), m, s, S (fraction of second, up to 9 digits;
// Atlas keeps microseconds), a (AM/PM), E (day of week: E..EEE "Mon",
// EEEE "Monday"), X, x, Z (zone offset), z and V (zone: the session time
// zone's when formatting; UTC, GMT or a region when parsing), text in single quotes (” is a quote) and optional sections in
// [ ]. Other letters are refused, as Spark refuses them.
type DatetimePattern struct {
	text   string
	tokens []patToken
}

type patToken struct {
	letter   byte   // 0 for literal text
	count    int    // repetitions of letter
	lit      string // literal text
	optional []patToken
	isOpt    bool
}

// ParseDatetimePattern compiles a Spark datetime pattern.
func ParseDatetimePattern(p string) (*DatetimePattern, error) {
	toks, rest, err := parsePatTokens(p, 0, false)
	if err != nil {
		return nil, err
	}
	if rest != len(p) {
		return nil, fmt.Errorf("datetime pattern %q: unbalanced ']' at %d", p, rest)
	}
	return &DatetimePattern{text: p, tokens: toks}, nil
}

const patLetters = "yMLdDHkhKmsSaEXxZzV"

func parsePatTokens(p string, i int, inOpt bool) ([]patToken, int, error) {
	var out []patToken
	for i < len(p) {
		ch := p[i]
		switch {
		case ch == '\'':
			j := i + 1
			var sb strings.Builder
			for {
				if j >= len(p) {
					return nil, 0, fmt.Errorf("datetime pattern %q: unterminated quote at %d", p, i)
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						sb.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				sb.WriteByte(p[j])
				j++
			}
			if j == i+1 {
				sb.WriteByte('\'') // '' outside quotes is one quote
			}
			out = append(out, patToken{lit: sb.String()})
			i = j + 1
		case ch == '[':
			sub, j, err := parsePatTokens(p, i+1, true)
			if err != nil {
				return nil, 0, err
			}
			if j >= len(p) || p[j] != ']' {
				return nil, 0, fmt.Errorf("datetime pattern %q: unclosed '[' at %d", p, i)
			}
			out = append(out, patToken{isOpt: true, optional: sub})
			i = j + 1
		case ch == ']':
			if !inOpt {
				return nil, 0, fmt.Errorf("datetime pattern %q: unbalanced ']' at %d", p, i)
			}
			return out, i, nil
		case (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'):
			if strings.IndexByte(patLetters, ch) < 0 {
				return nil, 0, fmt.Errorf("datetime pattern %q: unsupported pattern letter '%c'; see https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html (Atlas supports %s)", p, ch, patLetters)
			}
			j := i
			for j < len(p) && p[j] == ch {
				j++
			}
			out = append(out, patToken{letter: ch, count: j - i})
			i = j
		default:
			out = append(out, patToken{lit: string(ch)})
			i++
		}
	}
	return out, i, nil
}

// Format renders t in UTC with the pattern.
func (p *DatetimePattern) Format(t time.Time) string {
	return string(p.AppendFormat(nil, t))
}

// AppendFormat appends t rendered in UTC with the pattern to buf.
func (p *DatetimePattern) AppendFormat(buf []byte, t time.Time) []byte {
	return p.AppendFormatIn(buf, t, time.UTC)
}

// AppendFormatIn appends t rendered in loc (the session time zone) with
// the pattern to buf.
func (p *DatetimePattern) AppendFormatIn(buf []byte, t time.Time, loc *time.Location) []byte {
	return formatTokens(buf, p.tokens, t.In(loc))
}

func pad(b []byte, v, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], int64(v), 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func formatTokens(b []byte, toks []patToken, t time.Time) []byte {
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	for _, tk := range toks {
		switch {
		case tk.isOpt:
			b = formatTokens(b, tk.optional, t)
			continue
		case tk.letter == 0:
			b = append(b, tk.lit...)
			continue
		}
		n := tk.count
		switch tk.letter {
		case 'y':
			if n == 2 {
				b = pad(b, year%100, 2)
			} else {
				b = pad(b, year, n)
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				b = append(b, month.String()...)
			case n == 3:
				b = append(b, month.String()[:3]...)
			default:
				b = pad(b, int(month), n)
			}
		case 'd':
			b = pad(b, day, n)
		case 'D':
			b = pad(b, t.YearDay(), n)
		case 'H':
			b = pad(b, hour, n)
		case 'k':
			h := hour
			if h == 0 {
				h = 24
			}
			b = pad(b, h, n)
		case 'h':
			h := hour % 12
			if h == 0 {
				h = 12
			}
			b = pad(b, h, n)
		case 'K':
			b = pad(b, hour%12, n)
		case 'm':
			b = pad(b, minute, n)
		case 's':
			b = pad(b, sec, n)
		case 'S':
			var frac [9]byte
			ns := t.Nanosecond()
			for i := 8; i >= 0; i-- {
				frac[i] = byte('0' + ns%10)
				ns /= 10
			}
			if n <= 9 {
				b = append(b, frac[:n]...)
			} else {
				b = append(b, frac[:]...)
				for i := 9; i < n; i++ {
					b = append(b, '0')
				}
			}
		case 'a':
			if hour < 12 {
				b = append(b, "AM"...)
			} else {
				b = append(b, "PM"...)
			}
		case 'E':
			if n >= 4 {
				b = append(b, t.Weekday().String()...)
			} else {
				b = append(b, t.Weekday().String()[:3]...)
			}
		case 'X', 'x', 'Z', 'z', 'V':
			b = formatZone(b, tk.letter, n, t)
		}
	}
	return b
}

// parsed collects the fields read by Parse.
type parsed struct {
	year, month, day, yday, hour, hour12, min, sec, nanos int
	pm, hasPM, has12, hasYday                             bool
	offset                                                int // seconds east of UTC
	// zone is the zone the text named, nil when it named none.
	zone *time.Location
}

// Parse reads s, which must match the whole pattern, as a UTC instant,
// text without a zone being in UTC. Missing fields default to 1970-01-01
// 00:00:00, as in Spark.
func (p *DatetimePattern) Parse(s string) (time.Time, error) { return p.ParseIn(s, time.UTC) }

// ParseIn reads s as Parse does, text without a zone being a wall-clock
// time in loc (the session time zone, resolved as LocalToInstant).
func (p *DatetimePattern) ParseIn(s string, loc *time.Location) (time.Time, error) {
	v := parsed{year: 1970, month: 1, day: 1}
	pos, err := parseTokens(p.tokens, s, 0, &v)
	if err != nil {
		return time.Time{}, err
	}
	if pos != len(s) {
		return time.Time{}, fmt.Errorf("unparsed text found at index %d", pos)
	}
	h := v.hour
	if v.has12 {
		h = v.hour12 % 12
		if v.pm {
			h += 12
		}
	} else if v.hasPM && v.pm && h < 12 {
		h += 12
	}
	if v.month < 1 || v.month > 12 || h > 23 || v.min > 59 || v.sec > 59 {
		return time.Time{}, fmt.Errorf("field out of range")
	}
	t := time.Date(v.year, time.Month(v.month), v.day, h, v.min, v.sec, v.nanos, time.UTC)
	if v.hasYday {
		t = time.Date(v.year, 1, v.yday, h, v.min, v.sec, v.nanos, time.UTC)
		if t.Year() != v.year {
			return time.Time{}, fmt.Errorf("invalid day of year %d", v.yday)
		}
	} else if t.Day() != v.day || int(t.Month()) != v.month {
		return time.Time{}, fmt.Errorf("invalid date %04d-%02d-%02d", v.year, v.month, v.day)
	}
	if v.zone != nil {
		loc = v.zone
	}
	return LocalToInstant(t, loc).UTC(), nil
}

func isNumericLetter(l byte) bool {
	return strings.IndexByte("ydDHkhKmsSML", l) >= 0
}

func parseTokens(toks []patToken, s string, pos int, v *parsed) (int, error) {
	for k, tk := range toks {
		if tk.isOpt {
			saved := *v
			if p, err := parseTokens(tk.optional, s, pos, v); err == nil {
				pos = p
			} else {
				*v = saved
			}
			continue
		}
		if tk.letter == 0 {
			if !strings.HasPrefix(s[pos:], tk.lit) {
				return pos, fmt.Errorf("expected %q at index %d", tk.lit, pos)
			}
			pos += len(tk.lit)
			continue
		}
		// A numeric field followed directly by another reads exactly its
		// width (yyyyMMdd), as Java's adjacent value parsing.
		adjacent := k+1 < len(toks) && toks[k+1].letter != 0 && isNumericLetter(toks[k+1].letter) && !(toks[k+1].letter == 'M' && toks[k+1].count >= 3)
		num := func(minW, maxW int) (int, error) {
			if adjacent {
				maxW = max(minW, 1)
			}
			j := pos
			for j < len(s) && j-pos < maxW && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-pos < minW || j == pos {
				return 0, fmt.Errorf("expected %d digits at index %d", max(minW, 1), pos)
			}
			n, _ := strconv.Atoi(s[pos:j])
			pos = j
			return n, nil
		}
		width := func(def int) (int, int) {
			if tk.count > 1 {
				return tk.count, max(tk.count, def)
			}
			return 1, def
		}
		var err error
		switch tk.letter {
		case 'y':
			if tk.count == 2 {
				var y int
				y, err = num(2, 2)
				v.year = 2000 + y
			} else {
				lo, hi := width(9)
				if adjacent {
					lo = max(tk.count, 4)
				}
				v.year, err = num(lo, hi)
			}
		case 'M', 'L':
			if tk.count >= 3 {
				v.month, pos, err = parseName(s, pos, monthNames(), tk.count >= 4)
			} else {
				lo, hi := width(2)
				v.month, err = num(lo, hi)
			}
		case 'd':
			lo, hi := width(2)
			v.day, err = num(lo, hi)
		case 'D':
			lo, hi := width(3)
			v.yday, err = num(lo, hi)
			v.hasYday = true
		case 'H', 'k':
			lo, hi := width(2)
			v.hour, err = num(lo, hi)
			if tk.letter == 'k' && v.hour == 24 {
				v.hour = 0
			}
		case 'h', 'K':
			lo, hi := width(2)
			v.hour12, err = num(lo, hi)
			v.has12 = true
		case 'm':
			lo, hi := width(2)
			v.min, err = num(lo, hi)
		case 's':
			lo, hi := width(2)
			v.sec, err = num(lo, hi)
		case 'S':
			start := pos
			_, err = num(1, tk.count)
			if err == nil {
				digits := s[start:pos]
				for len(digits) < 9 {
					digits += "0"
				}
				v.nanos, _ = strconv.Atoi(digits[:9])
			}
		case 'a':
			switch {
			case len(s) >= pos+2 && strings.EqualFold(s[pos:pos+2], "AM"):
				v.hasPM, v.pm = true, false
			case len(s) >= pos+2 && strings.EqualFold(s[pos:pos+2], "PM"):
				v.hasPM, v.pm = true, true
			default:
				err = fmt.Errorf("expected AM or PM at index %d", pos)
			}
			pos += 2
		case 'E':
			_, pos, err = parseName(s, pos, dayNames(), tk.count >= 4)
		case 'X', 'x', 'Z':
			v.offset, pos, err = parseOffset(s, pos, tk.letter == 'X' || (tk.letter == 'Z' && tk.count == 5))
			v.zone = time.FixedZone("", v.offset)
		case 'z', 'V':
			v.zone, pos, err = parseZoneText(s, pos)
		}
		if err != nil {
			return pos, err
		}
	}
	return pos, nil
}

// parseZoneText reads a zone name at pos: UTC, GMT, Z or a region of the
// time zone database (America/Los_Angeles).
func parseZoneText(s string, pos int) (*time.Location, int, error) {
	switch {
	case strings.HasPrefix(s[pos:], "UTC"), strings.HasPrefix(s[pos:], "GMT"):
		return time.UTC, pos + 3, nil
	case strings.HasPrefix(s[pos:], "Z"):
		return time.UTC, pos + 1, nil
	}
	j := pos
	for j < len(s) && (s[j] == '/' || s[j] == '_' || s[j] == '-' || s[j] == '+' || (s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z') || (s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	if j > pos && strings.Contains(s[pos:j], "/") {
		if loc, err := time.LoadLocation(s[pos:j]); err == nil {
			return loc, j, nil
		}
	}
	return nil, pos, fmt.Errorf("expected a zone (UTC, GMT or a region such as America/Los_Angeles) at index %d", pos)
}

func monthNames() []string {
	out := make([]string, 12)
	for i := range out {
		out[i] = time.Month(i + 1).String()
	}
	return out
}

func dayNames() []string {
	out := make([]string, 7)
	for i := range out {
		out[i] = time.Weekday(i).String()
	}
	return out
}

// parseName matches a full or three-letter name (case-insensitively) and
// returns its 1-based number.
func parseName(s string, pos int, names []string, full bool) (int, int, error) {
	for i, n := range names {
		if !full {
			n = n[:3]
		}
		if len(s) >= pos+len(n) && strings.EqualFold(s[pos:pos+len(n)], n) {
			return i + 1, pos + len(n), nil
		}
	}
	return 0, pos, fmt.Errorf("expected a name at index %d", pos)
}

// parseOffset reads Z (when zOK), or +HH, +HHMM, +HH:MM.
func parseOffset(s string, pos int, zOK bool) (int, int, error) {
	if zOK && strings.HasPrefix(s[pos:], "Z") {
		return 0, pos + 1, nil
	}
	if pos >= len(s) || (s[pos] != '+' && s[pos] != '-') {
		return 0, pos, fmt.Errorf("expected a zone offset at index %d", pos)
	}
	sign := 1
	if s[pos] == '-' {
		sign = -1
	}
	rest := strings.Replace(s[pos+1:], ":", "", 1)
	j := 0
	for j < len(rest) && j < 4 && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j != 2 && j != 4 {
		return 0, pos, fmt.Errorf("expected a zone offset at index %d", pos)
	}
	h, _ := strconv.Atoi(rest[:2])
	m := 0
	if j == 4 {
		m, _ = strconv.Atoi(rest[2:4])
	}
	consumed := j
	if j == 4 && strings.Contains(s[pos+1:min(len(s), pos+4)], ":") {
		consumed++
	}
	return sign * (h*3600 + m*60), pos + 1 + consumed, nil
}

// formatZone renders the zone letters of a pattern for t (already in the
// session time zone), as Java's DateTimeFormatter: X and x an offset (X
// gives Z at zero), Z +HHMM (ZZZZ GMT+hh:mm, ZZZZZ +hh:mm or Z), z the
// zone's abbreviation (PST; zzzz the long name of UTC only) and VV the
// region.
func formatZone(b []byte, letter byte, n int, t time.Time) []byte {
	name, off := t.Zone()
	switch letter {
	case 'X', 'x':
		if letter == 'X' && off == 0 {
			return append(b, 'Z')
		}
		switch n {
		case 1:
			return appendOffset(b, off, false, off%3600 == 0)
		case 2, 4:
			return appendOffset(b, off, false, false)
		}
		return appendOffset(b, off, true, false)
	case 'Z':
		switch {
		case n <= 3:
			return appendOffset(b, off, false, false)
		case n == 4:
			b = append(b, "GMT"...)
			if off == 0 {
				return b
			}
			return appendOffset(b, off, true, false)
		}
		if off == 0 {
			return append(b, 'Z')
		}
		return appendOffset(b, off, true, false)
	case 'z':
		if t.Location() == time.UTC || name == "UTC" {
			if n >= 4 {
				return append(b, "Coordinated Universal Time"...)
			}
			return append(b, "UTC"...)
		}
		return append(b, name...)
	}
	return append(b, t.Location().String()...)
}

// appendOffset writes an offset in seconds as +HH[:]MM, or +HH alone.
func appendOffset(b []byte, off int, colon, hoursOnly bool) []byte {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = pad(append(b, sign), off/3600, 2)
	if hoursOnly {
		return b
	}
	if colon {
		b = append(b, ':')
	}
	return pad(b, off%3600/60, 2)
}
