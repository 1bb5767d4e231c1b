package jsonx

import (
	"encoding/binary"
	"math/bits"
)

// This file holds the JSON lexer: whitespace, strings, numbers, literals and
// skipping a whole value. Every function takes the value's bytes and a
// position and returns the position after what it read, with a syntax error
// code (synOK when the text is valid JSON as Spark's Jackson accepts it).

// synErr is why a value is not valid JSON.
type synErr uint8

const (
	synOK synErr = iota
	synEOF
	synUnexpected
	synControl
	synEscape
	synNumber
	synLeadingZero
	synDepth
	synNotObject
)

func (e synErr) String() string {
	switch e {
	case synEOF:
		return "unexpected end of input"
	case synUnexpected:
		return "unexpected character"
	case synControl:
		return "unescaped control character in string"
	case synEscape:
		return "invalid escape in string"
	case synNumber:
		return "invalid number"
	case synLeadingZero:
		return "number with a leading zero"
	case synDepth:
		return "nesting deeper than 1000 levels"
	case synNotObject:
		return "not a JSON object"
	}
	return "ok"
}

// maxDepth is Jackson's default maximum nesting depth.
const maxDepth = 1000

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\n', '\r', '\t':
			i++
		default:
			return i
		}
	}
	return i
}

// Byte classes inside a quoted string.
const (
	chPlain uint8 = iota
	chQuote
	chEscape
	chControl
	chHigh
)

// stringClass classifies every byte inside a string quoted by one quote
// character. The two tables are built once and only read.
type stringClass [256]uint8

var (
	doubleQuoted = newStringClass('"')
	singleQuoted = newStringClass('\'')
)

func newStringClass(q byte) *stringClass {
	var c stringClass
	for i := 0; i < 0x20; i++ {
		c[i] = chControl
	}
	for i := 0x80; i < 0x100; i++ {
		c[i] = chHigh
	}
	c['\\'] = chEscape
	c[q] = chQuote
	return &c
}

func classOf(q byte) *stringClass {
	if q == '\'' {
		return singleQuoted
	}
	return doubleQuoted
}

// String flags returned by scanString.
const (
	strEscaped uint8 = 1 << iota // has a backslash escape
	strHigh                      // has a byte >= 0x80
)

// scanString reads the content of a string starting at b[i], just after the
// opening quote, up to the closing quote. It returns the index of the
// closing quote.
func scanString(b []byte, i int, cls *stringClass) (end int, flags uint8, err synErr) {
	for {
		if cls == doubleQuoted && i+8 <= len(b) {
			// 8 bytes a step, then straight to the first special byte.
			for {
				if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
				if i += 8; i+8 > len(b) {
					break
				}
			}
		}
		for i < len(b) && cls[b[i]] == chPlain {
			i++
		}
		if i >= len(b) {
			return i, flags, synEOF
		}
		switch cls[b[i]] {
		case chQuote:
			return i, flags, synOK
		case chEscape:
			flags |= strEscaped
			if i+1 >= len(b) {
				return i, flags, synEOF
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', '\'':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(b) {
						return k, flags, synEOF
					}
					if unhex(b[k]) < 0 {
						return k, flags, synEscape
					}
				}
				i += 6
			default:
				return i, flags, synEscape
			}
		case chControl:
			return i, flags, synControl
		default: // chHigh
			flags |= strHigh
			i++
		}
	}
}

// SWAR constants: a byte of ones and a byte of high bits in each lane.
const (
	ones8 = 0x0101010101010101
	high8 = 0x8080808080808080
)

// specialBytes flags the bytes of w (8 bytes, little-endian) that end or
// interrupt a double-quoted string: a quote, a backslash, a control byte
// or a byte >= 0x80. Each term is the classic "has a zero byte" test,
// whose borrows only run upwards: the lowest flagged lane is exactly the
// first special byte (higher lanes may be flagged falsely), so
// TrailingZeros64(m)/8 is its index, and m is 0 when there is none.
func specialBytes(w uint64) uint64 {
	q := w ^ ('"' * ones8)
	bs := w ^ ('\\' * ones8)
	return (((q - ones8) &^ q) | ((bs - ones8) &^ bs) | ((w - 0x20*ones8) &^ w) | w) & high8
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hasLit reports whether b[i:] starts with lit.
func hasLit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// number is a scanned JSON number: value = ±mant × 10^exp, exactly when
// !inexact.
type number struct {
	mant    uint64
	exp     int
	neg     bool
	isFloat bool // had a fraction or an exponent: Jackson's VALUE_NUMBER_FLOAT
	inexact bool // more than 19 significant digits: mant is truncated
}

// scanNumber reads a JSON number starting at b[i], which is '-' or a digit.
func scanNumber(b []byte, i int) (n number, end int, err synErr) {
	if b[i] == '-' {
		n.neg = true
		i++
		if i >= len(b) {
			return n, i, synEOF
		}
	}
	digits := 0 // significant digits in mant
	switch c := b[i]; {
	case c == '0':
		i++
		if i < len(b) && isDigit(b[i]) {
			return n, i, synLeadingZero
		}
	case c >= '1' && c <= '9':
		for i < len(b) && isDigit(b[i]) {
			if digits < 19 {
				n.mant = n.mant*10 + uint64(b[i]-'0')
				digits++
			} else {
				n.inexact = true
				n.exp++
			}
			i++
		}
	default:
		return n, i, synNumber
	}
	if i < len(b) && b[i] == '.' {
		n.isFloat = true
		i++
		start := i
		for i < len(b) && isDigit(b[i]) {
			if digits < 19 {
				n.mant = n.mant*10 + uint64(b[i]-'0')
				n.exp--
				if n.mant != 0 {
					digits++
				}
			} else {
				n.inexact = true
			}
			i++
		}
		if i == start {
			return n, i, synNumber
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		n.isFloat = true
		i++
		neg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			neg = b[i] == '-'
			i++
		}
		start, e := i, 0
		for i < len(b) && isDigit(b[i]) {
			if e < 1_000_000 {
				e = e*10 + int(b[i]-'0')
			}
			i++
		}
		if i == start {
			return n, i, synNumber
		}
		if neg {
			e = -e
		}
		n.exp += e
	}
	return n, i, synOK
}

// int64 returns the number as an int64 when it is a JSON integer in range.
func (n *number) int64() (int64, bool) {
	if n.isFloat || n.inexact {
		return 0, false
	}
	if n.neg {
		if n.mant > 1<<63 {
			return 0, false
		}
		return -int64(n.mant), true
	}
	if n.mant > 1<<63-1 {
		return 0, false
	}
	return int64(n.mant), true
}

// float64 returns the number when it can be computed exactly from mant and
// exp with one correctly rounded operation (Clinger's fast path).
func (n *number) float64() (float64, bool) {
	if n.inexact || n.mant > 1<<53 || n.exp < -22 || n.exp > 22 {
		return 0, false
	}
	f := float64(n.mant)
	if n.exp < 0 {
		f /= pow10[-n.exp]
	} else {
		f *= pow10[n.exp]
	}
	if n.neg {
		f = -f
	}
	return f, true
}

var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Non-numeric numbers Jackson accepts with ALLOW_NON_NUMERIC_NUMBERS.
const (
	specialNone = iota
	specialNaN
	specialPosInf
	specialNegInf
)

// scanSpecial reads NaN, Infinity, +Infinity, -Infinity, +INF or -INF at
// b[i]. It returns specialNone when none is there.
func scanSpecial(b []byte, i int) (int, int) {
	if i >= len(b) {
		return specialNone, i
	}
	switch b[i] {
	case 'N':
		if hasLit(b, i, "NaN") {
			return specialNaN, i + 3
		}
	case 'I':
		if hasLit(b, i, "Infinity") {
			return specialPosInf, i + 8
		}
	case '+', '-':
		sign := specialPosInf
		if b[i] == '-' {
			sign = specialNegInf
		}
		if hasLit(b, i+1, "Infinity") {
			return sign, i + 9
		}
		if hasLit(b, i+1, "INF") {
			return sign, i + 4
		}
	}
	return specialNone, i
}

// skipValue reads and validates one JSON value starting at b[i] (not
// whitespace) and returns the position after it. depth is the nesting depth
// of the value.
func skipValue(b []byte, i int, depth int) (int, synErr) {
	if i >= len(b) {
		return i, synEOF
	}
	switch c := b[i]; c {
	case '"', '\'':
		end, _, err := scanString(b, i+1, classOf(c))
		if err != synOK {
			return end, err
		}
		return end + 1, synOK
	case '{':
		return skipObject(b, i+1, depth+1)
	case '[':
		return skipArray(b, i+1, depth+1)
	case 't':
		if hasLit(b, i, "true") {
			return i + 4, synOK
		}
	case 'f':
		if hasLit(b, i, "false") {
			return i + 5, synOK
		}
	case 'n':
		if hasLit(b, i, "null") {
			return i + 4, synOK
		}
	default:
		if sp, end := scanSpecial(b, i); sp != specialNone {
			return end, synOK
		}
		if c == '-' || isDigit(c) {
			_, end, err := scanNumber(b, i)
			return end, err
		}
	}
	return i, synUnexpected
}

// skipObject skips the members of an object whose '{' is at b[i-1].
func skipObject(b []byte, i int, depth int) (int, synErr) {
	if depth > maxDepth {
		return i, synDepth
	}
	i = skipWS(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, synOK
	}
	for {
		if i >= len(b) {
			return i, synEOF
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return i, synUnexpected
		}
		end, _, err := scanString(b, i+1, classOf(q))
		if err != synOK {
			return end, err
		}
		if i, err = skipColon(b, end+1); err != synOK {
			return i, err
		}
		if i, err = skipValue(b, i, depth); err != synOK {
			return i, err
		}
		var more bool
		if i, more, err = nextMember(b, i, '}'); err != synOK || !more {
			return i, err
		}
	}
}

// skipArray skips the elements of an array whose '[' is at b[i-1].
func skipArray(b []byte, i int, depth int) (int, synErr) {
	if depth > maxDepth {
		return i, synDepth
	}
	i = skipWS(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1, synOK
	}
	for {
		var err synErr
		if i, err = skipValue(b, i, depth); err != synOK {
			return i, err
		}
		var more bool
		if i, more, err = nextMember(b, i, ']'); err != synOK || !more {
			return i, err
		}
	}
}

// skipColon reads the ':' after an object key (with the whitespace around
// it) and returns the position of the value.
func skipColon(b []byte, i int) (int, synErr) {
	i = skipWS(b, i)
	if i >= len(b) {
		return i, synEOF
	}
	if b[i] != ':' {
		return i, synUnexpected
	}
	i = skipWS(b, i+1)
	if i >= len(b) {
		return i, synEOF
	}
	return i, synOK
}

// nextMember reads what follows a member of an object or an element of an
// array: a comma (more=true, i after it and its blanks) or the closing
// byte (more=false, i after it).
func nextMember(b []byte, i int, closing byte) (next int, more bool, err synErr) {
	i = skipWS(b, i)
	if i >= len(b) {
		return i, false, synEOF
	}
	switch b[i] {
	case ',':
		return skipWS(b, i+1), true, synOK
	case closing:
		return i + 1, false, synOK
	}
	return i, false, synUnexpected
}
