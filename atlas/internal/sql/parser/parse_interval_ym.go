package parser

import (
	"math"
	"strconv"
	"strings"
)

// ymAcc collects the year and month parts of an interval literal, Spark's
// YearMonthIntervalType: a whole number of months in 32 bits, its fields
// YEAR, MONTH or YEAR TO MONTH as the literal names them.
type ymAcc struct {
	months          int64
	seen, dayTime   bool
	years, monthsIn bool // which units were written
	toForm          bool // 'y-m' YEAR TO MONTH
}

// add reads value of unit when unit is YEAR(S) or MONTH(S); it reports
// whether it was.
func (a *ymAcc) add(p *parser, at token, value string, unit token) bool {
	u := strings.TrimSuffix(strings.ToUpper(unit.text), "S")
	if unit.kind != tokIdent || (u != "YEAR" && u != "MONTH") {
		return false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		p.fail(at, "a year or month interval counts whole years or months, such as INTERVAL '2' YEAR", "invalid interval value %s: not a whole number", quoteString(value))
	}
	if u == "YEAR" {
		a.years = true
		n *= 12
	} else {
		a.monthsIn = true
	}
	a.seen = true
	a.months += n
	a.check(p, at)
	return true
}

// yearToMonth reads Spark's 'y-m' YEAR TO MONTH form, with an optional sign.
func (a *ymAcc) yearToMonth(p *parser, v token) {
	s := strings.TrimSpace(v.val)
	neg := false
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		neg, s = s[0] == '-', s[1:]
	}
	y, m, ok := strings.Cut(s, "-")
	yn, err1 := strconv.ParseInt(y, 10, 64)
	mn, err2 := strconv.ParseInt(m, 10, 64)
	if !ok || err1 != nil || err2 != nil || yn < 0 || mn < 0 || mn > 11 || strings.HasPrefix(m, "+") || strings.HasPrefix(y, "+") {
		p.fail(v, "write it as INTERVAL '2-11' YEAR TO MONTH (years, a dash, 0 to 11 months)", "invalid YEAR TO MONTH interval %s", quoteString(v.val))
	}
	n := yn*12 + mn
	if neg {
		n = -n
	}
	a.months += n
	a.seen, a.toForm = true, true
	a.check(p, v)
}

// check refuses a total outside Spark's 32-bit months.
func (a *ymAcc) check(p *parser, at token) {
	if a.months > math.MaxInt32 || a.months < math.MinInt32 {
		p.fail(at, "", "[INTERVAL_ARITHMETIC_OVERFLOW] the interval overflows its 32-bit count of months. SQLSTATE: 22015")
	}
}

// literal is the year-month interval literal, refusing a mix with days
// or times (Spark's CalendarIntervalType, which Atlas has no literal of).
func (a *ymAcc) literal(p *parser, kw token) *Literal {
	if a.dayTime {
		p.fail(kw, "write the years and months and the days and times as two intervals and add them",
			"an interval literal mixing years or months with days or times (Spark's CALENDAR interval) is not supported")
	}
	fields := "YEAR TO MONTH"
	switch {
	case a.toForm:
	case a.years && !a.monthsIn:
		fields = "YEAR"
	case a.monthsIn && !a.years:
		fields = "MONTH"
	}
	return &Literal{Kind: YearMonthIntervalLiteral, Value: a.months, Text: fields, At: kw.pos}
}

// negateText puts a minus before value, or takes one off.
func negateText(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "-") {
		return v[1:]
	}
	return "-" + strings.TrimPrefix(v, "+")
}

// YearMonthText is Spark's ANSI text of a year-month interval of months
// with fields YEAR, MONTH or YEAR TO MONTH (IntervalUtils
// .toYearMonthIntervalString): INTERVAL '1' YEAR, INTERVAL '-2' MONTH,
// INTERVAL '-1-1' YEAR TO MONTH.
func YearMonthText(months int64, fields string) string {
	switch fields {
	case "YEAR":
		return "INTERVAL '" + strconv.FormatInt(months/12, 10) + "' YEAR"
	case "MONTH":
		return "INTERVAL '" + strconv.FormatInt(months, 10) + "' MONTH"
	}
	sign := ""
	if months < 0 {
		sign, months = "-", -months
	}
	return "INTERVAL '" + sign + strconv.FormatInt(months/12, 10) + "-" + strconv.FormatInt(months%12, 10) + "' YEAR TO MONTH"
}
