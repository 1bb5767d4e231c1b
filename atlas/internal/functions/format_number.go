package functions

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// formatNumberDefs are format_number, to_binary and try_to_binary.
func formatNumberDefs() []*Def {
	return []*Def{
		row("format_number", "string", 2, 2, &rowImpl{resolve: formatNumberSig, mayBeNull: true, eval: func(v []any) (any, error) {
			return formatNumber(v[0], v[1])
		}}),
		{Name: "to_binary", Group: "string", MinArgs: 1, MaxArgs: 2, Build: buildToBinary(false)},
		{Name: "try_to_binary", Group: "string", MinArgs: 1, MaxArgs: 2, Build: buildToBinary(true)},
	}
}

// formatNumberSig takes a number and an INT (decimal places) or a STRING
// (a DecimalFormat pattern).
func formatNumberSig(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	switch in[0].ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.NULL:
	default:
		return nil, nil, fmt.Errorf("the first parameter requires the \"NUMERIC\" type, got %s", in[0])
	}
	second := tLong
	if in[1].ID() == arrow.STRING {
		second = tString
	}
	return []arrow.DataType{nil, second}, tString, nil
}

// decimalPattern is the part of Java's DecimalFormat patterns
// format_number takes: digits (# and 0), grouping (,) and a point.
type decimalPattern struct {
	minInt, minFrac, maxFrac, grouping int
}

// format_number's pattern for d decimal places.
func placesPattern(d int64) string {
	p := "#,###,###,###,###,###,##0"
	if d > 0 {
		p += "." + strings.Repeat("0", int(d))
	}
	return p
}

func parseDecimalPattern(p string) (decimalPattern, error) {
	var dp decimalPattern
	intPart, frac, hasPoint := strings.Cut(p, ".")
	if strings.Trim(intPart, "#0,") != "" || strings.Trim(frac, "#0") != "" || (hasPoint && strings.Contains(frac, ".")) {
		return dp, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: the format_number pattern %q: Atlas knows the digits # and 0, ',' and '.' of Java's DecimalFormat patterns. SQLSTATE: 0A000", p)
	}
	dp.minInt = strings.Count(intPart, "0")
	if i := strings.LastIndexByte(intPart, ','); i >= 0 {
		dp.grouping = len(intPart) - i - 1
	}
	dp.maxFrac = len(frac)
	dp.minFrac = strings.Count(frac, "0")
	return dp, nil
}

// formatNumber is format_number(x, d): x rounded half-even to d places
// (or by the pattern d) and grouped by thousands, as Java's DecimalFormat
// in Locale.US writes it; NULL for a negative d.
func formatNumber(x, d any) (any, error) {
	pattern := ""
	switch d := d.(type) {
	case int64:
		if d < 0 {
			return nil, nil
		}
		pattern = placesPattern(d)
	case string:
		pattern = d
		if pattern == "" {
			pattern = placesPattern(0)
		}
	}
	dp, err := parseDecimalPattern(pattern)
	if err != nil {
		return nil, err
	}
	var r *big.Rat
	neg := false
	switch x := x.(type) {
	case int64:
		r, neg = new(big.Rat).SetInt64(x), x < 0
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN", nil
		case math.IsInf(x, 1):
			return "∞", nil
		case math.IsInf(x, -1):
			return "-∞", nil
		}
		r, neg = new(big.Rat).SetFloat64(x), math.Signbit(x)
	case expr.Decimal:
		r = new(big.Rat).SetFrac(x.Unscaled.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		neg = r.Sign() < 0
	default:
		return nil, fmt.Errorf("format_number of %T", x)
	}
	return dp.format(r, neg), nil
}

// format writes |r| rounded half-even to maxFrac places, with a minus
// when neg (Java keeps it on a value that rounds to zero: -0.00).
func (dp decimalPattern) format(r *big.Rat, neg bool) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dp.maxFrac)), nil)
	scaled := new(big.Rat).Mul(new(big.Rat).Abs(r), new(big.Rat).SetInt(scale))
	q, rem := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	if c := new(big.Int).Mul(rem, big.NewInt(2)).Cmp(scaled.Denom()); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	digits := q.String()
	if len(digits) <= dp.maxFrac {
		digits = strings.Repeat("0", dp.maxFrac-len(digits)+1) + digits
	}
	intDigits, frac := digits[:len(digits)-dp.maxFrac], digits[len(digits)-dp.maxFrac:]
	intDigits = strings.TrimLeft(intDigits, "0")
	if len(intDigits) < dp.minInt {
		intDigits = strings.Repeat("0", dp.minInt-len(intDigits)) + intDigits
	}
	for len(frac) > dp.minFrac && strings.HasSuffix(frac, "0") {
		frac = frac[:len(frac)-1]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(intDigits); i++ {
		if i > 0 && dp.grouping > 0 && (len(intDigits)-i)%dp.grouping == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intDigits[i])
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	} else if intDigits == "" {
		b.WriteByte('0')
	}
	return b.String()
}

// buildToBinary is to_binary(str[, fmt]) with 'hex' (the default),
// 'utf-8'/'utf8' or 'base64'; malformed input is an error, or NULL for
// try_to_binary, which also gives NULL for an unknown format.
func buildToBinary(try bool) func(string, []expr.Expr) (expr.Expr, error) {
	return func(name string, args []expr.Expr) (expr.Expr, error) {
		format := "hex"
		if len(args) == 2 {
			v, ok := literal(args[1])
			f, isStr := v.(string)
			switch {
			case !ok || (!isStr && v != nil):
				return nil, fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] Cannot resolve \"%s\" due to data type mismatch: the input `format` should be a foldable \"STRING\" expression; however, got %s. SQLSTATE: 42K09", name, args[1])
			case v == nil:
				return &expr.Literal{Value: nil}, nil
			}
			format = strings.ToLower(f)
		}
		switch format {
		case "hex", "utf-8", "utf8", "base64":
		default:
			if try {
				return &rowCall{name: name, args: args, impl: &rowImpl{resolve: sig(tBinary, tString), mayBeNull: true, eval: func([]any) (any, error) { return nil, nil }}}, nil
			}
			return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.STRING] The value of parameter(s) `format` in `%s` is invalid: expects a case-insensitive string literal of 'hex', 'utf-8', 'utf8', or 'base64', but got '%s'. SQLSTATE: 22023", name, format)
		}
		return &rowCall{name: name, args: args, impl: &rowImpl{resolve: sig(tBinary, tString, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			b, ok := toBinary(v[0].(string), format)
			if ok || try {
				if !ok {
					return nil, nil
				}
				return b, nil
			}
			return nil, fmt.Errorf("[CONVERSION_INVALID_INPUT] The value '%s' (\"STRING\") cannot be converted to \"BINARY\" because it is malformed. Correct the value as per the syntax, or change its format. Use 'try_to_binary' to tolerate malformed input and return NULL instead. SQLSTATE: 22018", v[0])
		}}}, nil
	}
}

// toBinary decodes s in a binary format; ok=false for malformed input.
func toBinary(s, format string) ([]byte, bool) {
	switch format {
	case "hex":
		if len(s)%2 == 1 {
			s = "0" + s
		}
		b, err := hex.DecodeString(s)
		return b, err == nil
	case "base64":
		return decodeSparkBase64(s)
	}
	return []byte(s), true
}

// decodeSparkBase64 reads base64 as Spark's UnBase64 with failOnError:
// RFC 4648 characters, blanks ignored, at most two '=' and only at the
// end, padding optional.
func decodeSparkBase64(s string) ([]byte, bool) {
	var clean []byte
	pad := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '=':
			pad++
		case pad > 0:
			return nil, false
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		default:
			return nil, false
		}
	}
	if pad > 2 || (pad > 0 && (len(clean)+pad)%4 != 0) || len(clean)%4 == 1 {
		return nil, false
	}
	b, err := base64.RawStdEncoding.DecodeString(string(clean))
	return b, err == nil
}
