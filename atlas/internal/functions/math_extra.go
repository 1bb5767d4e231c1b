package functions

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// mathExtraDefs defines math functions beyond math_more.go: div (also the
// operator a DIV b) and conv.
func mathExtraDefs() []*Def {
	return []*Def{
		{Name: "div", Group: "math", MinArgs: 2, MaxArgs: 2, Build: rowBuild(&rowImpl{resolve: divSig, eval: integralDivide}),
			ColumnName: func(_ string, a []string) string { return "(" + a[0] + " div " + a[1] + ")" }},
		row("conv", "math", 3, 3, &rowImpl{resolve: sig(tString, tString, tInt, tInt), mayBeNull: true, eval: func(v []any) (any, error) {
			return conv([]byte(v[0].(string)), v[1].(int64), v[2].(int64))
		}}),
	}
}

// divSig is IntegralDivide's input: integers (as BIGINT) or decimals,
// the result a BIGINT; strings read as BIGINT, as Spark's implicit casts.
func divSig(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	want := make([]arrow.DataType, len(in))
	for i, t := range in {
		switch {
		case isIntegral(t), t.ID() == arrow.NULL:
			want[i] = tLong
		case t.ID() == arrow.DECIMAL128:
		case t.ID() == arrow.STRING:
			want[i] = tLong
		default:
			return nil, nil, fmt.Errorf("argument %d requires an integral or decimal number, got %s: Atlas's div takes integers and decimals", i+1, types.Name(t))
		}
	}
	return want, tLong, nil
}

// integralDivide is Spark's IntegralDivide under ANSI mode: the quotient
// truncated toward zero, DIVIDE_BY_ZERO for a zero divisor and
// ARITHMETIC_OVERFLOW when it does not fit a BIGINT.
func integralDivide(v []any) (any, error) {
	a, b := asBigRat(v[0]), asBigRat(v[1])
	if b.Sign() == 0 {
		return nil, errDivideByZero()
	}
	q := new(big.Int).Quo(new(big.Int).Mul(a.Num(), b.Denom()), new(big.Int).Mul(a.Denom(), b.Num()))
	if !q.IsInt64() {
		return nil, fmt.Errorf("[ARITHMETIC_OVERFLOW] Overflow in integral divide. Use `try_divide` to tolerate overflow and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22003")
	}
	return q.Int64(), nil
}

// asBigRat reads an integer or a decimal exactly.
func asBigRat(v any) *big.Rat {
	if d, ok := v.(expr.Decimal); ok {
		return new(big.Rat).SetFrac(d.Unscaled.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
	}
	return new(big.Rat).SetInt64(v.(int64))
}

// conv is Spark's NumberConverter.convert: the digits of n in base from
// (stopping at the first character that is not one, an optional leading
// '-'), read as an unsigned 64-bit number and written in base |to|, signed
// when to is negative. A base outside [2, 36] or an empty n gives NULL;
// a number past 2^64 is ARITHMETIC_OVERFLOW, as under ANSI mode.
func conv(n []byte, from, to int64) (any, error) {
	if from < 2 || from > 36 || to > 36 || to < -36 || (to > -2 && to < 2) {
		return nil, nil
	}
	if len(n) == 0 {
		return nil, nil
	}
	negative, first := n[0] == '-', 0
	if negative {
		first = 1
	}
	v, ok := convEncode(n[first:], uint64(from))
	if !ok {
		return nil, fmt.Errorf("[ARITHMETIC_OVERFLOW] Overflow in function conv(). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22003")
	}
	if negative && to > 0 {
		if int64(v) < 0 {
			v = math.MaxUint64 // Spark's -1
		} else {
			v = uint64(-int64(v))
		}
	}
	if to < 0 && int64(v) < 0 {
		v = uint64(-int64(v))
		negative = true
	}
	out := convDecode(v, uint64(abs64(to)))
	if negative && to < 0 {
		out = "-" + out
	}
	return out, nil
}

// convEncode reads the leading digits of s in base radix as an unsigned
// 64-bit number; ok is false on overflow.
func convEncode(s []byte, radix uint64) (uint64, bool) {
	var v uint64
	bound := (math.MaxUint64 - radix) / radix // Spark's divideUnsigned(-1 - radix, radix)
	for _, c := range s {
		d := digitOf(c)
		if d < 0 || uint64(d) >= radix {
			break
		}
		if v >= bound && (math.MaxUint64-uint64(d))/radix < v {
			return 0, false
		}
		v = v*radix + uint64(d)
	}
	return v, true
}

// digitOf is Character.digit's value of an ASCII digit or letter, -1
// for anything else.
func digitOf(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// convDecode writes v in base radix with upper-case digits ("0" for 0).
func convDecode(v uint64, radix uint64) string {
	if v == 0 {
		return "0"
	}
	var buf [64]byte
	i := len(buf)
	for v != 0 {
		i--
		d := v % radix
		if d < 10 {
			buf[i] = byte('0' + d)
		} else {
			buf[i] = byte('A' + d - 10)
		}
		v /= radix
	}
	return string(buf[i:])
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
