package functions

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

// This file is format_string and printf: Java's java.util.Formatter, which
// Spark calls with the arguments' internal values (a date is its day
// number, a timestamp its microseconds). Written by hand because Go's fmt
// differs from Java's in its conversions (%x of a negative number, %g,
// %b, grouping) and arguments are typed as Spark types them.

func formatStringDef() *Def {
	return &Def{Name: "format_string", Aliases: []string{"printf"}, Group: "string", MinArgs: 1, MaxArgs: -1,
		Build: func(called string, args []expr.Expr) (expr.Expr, error) {
			var in []arrow.DataType // the arguments' types, set when bound
			impl := &rowImpl{nullSafe: true, mayBeNull: false}
			impl.resolve = func(got []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
				for i, t := range got[1:] {
					switch t.ID() {
					case arrow.BINARY, arrow.LIST, arrow.STRUCT, arrow.MAP:
						return nil, nil, fmt.Errorf("argument %d: Atlas does not format %s values in format_string (Java prints their internal objects)", i+2, t)
					}
				}
				in = got[1:]
				want := make([]arrow.DataType, len(got))
				want[0] = tString
				return want, tString, nil
			}
			impl.eval = func(v []any) (any, error) {
				if v[0] == nil {
					return nil, nil
				}
				return javaFormat(v[0].(string), v[1:], in)
			}
			return &rowCall{name: called, args: args, impl: impl}, nil
		}}
}

// fmtSpec is one %[index$][flags][width][.precision]conversion.
type fmtSpec struct {
	flags      string
	width      int
	prec       int // -1: none
	conv       byte
	upper      bool
	index      int // 0: next ordinary argument; -1: the previous one (<)
	hasWidth   bool
	text, full string
}

// javaFormat is String.format(format, args...).
func javaFormat(format string, args []any, typs []arrow.DataType) (string, error) {
	var b strings.Builder
	next, last := 0, -1
	for i := 0; i < len(format); {
		if format[i] != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				j = len(format) - i
			}
			b.WriteString(format[i : i+j])
			i += j
			continue
		}
		sp, n, err := parseFmtSpec(format[i:])
		if err != nil {
			return "", err
		}
		i += n
		switch sp.conv {
		case '%':
			b.WriteString(pad("%", sp))
			continue
		case 'n':
			b.WriteByte('\n')
			continue
		}
		k := sp.index - 1
		switch {
		case sp.index == -1:
			k = last
		case sp.index == 0:
			k = next
			next++
		}
		if k < 0 || k >= len(args) {
			return "", fmt.Errorf("java.util.MissingFormatArgumentException: Format specifier '%s'", sp.full)
		}
		last = k
		s, err := formatArg(sp, args[k], typs[k])
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// parseFmtSpec reads the specifier at the start of s (which is '%').
func parseFmtSpec(s string) (fmtSpec, int, error) {
	sp := fmtSpec{prec: -1}
	i := 1
	digits := func() (int, bool) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		n, _ := strconv.Atoi(s[i:j])
		i = j
		return n, true
	}
	// An argument index is digits followed by '$'.
	if j := i; j < len(s) && s[j] >= '1' && s[j] <= '9' {
		save := i
		if n, ok := digits(); ok && i < len(s) && s[i] == '$' {
			sp.index, i = n, i+1
		} else {
			i = save
		}
	}
	for i < len(s) && strings.IndexByte("-#+ 0,(<", s[i]) >= 0 {
		if s[i] == '<' {
			sp.index = -1
		} else {
			sp.flags += string(s[i])
		}
		i++
	}
	if n, ok := digits(); ok {
		sp.width, sp.hasWidth = n, true
	}
	if i < len(s) && s[i] == '.' {
		i++
		n, ok := digits()
		if !ok {
			return sp, 0, fmt.Errorf("java.util.IllegalFormatPrecisionException in %q", s)
		}
		sp.prec = n
	}
	if i >= len(s) {
		return sp, 0, fmt.Errorf("java.util.UnknownFormatConversionException: Conversion = '%%'")
	}
	c := s[i]
	sp.full = s[:i+1]
	if c >= 'A' && c <= 'Z' && c != 'A' {
		sp.upper, c = true, c+('a'-'A')
	}
	if strings.IndexByte("bscdoxefg%n", c) < 0 {
		return sp, 0, fmt.Errorf("java.util.UnknownFormatConversionException: Conversion = '%c' (Atlas formats %%b %%s %%c %%d %%o %%x %%e %%f %%g %%%% %%n)", s[i])
	}
	if (strings.Contains(sp.flags, "-") || strings.Contains(sp.flags, "0")) && !sp.hasWidth {
		return sp, 0, fmt.Errorf("java.util.MissingFormatWidthException: %s", sp.full)
	}
	sp.conv = c
	return sp, i + 1, nil
}

// pad justifies s to the width, upper-casing it for an upper-case
// conversion.
func pad(s string, sp fmtSpec) string {
	if sp.upper {
		s = strings.ToUpper(s)
	}
	n := utf8.RuneCountInString(s)
	if n >= sp.width {
		return s
	}
	fill := strings.Repeat(" ", sp.width-n)
	if strings.Contains(sp.flags, "-") {
		return s + fill
	}
	return fill + s
}

// javaString is String.valueOf of the internal value Spark passes.
func javaString(v any, t arrow.DataType) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if t.ID() == arrow.FLOAT32 {
			return numfmt.JavaFloat(x, 32)
		}
		return numfmt.JavaFloat(x, 64)
	case expr.Decimal:
		return x.String()
	case time.Time:
		if t.ID() == arrow.DATE32 {
			return strconv.FormatInt(int64(arrow.Date32FromTime(x)), 10)
		}
		return strconv.FormatInt(x.UnixMicro(), 10)
	}
	return fmt.Sprint(v)
}

func conversionErr(sp fmtSpec, t arrow.DataType) error {
	return fmt.Errorf("java.util.IllegalFormatConversionException: %c != %s", sp.conv, javaClass(t))
}

// javaClass names the Java class Spark passes for a type.
func javaClass(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "org.apache.spark.unsafe.types.UTF8String"
	case arrow.BOOL:
		return "java.lang.Boolean"
	case arrow.INT8:
		return "java.lang.Byte"
	case arrow.INT16:
		return "java.lang.Short"
	case arrow.INT32, arrow.DATE32:
		return "java.lang.Integer"
	case arrow.INT64, arrow.TIMESTAMP:
		return "java.lang.Long"
	case arrow.FLOAT32:
		return "java.lang.Float"
	case arrow.FLOAT64:
		return "java.lang.Double"
	case arrow.DECIMAL128:
		return "org.apache.spark.sql.types.Decimal"
	}
	return t.String()
}

// formatArg formats one argument.
func formatArg(sp fmtSpec, v any, t arrow.DataType) (string, error) {
	switch sp.conv {
	case 'b':
		s := "true"
		if v == nil {
			s = "false"
		} else if b, ok := v.(bool); ok {
			s = strconv.FormatBool(b)
		}
		return pad(truncate(s, sp.prec), sp), nil
	case 's':
		return pad(truncate(javaString(v, t), sp.prec), sp), nil
	}
	if v == nil {
		return pad("null", sp), nil
	}
	switch sp.conv {
	case 'c':
		n, ok := v.(int64)
		if !ok || t.ID() == arrow.INT64 || t.ID() == arrow.DATE32 {
			return "", conversionErr(sp, t)
		}
		return pad(string(rune(n)), sp), nil
	case 'd', 'o', 'x':
		n, ok := v.(int64)
		if !ok || t.ID() == arrow.BOOL {
			return "", conversionErr(sp, t)
		}
		return formatInteger(sp, n, t), nil
	}
	f, ok := v.(float64)
	if !ok {
		return "", conversionErr(sp, t)
	}
	return formatFloat(sp, f, t), nil
}

func truncate(s string, prec int) string {
	if prec >= 0 && utf8.RuneCountInString(s) > prec {
		return string([]rune(s)[:prec])
	}
	return s
}

// intBits is the width of the Java integer Spark passes for a type.
func intBits(t arrow.DataType) uint {
	switch t.ID() {
	case arrow.INT8:
		return 8
	case arrow.INT16:
		return 16
	case arrow.INT32, arrow.DATE32:
		return 32
	}
	return 64
}

// formatInteger is %d, %o and %x: %o and %x of a negative number print its
// two's complement in the Java type's width.
func formatInteger(sp fmtSpec, n int64, t arrow.DataType) string {
	if sp.conv != 'd' {
		u := uint64(n)
		if bits := intBits(t); bits < 64 {
			u &= 1<<bits - 1
		}
		base, prefix := 16, "0x"
		if sp.conv == 'o' {
			base, prefix = 8, "0"
		}
		s := strconv.FormatUint(u, base)
		if !strings.Contains(sp.flags, "#") {
			prefix = ""
		}
		if strings.Contains(sp.flags, "0") && len(prefix)+len(s) < sp.width {
			s = strings.Repeat("0", sp.width-len(prefix)-len(s)) + s
		}
		return pad(prefix+s, sp)
	}
	digits := strconv.FormatUint(uint64(n), 10)
	if n < 0 {
		digits = strconv.FormatUint(uint64(-n), 10)
	}
	if strings.Contains(sp.flags, ",") {
		digits = groupThousands(digits)
	}
	return signAndPad(sp, digits, n < 0)
}

// signAndPad adds the sign (flags + ' ' '('), zero padding and
// justification to the digits of a number.
func signAndPad(sp fmtSpec, digits string, neg bool) string {
	pre, post := "", ""
	switch {
	case neg && strings.Contains(sp.flags, "("):
		pre, post = "(", ")"
	case neg:
		pre = "-"
	case strings.Contains(sp.flags, "+"):
		pre = "+"
	case strings.Contains(sp.flags, " "):
		pre = " "
	}
	if strings.Contains(sp.flags, "0") {
		if n := sp.width - len(pre) - len(post) - len(digits); n > 0 {
			digits = strings.Repeat("0", n) + digits
		}
	}
	return pad(pre+digits+post, sp)
}

func groupThousands(digits string) string {
	intPart, frac, hasFrac := strings.Cut(digits, ".")
	var b strings.Builder
	for i := 0; i < len(intPart); i++ {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// formatFloat is %e, %f and %g: Java rounds the shortest decimal digits of
// the double (Double.toString's) half-up, so %.1f of 0.15 is 0.2.
func formatFloat(sp fmtSpec, f float64, t arrow.DataType) string {
	if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		s := "NaN"
		if f == f {
			s = "Infinity"
			if f < 0 {
				s = "-Infinity"
			} else if strings.Contains(sp.flags, "+") {
				s = "+Infinity"
			}
		}
		return pad(s, sp)
	}
	prec := sp.prec
	if prec < 0 {
		prec = 6
	}
	bits := 64
	if t.ID() == arrow.FLOAT32 {
		bits = 32
	}
	neg := f < 0 || (f == 0 && 1/f < 0)
	if neg {
		f = -f
	}
	mant, exp := shortestDigits(f, bits) // f = 0.mant × 10^exp
	var body string
	switch sp.conv {
	case 'f':
		body = fixedDigits(mant, exp, prec)
	case 'e':
		body = sciDigits(mant, exp, prec)
	default: // g
		if prec == 0 {
			prec = 1
		}
		r, e := roundSignificant(mant, exp, prec)
		if f != 0 && (e-1 < -4 || e-1 >= prec) {
			body = sciDigits(r, e, prec-1)
		} else {
			body = fixedDigits(r, e, prec-e)
		}
	}
	if strings.Contains(sp.flags, ",") && sp.conv != 'e' {
		body = groupThousands(body)
	}
	return signAndPad(sp, body, neg)
}

// shortestDigits returns the shortest round-trip digits of f and its
// decimal exponent: f = 0.digits × 10^exp.
func shortestDigits(f float64, bits int) (string, int) {
	if f == 0 {
		return "0", 1
	}
	s := strconv.FormatFloat(f, 'e', -1, bits)
	m, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	return strings.Replace(m, ".", "", 1), exp + 1
}

// roundHalfUp rounds the digit string d (a value 0.d × 10^exp) to n
// digits, which may carry into a new leading digit.
func roundHalfUp(d string, exp, n int) (string, int) {
	if n < 0 {
		return "0", exp
	}
	if len(d) <= n {
		return d + strings.Repeat("0", n-len(d)), exp
	}
	up := d[n] >= '5'
	d = d[:n]
	if !up {
		return d, exp
	}
	v, _ := new(big.Int).SetString("0"+d, 10)
	v.Add(v, big.NewInt(1))
	s := v.String()
	if len(s) > n || n == 0 {
		if n == 0 {
			return "1", exp + 1
		}
		return s[:n], exp + 1
	}
	return strings.Repeat("0", n-len(s)) + s, exp
}

func roundSignificant(d string, exp, n int) (string, int) { return roundHalfUp(d, exp, n) }

// fixedDigits writes 0.d × 10^exp with prec digits after the point.
func fixedDigits(d string, exp, prec int) string {
	r := ""
	if n := exp + prec; n >= 0 {
		r, exp = roundHalfUp(d, exp, n)
	}
	if exp < 0 {
		r = strings.Repeat("0", -exp) + r
		exp = 0
	}
	if need := exp + prec; len(r) < need {
		r += strings.Repeat("0", need-len(r))
	}
	intPart, frac := r[:exp], r[exp:exp+prec]
	if intPart == "" {
		intPart = "0"
	}
	if prec == 0 {
		return intPart
	}
	return intPart + "." + frac
}

// sciDigits writes 0.d × 10^exp as d.ddd e±XX with prec fraction digits.
func sciDigits(d string, exp, prec int) string {
	r, e := roundHalfUp(d, exp, prec+1)
	if d == "0" {
		e = 1
	}
	s := r[:1]
	if prec > 0 {
		s += "." + r[1:]
	}
	x := e - 1
	sign := "+"
	if x < 0 {
		sign, x = "-", -x
	}
	return fmt.Sprintf("%se%s%02d", s, sign, x)
}
