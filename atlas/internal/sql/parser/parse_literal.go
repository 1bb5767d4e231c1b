package parser

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/tz"
)

// numberLiteral consumes a number token, negated when neg is set (a minus
// sign folded in by unary).
func (p *parser) numberLiteral(neg bool) *Literal {
	t := p.advance()
	text := t.text
	if neg {
		text = "-" + text
	}
	lit, msg := numberValue(text)
	if msg != "" {
		p.fail(t, "", "%s", msg)
	}
	lit.At = t.pos
	return lit
}

// numberValue interprets the spelling of a number as Spark does: an
// integer is an int when it fits 32 bits, a bigint when it fits 64 and a
// decimal beyond; a number with a point is a decimal, one with an exponent
// a double; the suffixes L, S, Y, D, F and BD force bigint, smallint,
// tinyint, double, float and decimal. It returns an error message for
// literals out of range.
func numberValue(text string) (*Literal, string) {
	up := strings.ToUpper(text)
	body, suffix := up, ""
	switch {
	case strings.HasSuffix(up, "BD"):
		body, suffix = up[:len(up)-2], "BD"
	case strings.IndexByte("LSYDF", up[len(up)-1]) >= 0:
		body, suffix = up[:len(up)-1], up[len(up)-1:]
	}
	integral := !strings.ContainsAny(body, ".E")
	switch suffix {
	case "L", "S", "Y":
		if !integral {
			return nil, "invalid number " + text + ": the suffix " + suffix + " needs an integer"
		}
		bits, kind, name := map[string]int{"L": 64, "S": 16, "Y": 8}[suffix],
			map[string]LiteralKind{"L": BigIntLiteral, "S": SmallIntLiteral, "Y": TinyIntLiteral}[suffix],
			map[string]string{"L": "bigint", "S": "smallint", "Y": "tinyint"}[suffix]
		v, err := strconv.ParseInt(body, 10, bits)
		if err != nil {
			return nil, "number " + text + " is out of range for " + name
		}
		return &Literal{Kind: kind, Value: v, Text: text}, ""
	case "D", "F":
		v, err := strconv.ParseFloat(body, 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, "number " + text + " is out of range for double"
		}
		kind := DoubleLiteral
		if suffix == "F" {
			kind = FloatLiteral
			if math.Abs(v) > math.MaxFloat32 {
				return nil, "number " + text + " is out of range for float"
			}
		}
		return &Literal{Kind: kind, Value: v, Text: text}, ""
	case "BD":
		return decimalLiteral(body, text)
	}
	if integral {
		if v, err := strconv.ParseInt(body, 10, 64); err == nil {
			kind := BigIntLiteral
			if v >= math.MinInt32 && v <= math.MaxInt32 {
				kind = IntLiteral
			}
			return &Literal{Kind: kind, Value: v, Text: text}, ""
		}
		return decimalLiteral(body, text)
	}
	if strings.Contains(body, "E") {
		v, err := strconv.ParseFloat(body, 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, "number " + text + " is out of range for double"
		}
		return &Literal{Kind: DoubleLiteral, Value: v, Text: text}, ""
	}
	return decimalLiteral(body, text)
}

// decimalLiteral checks that body fits Spark's decimal (38 digits) and
// returns it as a DecimalLiteral.
func decimalLiteral(body, text string) (*Literal, string) {
	digits := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(body), "0")
	if len(digits) > 38 || strings.ContainsAny(body, "E") {
		if strings.ContainsAny(body, "E") {
			return nil, "invalid decimal " + text + ": write it without an exponent"
		}
		return nil, "number " + text + " has more than 38 digits, too many for a decimal"
	}
	f, _, err := big.ParseFloat(body, 10, 64, big.ToNearestEven)
	if err != nil {
		return nil, "invalid number " + text
	}
	v, _ := f.Float64()
	return &Literal{Kind: DecimalLiteral, Value: v, Text: text}, ""
}

// decimalTypedLiteral parses DECIMAL 'text' (also DEC and NUMERIC), a
// decimal of the digits written: DECIMAL '1.50' is DECIMAL(3,2).
func (p *parser) decimalTypedLiteral() Expr {
	kw := p.advance()
	strTok := p.tok()
	s := strings.TrimSpace(p.stringLit("a string", ""))
	lit, msg := decimalLiteral(s, s)
	if msg != "" || !validDecimalText(s) {
		if msg == "" {
			msg = "invalid DECIMAL literal " + quoteString(s)
		}
		p.fail(strTok, "write the number as digits with an optional point, such as DECIMAL '1.50'", "%s", msg)
	}
	lit.At = kw.pos
	return lit
}

// validDecimalText reports [+-]digits[.digits] (or .digits).
func validDecimalText(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	ip, fp, _ := strings.Cut(s, ".")
	if ip == "" && fp == "" {
		return false
	}
	for _, c := range ip + fp {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// timestampLayouts are the accepted spellings of a TIMESTAMP literal;
// fractional seconds are accepted after the seconds of each.
var timestampLayouts = []string{
	"2006-01-02 15:04:05", "2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05Z07:00",
	"2006-01-02 15:04:05 MST", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02",
}

// datetimeLiteral parses TIMESTAMP 'text' or DATE 'text'. A timestamp
// without a zone is a wall-clock time in the session time zone (Options.Zone,
// resolved as Java does: tz.LocalToInstant); the value is an instant held
// in that zone, so that it shows as Spark names it.
func (p *parser) datetimeLiteral() Expr {
	kw := p.advance()
	strTok := p.tok()
	s := strings.TrimSpace(p.stringLit("a string", ""))
	if strings.EqualFold(kw.text, "DATE") {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			p.fail(strTok, "write the date as 'yyyy-MM-dd', such as DATE '2026-11-30'", "invalid DATE literal %s", quoteString(s))
		}
		return &Literal{Kind: DateLiteral, Value: d, At: kw.pos}
	}
	ntz := strings.EqualFold(kw.text, "TIMESTAMP_NTZ")
	for _, layout := range timestampLayouts {
		if ntz && (strings.Contains(layout, "Z07") || strings.Contains(layout, "MST")) {
			continue // a wall-clock time has no zone
		}
		if ts, err := time.Parse(layout, s); err == nil {
			if ntz {
				return &Literal{Kind: TimestampNTZLiteral, Value: ts, At: kw.pos}
			}
			if !strings.Contains(layout, "Z07") && !strings.Contains(layout, "MST") {
				ts = tz.LocalToInstant(ts, p.zone)
			}
			return &Literal{Kind: TimestampLiteral, Value: ts.In(p.zone), At: kw.pos}
		}
	}
	p.fail(strTok, "write the timestamp as 'yyyy-MM-dd HH:mm:ss[.ffffff][+hh:mm]', such as TIMESTAMP '2026-11-30 10:00:00'",
		"invalid TIMESTAMP literal %s", quoteString(s))
	return nil
}

// intervalUnitDurations maps the unit words of an interval to their length.
var intervalUnitDurations = map[string]time.Duration{
	"WEEK": 7 * 24 * time.Hour, "DAY": 24 * time.Hour, "HOUR": time.Hour, "MINUTE": time.Minute,
	"SECOND": time.Second, "MILLISECOND": time.Millisecond, "MICROSECOND": time.Microsecond,
}

// intervalUnit returns the length of a unit word (singular or plural).
func intervalUnit(word string) (time.Duration, bool) {
	up := strings.ToUpper(word)
	if d, ok := intervalUnitDurations[up]; ok {
		return d, true
	}
	d, ok := intervalUnitDurations[strings.TrimSuffix(up, "S")]
	return d, ok
}

const intervalHint = "write an interval as INTERVAL '5' MINUTES, INTERVAL 5 MINUTES, INTERVAL '1 hour 30 minutes' " +
	"or INTERVAL 1 HOUR 30 MINUTES; units: week, day, hour, minute, second, millisecond, microsecond"

// intervalLiteral parses INTERVAL followed by value-unit pairs, where a
// value is a number or a quoted number, or by one string holding the pairs.
// The value is truncated to microseconds, Spark's precision.
func (p *parser) intervalLiteral() Expr {
	kw := p.advance()
	var total time.Duration
	ym := &ymAcc{}
	add := func(at token, value string, unit token) {
		if ym.add(p, at, value, unit) {
			return
		}
		ym.dayTime = true
		d, ok := intervalUnit(unit.text)
		if !ok || unit.kind != tokIdent {
			p.fail(unit, intervalHint, "expected an interval unit, found %s", unit.describe())
		}
		n, ok := scaleDuration(value, d)
		if !ok {
			p.fail(at, intervalHint, "invalid interval value %s", quoteString(value))
		}
		total += n
	}
	first := p.tok()
	if first.kind == tokString && !isIntervalUnitToken(p.look(1)) {
		s := p.stringLit("a string", "")
		fields := strings.Fields(s)
		if len(fields) == 0 || len(fields)%2 != 0 {
			p.fail(first, intervalHint, "invalid interval %s", quoteString(s))
		}
		for i := 0; i < len(fields); i += 2 {
			add(first, fields[i], token{kind: tokIdent, text: fields[i+1], pos: first.pos})
		}
	} else {
		for {
			neg := false
			if (p.atOp("-") || p.atOp("+")) && p.look(1).kind == tokString {
				neg = p.advance().isOp("-") // INTERVAL -'1-1' YEAR TO MONTH
			}
			v := p.tok()
			if v.kind != tokString && v.kind != tokNumber {
				break
			}
			p.advance()
			if neg {
				v.val = negateText(v.val)
			}
			if v.kind == tokString && p.at("YEAR") && p.look(1).is("TO") && p.look(2).is("MONTH") {
				p.advance()
				p.advance()
				p.advance()
				ym.yearToMonth(p, v)
				break
			}
			if v.kind == tokString && p.look(1).is("TO") {
				// INTERVAL '1 02:03:04.5' DAY TO SECOND, as Spark shows intervals.
				from := p.advance()
				p.advance()
				to := p.advance()
				d, ok := dayTimeInterval(v.val, strings.ToUpper(from.text), strings.ToUpper(to.text))
				if !ok {
					p.fail(v, "write it as INTERVAL '1 02:03:04.5' DAY TO SECOND (DAY|HOUR|MINUTE TO HOUR|MINUTE|SECOND)",
						"invalid %s TO %s interval %s", strings.ToUpper(from.text), strings.ToUpper(to.text), quoteString(v.val))
				}
				total += d
				break
			}
			add(v, v.val, p.tok())
			p.advance()
		}
	}
	if ym.seen {
		return ym.literal(p, kw)
	}
	return &Literal{Kind: IntervalLiteral, Value: total.Truncate(time.Microsecond), At: kw.pos}
}

// dayTimeInterval reads the string of INTERVAL '...' from TO to, Spark's
// day-time interval forms: DAY TO HOUR 'd h', DAY TO MINUTE 'd h:m', DAY
// TO SECOND 'd h:m:s[.f]', HOUR TO MINUTE 'h:m', HOUR TO SECOND
// 'h:m:s[.f]', MINUTE TO SECOND 'm:s[.f]', with an optional leading sign.
func dayTimeInterval(s, from, to string) (time.Duration, bool) {
	order := map[string]int{"DAY": 0, "HOUR": 1, "MINUTE": 2, "SECOND": 3}
	fi, ok1 := order[from]
	ti, ok2 := order[to]
	if !ok1 || !ok2 || ti <= fi {
		return 0, false
	}
	s = strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		neg, s = s[0] == '-', s[1:]
	}
	var parts []string
	if fi == 0 {
		day, rest, ok := strings.Cut(s, " ")
		if !ok {
			return 0, false
		}
		parts = append([]string{day}, strings.Split(rest, ":")...)
	} else {
		parts = strings.Split(s, ":")
	}
	if len(parts) != ti-fi+1 {
		return 0, false
	}
	units := []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second}
	var total time.Duration
	for i, part := range parts {
		unit := units[fi+i]
		if fi+i < 3 && strings.Contains(part, ".") {
			return 0, false
		}
		d, ok := scaleDuration(part, unit)
		if !ok || d < 0 {
			return 0, false
		}
		total += d
	}
	if neg {
		total = -total
	}
	return total, true
}

// isIntervalUnitToken reports whether t is a unit word, or a word that
// plainly tries to be one (months, years).
func isIntervalUnitToken(t token) bool {
	if t.kind != tokIdent {
		return false
	}
	if _, ok := intervalUnit(t.text); ok {
		return true
	}
	u := strings.TrimSuffix(strings.ToUpper(t.text), "S")
	return u == "MONTH" || u == "YEAR"
}

// scaleDuration returns value units of length unit, value being a decimal
// number such as 5, -2 or 1.5, computed exactly.
func scaleDuration(value string, unit time.Duration) (time.Duration, bool) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(value))
	if !ok || strings.ContainsAny(value, "/eE") {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(unit)))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if !n.IsInt64() {
		return 0, false
	}
	return time.Duration(n.Int64()), true
}
