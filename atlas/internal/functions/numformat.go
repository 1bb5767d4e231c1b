package functions

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// This file is Spark's number format patterns (ToNumberParser), which
// to_number, try_to_number, to_char and to_varchar share: 0 and 9 digits,
// . or D the decimal point, , or G a thousands separator, $ a currency
// sign, S an optional sign, MI an optional minus, PR angle brackets for a
// negative number. It is written by hand because no Go library implements
// this Oracle-style grammar with Spark's exact acceptance rules.

type numTokKind uint8

const (
	ntDigitGroups numTokKind = iota
	ntDecimalPoint
	ntThousands
	ntDollar
	ntPlusMinus  // S
	ntMinus      // MI
	ntOpenAngle  // PR, at the start
	ntCloseAngle // PR, at the end
	ntInvalid
)

// numTok is one token of a number format. A digit run is exactly or at
// most n digits; a digit group holds the runs and thousands separators
// between two other tokens, in format order.
type numTok struct {
	kind    numTokKind
	n       int  // digit run: its digit count
	exactly bool // digit run: exactly n digits (a run starting with 0 before the point)
	group   []numTok
	char    rune // ntInvalid
}

// String names a token as Spark's error messages do.
func (t numTok) String() string {
	switch t.kind {
	case ntDigitGroups:
		return "digit sequence"
	case ntDecimalPoint:
		return ". or D"
	case ntThousands:
		return ", or G"
	case ntDollar:
		return "$"
	case ntPlusMinus:
		return "S"
	case ntMinus:
		return "MI"
	case ntOpenAngle, ntCloseAngle:
		return "PR"
	}
	return fmt.Sprintf("character '%c''", t.char)
}

// numFormat is a parsed, validated number format.
type numFormat struct {
	text             string
	toks             []numTok
	precision, scale int
}

// isRun reports whether t is a digit run inside a group.
func (t numTok) isRun() bool { return t.kind == ntDigitGroups && t.group == nil }

// tokenizeNumFormat is ToNumberParser.formatTokens.
func tokenizeNumFormat(f string) []numTok {
	var toks []numTok
	pointSeen := false
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == '0' || c == '9':
			j := i + 1
			for j < len(f) && (f[j] == '0' || f[j] == '9') {
				j++
			}
			toks = append(toks, numTok{kind: ntDigitGroups, n: j - i, exactly: c == '0' && !pointSeen})
			i = j
		case c == '.' || c == 'D':
			toks, pointSeen, i = append(toks, numTok{kind: ntDecimalPoint}), true, i+1
		case c == ',' || c == 'G':
			toks, i = append(toks, numTok{kind: ntThousands}), i+1
		case c == '$':
			toks, i = append(toks, numTok{kind: ntDollar}), i+1
		case c == 'S':
			toks, i = append(toks, numTok{kind: ntPlusMinus}), i+1
		case c == 'M' && i+1 < len(f) && f[i+1] == 'I':
			toks, i = append(toks, numTok{kind: ntMinus}), i+2
		case c == 'P' && i+1 < len(f) && f[i+1] == 'R':
			toks = append([]numTok{{kind: ntOpenAngle}}, toks...)
			toks, i = append(toks, numTok{kind: ntCloseAngle}), i+2
		default:
			r := []rune(f[i:])[0]
			toks, i = append(toks, numTok{kind: ntInvalid, char: r}), i+len(string(r))
		}
	}
	// Consecutive digit runs and separators become one digit group.
	var out []numTok
	var cur []numTok
	flush := func() {
		if cur != nil {
			out = append(out, numTok{kind: ntDigitGroups, group: cur})
			cur = nil
		}
	}
	for _, t := range toks {
		if t.isRun() || t.kind == ntThousands {
			cur = append(cur, t)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// runs returns a group's digit runs in format order.
func (t numTok) runs() []numTok {
	var out []numTok
	for _, g := range t.group {
		if g.isRun() {
			out = append(out, g)
		}
	}
	return out
}

func (t numTok) digitCount() int {
	n := 0
	for _, r := range t.runs() {
		n += r.n
	}
	return n
}

func formatErr(sub, format, detail string) error {
	return fmt.Errorf("[INVALID_FORMAT.%s] The format is invalid: '%s'. %s SQLSTATE: 42601", sub, format, detail)
}

// parseNumFormat tokenizes and validates a format as Spark's
// checkInputDataTypes does.
func parseNumFormat(f string) (*numFormat, error) {
	nf := &numFormat{text: f, toks: tokenizeNumFormat(f)}
	if f == "" {
		return nil, formatErr("EMPTY", f, "The number format string cannot be empty.")
	}
	firstDollar, firstDigit, firstPoint := -1, -1, -1
	for i, t := range nf.toks {
		switch {
		case t.kind == ntDollar && firstDollar < 0:
			firstDollar = i
		case t.kind == ntDigitGroups && firstDigit < 0:
			firstDigit = i
		case t.kind == ntDecimalPoint && firstPoint < 0:
			firstPoint = i
		}
	}
	if firstDigit < 0 {
		return nil, formatErr("WRONG_NUM_DIGIT", f, "The format string requires at least one number digit.")
	}
	if firstDigit < firstDollar {
		return nil, formatErr("CUR_MUST_BEFORE_DIGIT", f, "Currency characters must appear before digits in the number format.")
	}
	if firstPoint >= 0 && firstPoint < firstDollar {
		return nil, formatErr("CUR_MUST_BEFORE_DEC", f, "Currency characters must appear before any decimal point in the number format.")
	}
	for i, t := range nf.toks {
		if t.kind != ntDigitGroups {
			continue
		}
		before := firstPoint < 0 || i < firstPoint
		for j, g := range t.group {
			if g.kind != ntThousands {
				continue
			}
			if !before {
				return nil, formatErr("THOUSANDS_SEPS_MUST_BEFORE_DEC", f, "Thousands separators (, or G) may not appear after the decimal point in the number format.")
			}
			if j == 0 || j == len(t.group)-1 || t.group[j-1].kind == ntThousands || t.group[j+1].kind == ntThousands {
				return nil, formatErr("CONT_THOUSANDS_SEPS", f, "Thousands separators (, or G) must have digits in between them in the number format.")
			}
		}
	}
	counts := map[numTokKind]int{}
	for _, t := range nf.toks {
		counts[t.kind]++
	}
	for _, k := range []numTokKind{ntDecimalPoint, ntPlusMinus, ntMinus, ntDollar, ntCloseAngle} {
		if counts[k] > 1 {
			return nil, formatErr("WRONG_NUM_TOKEN", f, fmt.Sprintf("At most one %s is allowed in the number format.", numTok{kind: k}))
		}
	}
	if err := checkNumFormatOrder(nf.toks, f); err != nil {
		return nil, err
	}
	pointSeen := false
	for _, t := range nf.toks {
		switch t.kind {
		case ntDecimalPoint:
			pointSeen = true
		case ntDigitGroups:
			nf.precision += t.digitCount()
			if pointSeen {
				nf.scale += t.digitCount()
			}
		}
	}
	return nf, nil
}

// checkNumFormatOrder enforces the order
// [PR] [MI|S] [$] [digits] [.|D] [digits] [$] [PR|MI|S].
func checkNumFormatOrder(toks []numTok, f string) error {
	allowed := [][]numTokKind{
		{ntOpenAngle}, {ntMinus, ntPlusMinus}, {ntDollar}, {ntDigitGroups},
		{ntDecimalPoint}, {ntDigitGroups}, {ntDollar}, {ntMinus, ntPlusMinus, ntCloseAngle},
	}
	i := 0
	for _, kinds := range allowed {
		if i < len(toks) {
			for _, k := range kinds {
				if toks[i].kind == k {
					i++
					break
				}
			}
		}
	}
	if i < len(toks) {
		return formatErr("UNEXPECTED_TOKEN", f, fmt.Sprintf("Found the unexpected %s in the format string; the structure of the format string must match: [MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S].", toks[i]))
	}
	return nil
}

// parse is ToNumberParser.parse: the decimal the input means, ok=false
// when it does not match the format.
func (nf *numFormat) parse(input string) (expr.Decimal, bool) {
	in := utf16.Encode([]rune(input)) // Spark indexes Java chars
	var before, after []byte
	pointSeen, opened, closed, negate := false, false, false, false
	i := 0
	for _, t := range nf.toks {
		has := i < len(in)
		var c uint16
		if has {
			c = in[i]
		}
		switch t.kind {
		case ntDigitGroups:
			next, ok := parseDigitGroups(t, in, i, pointSeen, &before, &after)
			if !ok {
				return expr.Decimal{}, false
			}
			i = next
		case ntDecimalPoint:
			if has && c == '.' {
				pointSeen = true
				i++
			}
		case ntDollar:
			if has {
				if c != '$' {
					return expr.Decimal{}, false
				}
				i++
			}
		case ntPlusMinus:
			if has && (c == '+' || c == '-') {
				negate = negate != (c == '-')
				i++
			}
		case ntMinus:
			if has && c == '-' {
				negate = !negate
				i++
			}
		case ntOpenAngle:
			if has && c == '<' {
				if opened {
					return expr.Decimal{}, false
				}
				opened = true
				i++
			}
		case ntCloseAngle:
			if has && c == '>' {
				if !opened {
					return expr.Decimal{}, false
				}
				closed, negate = true, !negate
				i++
			}
		}
	}
	if i < len(in) || opened != closed || (len(before) == 0 && len(after) == 0) {
		return expr.Decimal{}, false
	}
	for len(after) < nf.scale {
		after = append(after, '0')
	}
	v, _ := new(big.Int).SetString(string(before)+string(after), 10)
	if negate {
		v.Neg(v)
	}
	return expr.Decimal{Unscaled: decimal128.FromBigInt(v), Precision: int32(nf.precision), Scale: int32(nf.scale)}, true
}

// parseDigitGroups is ToNumberParser.parseDigitGroups: it reads digits,
// commas and whitespace from in[i:] and checks the digits in each
// comma-separated group against the format's runs, from the right.
func parseDigitGroups(t numTok, in []uint16, i int, pointSeen bool, before, after *[]byte) (int, bool) {
	var sizes []int // from the last group to the first
	cur := 0
	for ; i < len(in); i++ {
		c := rune(in[i])
		if javaWhitespace(c) {
			continue
		}
		if d := javaDigit(c); d >= 0 {
			cur++
			if pointSeen {
				*after = append(*after, byte('0'+d))
			} else {
				*before = append(*before, byte('0'+d))
			}
			continue
		}
		if c == ',' {
			sizes = append([]int{cur}, sizes...)
			cur = 0
			continue
		}
		break
	}
	sizes = append([]int{cur}, sizes...)
	runs := t.runs()
	if len(sizes) > len(runs) {
		return i, false // more separators than the format has
	}
	for k := range runs {
		want := runs[len(runs)-1-k]
		got := 0
		if k < len(sizes) {
			got = sizes[k]
		}
		if (want.exactly && got != want.n) || got > want.n {
			return i, false
		}
	}
	return i, true
}

// javaWhitespace is Java's Character.isWhitespace: Unicode space
// separators except the no-break ones, line and paragraph separators, and
// \t \n \v \f \r and U+001C to U+001F.
func javaWhitespace(c rune) bool {
	switch {
	case c == '\t', c == '\n', c == '\v', c == '\f', c == '\r', c >= 0x1C && c <= 0x1F:
		return true
	case c == 0xA0, c == 0x2007, c == 0x202F:
		return false
	}
	return unicode.In(c, unicode.Zs, unicode.Zl, unicode.Zp)
}

// javaDigit is Character.digit(c, 10) for Character.isDigit characters.
func javaDigit(c rune) int {
	if c >= '0' && c <= '9' {
		return int(c - '0')
	}
	if unicode.IsDigit(c) {
		// Unicode decimal digits come in runs of ten from their zero.
		for z := c; z > c-10; z-- {
			if !unicode.IsDigit(z - 1) {
				return int(c - z)
			}
		}
	}
	return -1
}

// format is ToNumberParser.format: the decimal written with the format;
// digits that do not fit become '#'.
func (nf *numFormat) format(d expr.Decimal) string {
	plain := expr.DecimalString(d.Unscaled, d.Scale)
	neg := d.Unscaled.Sign() < 0
	intPart, frac, _ := strings.Cut(plain, ".")
	intPart = strings.TrimLeft(intPart, "-0")
	frac = strings.TrimRight(frac, "0")
	nBefore, nAfter := 0, 0
	pointSeen := false
	for _, t := range nf.toks {
		switch t.kind {
		case ntDecimalPoint:
			pointSeen = true
		case ntDigitGroups:
			if pointSeen {
				nAfter += t.digitCount()
			} else {
				nBefore += t.digitCount()
			}
		}
	}
	if nBefore < len(intPart) || nAfter < len(frac) {
		intPart, frac = strings.Repeat("#", nBefore), strings.Repeat("#", nAfter)
	}
	intPart = strings.Repeat(" ", nBefore-len(intPart)) + intPart
	frac += strings.Repeat("0", nAfter-len(frac))

	var out []byte
	bi, ai := 0, 0
	pointSeen = false
	for _, t := range nf.toks {
		switch t.kind {
		case ntDigitGroups:
			for _, g := range t.group {
				switch {
				case g.kind == ntThousands:
					if len(out) > 0 && out[len(out)-1] >= '0' && out[len(out)-1] <= '9' {
						out = append(out, ',')
					} else {
						out = appendSpaceAfterSigns(out)
					}
				case !pointSeen:
					for k := 0; k < g.n; k++ {
						switch c := intPart[bi]; {
						case c == ' ' && g.exactly:
							out = append(out, '0')
						case c == ' ':
							out = appendSpaceAfterSigns(out)
						default:
							out = append(out, c)
						}
						bi++
					}
				default:
					out = append(out, frac[ai:ai+g.n]...)
					ai += g.n
				}
			}
		case ntDecimalPoint:
			if len(out) > 0 && out[len(out)-1] == ' ' {
				out[len(out)-1] = '0'
			}
			out, pointSeen = append(out, '.'), true
		case ntDollar:
			out = append(out, '$')
		case ntPlusMinus:
			stripLonePoint(out)
			if neg {
				out = appendBeforeSpaces(out, '-')
			} else {
				out = appendBeforeSpaces(out, '+')
			}
		case ntMinus:
			if neg {
				stripLonePoint(out)
				out = appendBeforeSpaces(out, '-')
			} else {
				out = append(out, ' ')
			}
		case ntOpenAngle:
			if neg {
				out = append(out, '<')
			}
		case ntCloseAngle:
			stripLonePoint(out)
			if neg {
				out = appendBeforeSpaces(out, '>')
			} else {
				out = append(out, ' ', ' ')
			}
		}
	}
	stripLonePoint(out)
	s := string(out)
	if s == "" || s == "+" || s == "-" {
		return "0"
	}
	return s
}

// appendBeforeSpaces appends c and moves it left past the spaces before
// it (addCharacterCheckingTrailingSpaces).
func appendBeforeSpaces(out []byte, c byte) []byte {
	out = append(out, c)
	for i := len(out) - 1; i >= 1 && out[i-1] == ' ' && out[i] == c; i-- {
		out[i], out[i-1] = ' ', c
	}
	return out
}

// appendSpaceAfterSigns appends a space and moves it left past the signs
// and '<' before it (addSpaceCheckingTrailingCharacters).
func appendSpaceAfterSigns(out []byte) []byte {
	out = append(out, ' ')
	for i := len(out) - 1; i >= 1 && (out[i-1] == '+' || out[i-1] == '-' || out[i-1] == '<') && out[i] == ' '; i-- {
		out[i], out[i-1] = out[i-1], ' '
	}
	return out
}

// stripLonePoint turns a decimal point that ends the text, or is followed
// by a space, into a space (stripTrailingLoneDecimalPoint).
func stripLonePoint(out []byte) {
	if i := strings.IndexByte(string(out), '.'); i >= 0 && (i == len(out)-1 || out[i+1] == ' ') {
		out[i] = ' '
	}
}
