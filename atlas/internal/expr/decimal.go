package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Decimal is a DECIMAL(p,s) constant, Spark's Decimal: Unscaled × 10^-Scale
// with at most Precision digits. SQL's 1.8 is DECIMAL(2,1), 1.5BD and
// DECIMAL '1.50' DECIMAL(2,1) and DECIMAL(3,2).
type Decimal struct {
	Unscaled         decimal128.Num
	Precision, Scale int32
}

// Type is the decimal's Arrow type.
func (d Decimal) Type() *arrow.Decimal128Type { return types.Decimal(d.Precision, d.Scale) }

// String is Java's BigDecimal.toString, as Spark names a decimal literal:
// plain digits (1.80, 0.001), scientific notation below 1E-6 (1E-7).
func (d Decimal) String() string { return javaDecimalString(d.Unscaled.BigInt(), d.Scale) }

// ParseDecimal reads a decimal literal's digits, [-]digits[.digits] (an
// exponent, 1E3 or 1.5E-2, is accepted as Java's BigDecimal reads it), as
// Spark types it: the scale is the number of fractional digits, the
// precision the number of digits, at least the scale (0.05 is
// DECIMAL(2,2)). More than 38 digits is an error.
func ParseDecimal(text string) (Decimal, error) {
	v, scale, ok := parseJavaDecimal(text)
	if !ok {
		return Decimal{}, fmt.Errorf("invalid decimal %q", text)
	}
	if scale < 0 { // 1E3: Spark does not allow negative scales
		v.Mul(v, pow10(-scale))
		scale = 0
	}
	p := digitCount(v)
	if p < scale {
		p = scale
	}
	if p > types.MaxDecimalPrecision || scale > types.MaxDecimalPrecision {
		return Decimal{}, fmt.Errorf("[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] decimal %s needs %d digits, more than the maximum %d", text, max(p, scale), types.MaxDecimalPrecision)
	}
	return Decimal{Unscaled: decimal128.FromBigInt(v), Precision: p, Scale: scale}, nil
}

// DecimalFromInt is the decimal Spark makes of an integer literal beside a
// decimal (DecimalType.forLiteral): exactly as many digits as it has.
func DecimalFromInt(n int64) Decimal {
	v := big.NewInt(n)
	return Decimal{Unscaled: decimal128.FromI64(n), Precision: digitCount(v), Scale: 0}
}

// parseJavaDecimal reads text as java.math.BigDecimal(String) does: an
// optional sign, digits with an optional point (".5" and "5." too), an
// optional exponent. It returns the unscaled value and the scale.
func parseJavaDecimal(text string) (*big.Int, int32, bool) {
	s := text
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return nil, 0, false
	}
	digits := intPart + frac
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, 0, false
		}
	}
	if strings.Count(mant, ".") > 1 {
		return nil, 0, false
	}
	scale := int64(len(frac))
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			return nil, 0, false
		}
		scale -= e
	}
	if scale > math.MaxInt32/2 || scale < -math.MaxInt32/2 {
		return nil, 0, false
	}
	v, ok := new(big.Int).SetString(strings.TrimLeft(digits, "0")+"0", 10)
	if !ok {
		return nil, 0, false
	}
	v.Quo(v, big.NewInt(10)) // the appended 0 keeps "" and "000" readable
	if neg {
		v.Neg(v)
	}
	return v, int32(scale), true
}

var pow10Cache = func() []*big.Int {
	out := make([]*big.Int, 80)
	out[0] = big.NewInt(1)
	for i := 1; i < len(out); i++ {
		out[i] = new(big.Int).Mul(out[i-1], big.NewInt(10))
	}
	return out
}()

// pow10 returns 10^n; the result must not be modified.
func pow10(n int32) *big.Int {
	if n >= 0 && int(n) < len(pow10Cache) {
		return pow10Cache[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// digitCount is the number of decimal digits of |v| (1 for 0), Java's
// BigDecimal.precision.
func digitCount(v *big.Int) int32 {
	if v.Sign() == 0 {
		return 1
	}
	a := new(big.Int).Abs(v)
	n := int32(float64(a.BitLen()) * math.Log10(2))
	if n < 1 {
		n = 1
	}
	for n > 1 && a.Cmp(pow10(n-1)) < 0 {
		n--
	}
	for a.Cmp(pow10(n)) >= 0 {
		n++
	}
	return n
}

// roundingMode is java.math.RoundingMode, the ones Spark uses.
type roundingMode int

const (
	halfUp roundingMode = iota
	halfEven
	roundFloor
	roundCeiling
	roundDown
)

// divRound returns num/den rounded to an integer by mode.
func divRound(num, den *big.Int, mode roundingMode) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	// sign of the exact quotient
	neg := (num.Sign() < 0) != (den.Sign() < 0)
	away := false
	switch mode {
	case roundDown:
	case roundFloor:
		away = neg
	case roundCeiling:
		away = !neg
	case halfUp, halfEven:
		twice := new(big.Int).Abs(r)
		twice.Lsh(twice, 1)
		switch c := twice.Cmp(new(big.Int).Abs(den)); {
		case c > 0:
			away = true
		case c == 0:
			away = mode == halfUp || q.Bit(0) == 1
		}
	}
	if away {
		if neg {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// rescale converts an unscaled value from one scale to another, rounding
// by mode when digits are dropped.
func rescale(v *big.Int, from, to int32, mode roundingMode) *big.Int {
	switch {
	case to == from:
		return new(big.Int).Set(v)
	case to > from:
		return new(big.Int).Mul(v, pow10(to-from))
	}
	return divRound(v, pow10(from-to), mode)
}

// fitsPrecision reports whether |v| has at most p digits.
func fitsPrecision(v *big.Int, p int32) bool {
	return new(big.Int).Abs(v).Cmp(pow10(p)) < 0
}

// roundSignificant rounds v×10^-scale to 38 significant digits, half up,
// as Spark's Decimal multiplies and divides (MathContext(38, HALF_UP)).
func roundSignificant(v *big.Int, scale int32) (*big.Int, int32) {
	d := digitCount(v)
	if d <= types.MaxDecimalPrecision {
		return v, scale
	}
	drop := d - types.MaxDecimalPrecision
	return divRound(v, pow10(drop), halfUp), scale - drop
}

// quotient is num/den (unscaled values at scales sn and sd) to 38
// significant digits, half up, as java.math.BigDecimal.divide with
// MathContext(38, HALF_UP): it returns the unscaled result and its scale.
func quotient(num *big.Int, sn int32, den *big.Int, sd int32) (*big.Int, int32) {
	// value = num/den × 10^(sd-sn). Pick a scale giving 38 digits.
	an, ad := new(big.Int).Abs(num), new(big.Int).Abs(den)
	if an.Sign() == 0 {
		return new(big.Int), 0
	}
	// digits of the integer part of an/ad, or leading zeros after the point
	e := digitCount(an) - digitCount(ad) // 10^(e-1) <= an/ad < 10^(e+1)
	if new(big.Int).Mul(ad, pow10nonneg(e)).Cmp(mulPow10(an, -e)) > 0 {
		e-- // an/ad < 10^e
	}
	// an/ad has e+1 integer digits when e >= 0; leading digit at 10^e
	extra := types.MaxDecimalPrecision - 1 - e // fractional digits of an/ad to keep
	// result = num × 10^extra / den, at scale extra + sn - sd
	n := mulPow10(num, extra)
	dd := den
	if extra < 0 {
		n = num
		dd = new(big.Int).Mul(den, pow10(-extra))
	}
	q := divRound(n, dd, halfUp)
	return roundSignificant(q, extra+sn-sd)
}

func pow10nonneg(n int32) *big.Int {
	if n < 0 {
		return big.NewInt(1)
	}
	return pow10(n)
}

// mulPow10 is v×10^n for n >= 0, v itself otherwise.
func mulPow10(v *big.Int, n int32) *big.Int {
	if n <= 0 {
		return v
	}
	return new(big.Int).Mul(v, pow10(n))
}

// plainDecimalString writes v×10^-scale without exponent, keeping the
// scale's digits (0.20), as BigDecimal.toPlainString.
func plainDecimalString(v *big.Int, scale int32) string {
	s := new(big.Int).Abs(v).String()
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	if scale <= 0 {
		if v.Sign() != 0 {
			s += strings.Repeat("0", int(-scale))
		}
		return sign + s
	}
	if len(s) <= int(scale) {
		s = strings.Repeat("0", int(scale)-len(s)+1) + s
	}
	at := len(s) - int(scale)
	return sign + s[:at] + "." + s[at:]
}

// javaDecimalString is java.math.BigDecimal.toString: plain unless the
// scale is negative or the adjusted exponent is below -6, then scientific
// notation (1E-7, 1.5E-8).
func javaDecimalString(v *big.Int, scale int32) string {
	digits := new(big.Int).Abs(v).String()
	adjusted := -int64(scale) + int64(len(digits)-1)
	if scale >= 0 && adjusted >= -6 {
		return plainDecimalString(v, scale)
	}
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	exp := "E"
	if adjusted >= 0 {
		exp += "+"
	}
	return sign + m + exp + strconv.FormatInt(adjusted, 10)
}

// decimalAt reads row i of a decimal array as a big integer (the unscaled
// value).
func decimalAt(a *array.Decimal128, i int) *big.Int { return a.Value(i).BigInt() }

// numValueOutOfRange is Spark 4's NUMERIC_VALUE_OUT_OF_RANGE for a decimal
// result that does not fit its type under ANSI mode.
func numValueOutOfRange(v *big.Int, scale int32, t *arrow.Decimal128Type) error {
	return &CastError{Class: "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", SQLState: "22003", JavaClass: "org.apache.spark.SparkArithmeticException", Message: fmt.Sprintf(
		"[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  %s cannot be represented as Decimal(%d, %d). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead. SQLSTATE: 22003",
		plainDecimalString(v, scale), t.Precision, t.Scale)}
}

// isDecimal reports a decimal128 type.
func isDecimal(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }

// widerDecimal is DecimalPrecision.widerDecimalType: the decimal both
// convert to without losing integer digits, as far as 38 digits allow.
func widerDecimal(a, b *arrow.Decimal128Type) *arrow.Decimal128Type {
	scale := max(a.Scale, b.Scale)
	rng := max(a.Precision-a.Scale, b.Precision-b.Scale)
	return types.DecimalBounded(rng+scale, scale)
}

// asDecimalType is the decimal a numeric operand turns into beside a
// decimal: itself, an integer type's DecimalType.forType, or, for an
// integer literal, the digits it needs (DecimalType.forLiteral).
func asDecimalType(b Bound) (*arrow.Decimal128Type, bool) {
	t := b.Type()
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d, true
	}
	if lb, ok := b.(*litBound); ok {
		switch v := lb.lit.Value.(type) {
		case int32:
			return DecimalFromInt(int64(v)).Type(), true
		case int64:
			return DecimalFromInt(v).Type(), true
		}
	}
	return types.DecimalForIntegral(t)
}

// decimalResultType is the type of l op r on decimals, Spark's
// resultDecimalType of Add, Subtract, Multiply, Divide and Remainder with
// spark.sql.decimalOperations.allowPrecisionLoss=true (the default).
func decimalResultType(op string, l, r *arrow.Decimal128Type) *arrow.Decimal128Type {
	p1, s1, p2, s2 := l.Precision, l.Scale, r.Precision, r.Scale
	switch op {
	case "+", "-":
		s := max(s1, s2)
		return types.DecimalAdjusted(max(p1-s1, p2-s2)+s+1, s)
	case "*":
		return types.DecimalAdjusted(p1+p2+1, s1+s2)
	case "/":
		intDig := p1 - s1 + s2
		s := max(types.MinimumAdjustedScale, s1+p2+1)
		return types.DecimalAdjusted(intDig+s, s)
	case "%", "pmod":
		s := max(s1, s2)
		return types.DecimalAdjusted(min(p1-s1, p2-s2)+s, s)
	}
	return nil
}

// DecimalResultType exports decimalResultType for the function registry
// (pmod) and tests: the result type of l op r for op one of + - * / %
// and pmod.
func DecimalResultType(op string, l, r *arrow.Decimal128Type) *arrow.Decimal128Type {
	return decimalResultType(op, l, r)
}

// bindDecimal binds an arithmetic operator or comparison with a decimal
// operand and the other a decimal, an integer or NULL; ok is false when
// the operands are of other types (a double makes the operation double).
func bindDecimal(b *Binary, l, r Bound) (Bound, bool, error) {
	lt, rt := l.Type(), r.Type()
	if !isDecimal(lt) && !isDecimal(rt) {
		return nil, false, nil
	}
	if lt.ID() == arrow.NULL {
		l, lt = castTo(l, rt), rt
	}
	if rt.ID() == arrow.NULL {
		r, rt = castTo(r, lt), lt
	}
	if b.Unary && isDecimal(rt) {
		return &decimalNeg{x: r}, true, nil
	}
	ld, lok := asDecimalType(l)
	rd, rok := asDecimalType(r)
	if !lok || !rok {
		return nil, false, nil
	}
	l, r = castTo(l, ld), castTo(r, rd)
	if isComparison(b.Op) {
		return &decimalCompare{op: b.Op, l: l, r: r}, true, nil
	}
	switch b.Op {
	case "+", "-", "*", "/", "%", "pmod":
		return &decimalArith{op: b.Op, src: b, l: l, r: r, typ: decimalResultType(b.Op, ld, rd)}, true, nil
	}
	return nil, false, nil
}

// decimalArith evaluates + - * / % on decimals as Spark 4 does: the exact
// result (a product or quotient first rounded to 38 significant digits,
// Spark's MathContext), then rounded half up to the result type's scale.
// A result beyond the type's precision fails with NUMERIC_VALUE_OUT_OF_RANGE
// under ANSI and is NULL without; a zero divisor is DIVIDE_BY_ZERO under
// ANSI and NULL without.
type decimalArith struct {
	op   string
	src  *Binary
	l, r Bound
	typ  *arrow.Decimal128Type
	// try makes overflow and a zero divisor NULL whatever the mode (the
	// try_ functions).
	try bool
}

func (b *decimalArith) Type() arrow.DataType { return b.typ }
func (b *decimalArith) Nullable() bool       { return true }
func (b *decimalArith) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	la, ra, err := evalPair(c, b.l, b.r, rec)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	defer ra.Release()
	x, y := la.(*array.Decimal128), ra.(*array.Decimal128)
	sx, sy := x.DataType().(*arrow.Decimal128Type).Scale, y.DataType().(*arrow.Decimal128Type).Scale
	strict := ansi(c) && !b.try
	out := array.NewDecimal128Builder(c.Mem, b.typ)
	defer out.Release()
	out.Reserve(n)
	for i := 0; i < n; i++ {
		if x.IsNull(i) || y.IsNull(i) {
			out.AppendNull()
			continue
		}
		v, ok, err := decimalOp(b.op, decimalAt(x, i), sx, decimalAt(y, i), sy, b.typ, strict)
		if err != nil {
			if _, dz := err.(divByZero); dz {
				return nil, divideByZero(b.src)
			}
			return nil, err
		}
		if !ok {
			out.AppendNull()
			continue
		}
		out.UnsafeAppend(decimal128.FromBigInt(v))
	}
	return out.NewArray(), nil
}

type divByZero struct{}

func (divByZero) Error() string { return "division by zero" }

// decimalOp computes x op y (unscaled at scales sx, sy) in type t; ok is
// false for a NULL result. With strict (ANSI), an overflow and a zero
// divisor are errors (divByZero for the latter).
func decimalOp(op string, x *big.Int, sx int32, y *big.Int, sy int32, t *arrow.Decimal128Type, strict bool) (*big.Int, bool, error) {
	var v *big.Int
	var scale int32
	switch op {
	case "+", "-":
		scale = max(sx, sy)
		a, bb := rescale(x, sx, scale, halfUp), rescale(y, sy, scale, halfUp)
		if op == "+" {
			v = a.Add(a, bb)
		} else {
			v = a.Sub(a, bb)
		}
	case "*":
		v, scale = roundSignificant(new(big.Int).Mul(x, y), sx+sy)
	case "/", "%", "pmod":
		if y.Sign() == 0 {
			if strict {
				return nil, false, divByZero{}
			}
			return nil, false, nil
		}
		if op == "/" {
			v, scale = quotient(x, sx, y, sy)
			break
		}
		scale = max(sx, sy)
		a, bb := rescale(x, sx, scale, halfUp), rescale(y, sy, scale, halfUp)
		v = new(big.Int).Rem(a, bb)       // the dividend's sign, as BigDecimal.remainder
		if op == "pmod" && v.Sign() < 0 { // Spark's Pmod: (r + n) % n
			v = new(big.Int).Rem(v.Add(v, bb), bb)
		}
	default:
		return nil, false, fmt.Errorf("operator %s is not defined on decimals", op)
	}
	return fitDecimal(v, scale, t, strict)
}

// fitDecimal rounds v×10^-scale half up to t's scale and checks its
// precision: too many digits is NUMERIC_VALUE_OUT_OF_RANGE with strict, a
// NULL (ok=false) without.
func fitDecimal(v *big.Int, scale int32, t *arrow.Decimal128Type, strict bool) (*big.Int, bool, error) {
	r := rescale(v, scale, t.Scale, halfUp)
	if !fitsPrecision(r, t.Precision) {
		if strict {
			return nil, false, numValueOutOfRange(r, t.Scale, t)
		}
		return nil, false, nil
	}
	return r, true, nil
}

// evalPair evaluates two operands as arrays of the batch's length.
func evalPair(c *Ctx, l, r Bound, rec arrow.RecordBatch) (arrow.Array, arrow.Array, error) {
	ld, err := datum(c, l, rec)
	if err != nil {
		return nil, nil, err
	}
	defer ld.Release()
	rd, err := datum(c, r, rec)
	if err != nil {
		return nil, nil, err
	}
	defer rd.Release()
	return operandArrays(c, ld, rd, int(rec.NumRows()))
}

// decimalCompare compares decimals by value, whatever their scales (1.0 =
// 1.00).
type decimalCompare struct {
	op   string
	l, r Bound
}

func (b *decimalCompare) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }
func (b *decimalCompare) Nullable() bool       { return true }
func (b *decimalCompare) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	la, ra, err := evalPair(c, b.l, b.r, rec)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	defer ra.Release()
	x, y := la.(*array.Decimal128), ra.(*array.Decimal128)
	sx, sy := x.DataType().(*arrow.Decimal128Type).Scale, y.DataType().(*arrow.Decimal128Type).Scale
	out := array.NewBooleanBuilder(c.Mem)
	defer out.Release()
	out.Reserve(n)
	for i := 0; i < n; i++ {
		if x.IsNull(i) || y.IsNull(i) {
			out.AppendNull()
			continue
		}
		k := compareDecimals(x.Value(i), sx, y.Value(i), sy)
		out.UnsafeAppend(orderHolds(b.op, k))
	}
	return out.NewArray(), nil
}

// compareDecimals orders two decimals by value.
func compareDecimals(x decimal128.Num, sx int32, y decimal128.Num, sy int32) int {
	if sx == sy {
		return x.Cmp(y)
	}
	s := max(sx, sy)
	return rescale(x.BigInt(), sx, s, halfUp).Cmp(rescale(y.BigInt(), sy, s, halfUp))
}

// CompareDecimals orders two decimal values of the given scales by value,
// for sorts and aggregates outside this package.
func CompareDecimals(x decimal128.Num, sx int32, y decimal128.Num, sy int32) int {
	return compareDecimals(x, sx, y, sy)
}

// decimalNeg is -x of a decimal: the same type (Spark's UnaryMinus).
type decimalNeg struct{ x Bound }

func (b *decimalNeg) Type() arrow.DataType { return b.x.Type() }
func (b *decimalNeg) Nullable() bool       { return b.x.Nullable() }
func (b *decimalNeg) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	x := in.(*array.Decimal128)
	out := array.NewDecimal128Builder(c.Mem, x.DataType().(*arrow.Decimal128Type))
	defer out.Release()
	out.Reserve(x.Len())
	for i := 0; i < x.Len(); i++ {
		if x.IsNull(i) {
			out.AppendNull()
			continue
		}
		out.UnsafeAppend(x.Value(i).Negate())
	}
	return out.NewArray(), nil
}

// decimalsToDouble turns a decimal operand into a double when the other
// side is not a decimal or an integer (a double, a float, a string), as
// Spark's DecimalPrecision rule makes a decimal beside a double double.
func decimalsToDouble(l, r Bound) (Bound, Bound) {
	if isDecimal(l.Type()) {
		l = castTo(l, arrow.PrimitiveTypes.Float64)
	}
	if isDecimal(r.Type()) {
		r = castTo(r, arrow.PrimitiveTypes.Float64)
	}
	return l, r
}

// decimalWider is Spark's wider type of a decimal and another number (for
// CASE, coalesce, IN lists, array(), VALUES): two decimals widen to
// widerDecimal, an integer turns into its DecimalType.forType first, and a
// float or double makes a double. ok is false unless one side is a
// decimal and the other a number.
func decimalWider(a, b arrow.DataType) (arrow.DataType, bool) {
	ad, aok := a.(*arrow.Decimal128Type)
	bd, bok := b.(*arrow.Decimal128Type)
	switch {
	case aok && bok:
		return widerDecimal(ad, bd), true
	case aok && isFloat(b), bok && isFloat(a):
		return arrow.PrimitiveTypes.Float64, true
	case aok:
		if bi, ok := types.DecimalForIntegral(b); ok {
			return widerDecimal(ad, bi), true
		}
	case bok:
		if ai, ok := types.DecimalForIntegral(a); ok {
			return widerDecimal(ai, bd), true
		}
	}
	return nil, false
}

// RoundingMode is how RescaleDecimal drops digits, java.math.RoundingMode.
type RoundingMode = roundingMode

// The rounding modes of Spark's decimal functions: HALF_UP (round, casts,
// arithmetic), HALF_EVEN (bround), FLOOR and CEILING (floor, ceil).
const (
	RoundHalfUp   RoundingMode = halfUp
	RoundHalfEven RoundingMode = halfEven
	RoundFloor    RoundingMode = roundFloor
	RoundCeiling  RoundingMode = roundCeiling
)

// RescaleDecimal converts d to type t, rounding by mode to t's scale; a
// value with too many digits for t fails with NUMERIC_VALUE_OUT_OF_RANGE
// when strict and is NULL (ok=false) otherwise.
func RescaleDecimal(d Decimal, t *arrow.Decimal128Type, mode RoundingMode, strict bool) (Decimal, bool, error) {
	return RoundDecimal(d, t.Scale, t, mode, strict)
}

// RoundDecimal rounds d by mode to scale digits after the point (before
// it, for a negative scale: round(x, -3) rounds to thousands), then
// converts it to type t as RescaleDecimal does.
func RoundDecimal(d Decimal, scale int32, t *arrow.Decimal128Type, mode RoundingMode, strict bool) (Decimal, bool, error) {
	r := rescale(d.Unscaled.BigInt(), d.Scale, scale, mode)
	r = rescale(r, scale, t.Scale, mode)
	if !fitsPrecision(r, t.Precision) {
		if strict {
			return Decimal{}, false, numValueOutOfRange(r, t.Scale, t)
		}
		return Decimal{}, false, nil
	}
	return Decimal{Unscaled: decimal128.FromBigInt(r), Precision: t.Precision, Scale: t.Scale}, true, nil
}

// RoundFloat rounds x to scale decimal places by mode as Spark's round and
// bround do on doubles and floats: the number as Java's Double.toString
// (or Float.toString) writes it, rounded as a BigDecimal, read back. NaN
// and infinities are returned as they are.
func RoundFloat(x float64, bits int, scale int32, mode RoundingMode) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, s, _ := parseJavaDecimal(strconv.FormatFloat(x, 'e', -1, bits))
	r := rescale(v, s, scale, mode)
	f, _ := strconv.ParseFloat(plainDecimalString(r, scale), bits)
	return f
}

// RoundInt rounds n to scale (negative: tens, hundreds, ...) by mode.
func RoundInt(n int64, scale int32, mode RoundingMode) *big.Int {
	if scale >= 0 {
		return big.NewInt(n)
	}
	r := rescale(big.NewInt(n), 0, scale, mode)
	return r.Mul(r, pow10(-scale))
}

// DecimalOp is a function of two numbers, one of them a decimal, computed
// as the decimal operator Op (+ - * / % or pmod): try_add, try_divide,
// pmod, ... Try makes overflow and division by zero NULL. Name is the
// column name.
type DecimalOp struct {
	Op   string
	L, R Expr
	Try  bool
	Name string
}

func (d *DecimalOp) String() string { return d.Name }

// Bind binds both operands; it fails unless one is a decimal and the
// other a decimal, an integer or NULL.
func (d *DecimalOp) Bind(s *arrow.Schema) (Bound, error) {
	l, err := d.L.Bind(s)
	if err != nil {
		return nil, err
	}
	r, err := d.R.Bind(s)
	if err != nil {
		return nil, err
	}
	src := &Binary{Op: d.Op, L: d.L, R: d.R}
	out, ok, err := bindDecimal(src, l, r)
	if err != nil {
		return nil, err
	}
	if !ok || isComparison(d.Op) {
		return nil, fmt.Errorf("%s: needs a decimal and a decimal or an integer, got %s and %s", d.Name, types.SQL(l.Type()), types.SQL(r.Type()))
	}
	if a, isArith := out.(*decimalArith); isArith {
		a.try = d.Try
	}
	return out, nil
}

// DecimalSum adds x (unscaled, at the sum's scale) to a group's sum of a
// DECIMAL column, Spark's Sum: a sum beyond t's precision (DECIMAL(p+10,s))
// fails with NUMERIC_VALUE_OUT_OF_RANGE, as under ANSI mode.
func DecimalSum(sum, x *big.Int, t *arrow.Decimal128Type) error {
	sum.Add(sum, x)
	if !fitsPrecision(sum, t.Precision) {
		return numValueOutOfRange(sum, t.Scale, t)
	}
	return nil
}

// DecimalAverage is Spark's Average of decimals: the sum (of type sumType)
// divided by the count as a DECIMAL(20,0) with the division's result type,
// then rounded half up to the average's type out.
func DecimalAverage(sum *big.Int, sumType *arrow.Decimal128Type, count int64, out *arrow.Decimal128Type) (decimal128.Num, error) {
	divType := decimalResultType("/", sumType, types.Decimal(20, 0))
	q, _, err := decimalOp("/", sum, sumType.Scale, big.NewInt(count), 0, divType, true)
	if err != nil {
		return decimal128.Num{}, err
	}
	r, _, err := fitDecimal(q, divType.Scale, out, true)
	if err != nil {
		return decimal128.Num{}, err
	}
	return decimal128.FromBigInt(r), nil
}
