package functions

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// mathMoreDefs are Spark's arithmetic functions over integers and
// doubles: abs, negative, positive, greatest, least, pmod, the try_
// arithmetic, width_bucket, floor and ceil of one argument, and the
// NULL/NaN/zero replacements. Integer results keep the operands' wider
// type and fail with ARITHMETIC_OVERFLOW where Spark's ANSI arithmetic
// does (the try_ forms return NULL instead).
func mathMoreDefs() []*Def {
	return []*Def{
		row("abs", "math", 1, 1, &rowImpl{resolve: numericSame, evalTyped: func(out arrow.DataType, v []any) (any, error) {
			if f, ok := v[0].(float64); ok {
				return math.Abs(f), nil
			}
			if d, ok := v[0].(expr.Decimal); ok {
				if d.Unscaled.Sign() < 0 {
					d.Unscaled = d.Unscaled.Negate()
				}
				return d, nil
			}
			n := v[0].(int64)
			if n < 0 {
				return checked(out, "abs", -n, n == math.MinInt64)
			}
			return n, nil
		}}),
		row("negative", "math", 1, 1, &rowImpl{resolve: numericSame, evalTyped: func(out arrow.DataType, v []any) (any, error) {
			if f, ok := v[0].(float64); ok {
				return -f, nil
			}
			if d, ok := v[0].(expr.Decimal); ok {
				d.Unscaled = d.Unscaled.Negate()
				return d, nil
			}
			n := v[0].(int64)
			return checked(out, "negative", -n, n == math.MinInt64)
		}}),
		{Name: "positive", Group: "math", MinArgs: 1, MaxArgs: 1, ColumnName: func(_ string, a []string) string { return "(+ " + a[0] + ")" },
			Build: rowBuild(&rowImpl{resolve: numericSame, eval: func(v []any) (any, error) { return v[0], nil }})},
		extremeDef("greatest", 1), extremeDef("least", -1),
		withDecimal(arith("pmod", false, func(a, b int64) (int64, bool, error) {
			if b == 0 {
				return 0, false, errDivideByZero()
			}
			r := a % b
			if r < 0 {
				r = (r + b) % b
			}
			return r, false, nil
		}, func(a, b float64) (any, error) {
			if b == 0 {
				return nil, errDivideByZero()
			}
			r := math.Mod(a, b)
			if r < 0 {
				r = math.Mod(r+b, b)
			}
			return r, nil
		}), "pmod", false),
		withDecimal(arith("try_add", true, func(a, b int64) (int64, bool, error) {
			s := a + b
			return s, (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0), nil
		}, func(a, b float64) (any, error) { return a + b, nil }), "+", true),
		withDecimal(arith("try_subtract", true, func(a, b int64) (int64, bool, error) {
			s := a - b
			return s, (a >= 0) != (b >= 0) && (s >= 0) != (a >= 0), nil
		}, func(a, b float64) (any, error) { return a - b, nil }), "-", true),
		withDecimal(arith("try_multiply", true, func(a, b int64) (int64, bool, error) {
			p := a * b
			return p, a != 0 && (p/a != b || (a == -1 && b == math.MinInt64)), nil
		}, func(a, b float64) (any, error) { return a * b, nil }), "*", true),
		withDecimal(arith("try_mod", true, func(a, b int64) (int64, bool, error) {
			if b == 0 {
				return 0, true, nil
			}
			return a % b, false, nil
		}, func(a, b float64) (any, error) {
			if b == 0 {
				return nil, nil
			}
			return math.Mod(a, b), nil
		}), "%", true),
		withDecimal(row("try_divide", "math", 2, 2, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			for _, t := range in {
				if !isNumber(t) {
					return nil, nil, fmt.Errorf("try_divide of %s is not supported: Atlas divides numbers only", t)
				}
			}
			return []arrow.DataType{tDouble, tDouble}, tDouble, nil
		}, mayBeNull: true, eval: func(v []any) (any, error) {
			if v[1].(float64) == 0 {
				return nil, nil
			}
			return v[0].(float64) / v[1].(float64), nil
		}}), "/", true),
		row("width_bucket", "math", 4, 4, &rowImpl{resolve: sig(tLong, tDouble, tDouble, tDouble, tLong), mayBeNull: true, eval: func(v []any) (any, error) {
			return widthBucket(v[0].(float64), v[1].(float64), v[2].(float64), v[3].(int64)), nil
		}}),
		row("nanvl", "conditional", 2, 2, &rowImpl{resolve: sig(tDouble, tDouble, tDouble), nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
			if f, ok := v[0].(float64); ok && math.IsNaN(f) {
				return v[1], nil
			}
			return v[0], nil
		}}),
		row("nullif", "conditional", 2, 2, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			want, _, err := comparable(in)
			if err != nil {
				return nil, nil, err
			}
			return want, want[0], nil
		}, nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
			if v[0] != nil && v[1] != nil && equalValues(v[0], v[1]) {
				return nil, nil
			}
			return v[0], nil
		}}),
		row("nvl2", "conditional", 3, 3, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			t, err := expr.CommonType(in[1:])
			if err != nil {
				return nil, nil, err
			}
			if t.ID() == arrow.NULL {
				t = tInt
			}
			return []arrow.DataType{nil, t, t}, t, nil
		}, nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
			if v[0] != nil {
				return v[1], nil
			}
			return v[2], nil
		}}),
		row("nullifzero", "conditional", 1, 1, &rowImpl{resolve: numericSame, mayBeNull: true, eval: func(v []any) (any, error) {
			if d, ok := v[0].(expr.Decimal); ok && d.Unscaled.Sign() == 0 {
				return nil, nil
			}
			if v[0] == int64(0) || v[0] == float64(0) {
				return nil, nil
			}
			return v[0], nil
		}}),
		row("zeroifnull", "conditional", 1, 1, &rowImpl{resolve: numericSame, nullSafe: true, evalTyped: func(out arrow.DataType, v []any) (any, error) {
			if v[0] == nil {
				if isFloatType(out) {
					return float64(0), nil
				}
				if isDecimalType(out) {
					return decimalZero(out), nil
				}
				return int64(0), nil
			}
			return v[0], nil
		}}),
	}
}

func isNumber(t arrow.DataType) bool {
	return isIntegral(t) || isFloatType(t) || t.ID() == arrow.NULL
}

func isFloatType(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

// numericSame keeps a number's type (a NULL or string reads as INT or
// DOUBLE).
func numericSame(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	t := in[0]
	switch {
	case t.ID() == arrow.NULL:
		t = tInt
	case t.ID() == arrow.FLOAT32:
		t = tDouble
	case t.ID() == arrow.STRING:
		t = tDouble
	case !isIntegral(t) && !isFloatType(t) && !isDecimalType(t):
		return nil, nil, fmt.Errorf("requires a number, got %s", t)
	}
	return []arrow.DataType{t}, t, nil
}

// intRange is the range of an integer type.
func intRange(t arrow.DataType) (int64, int64) {
	switch t.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// checked returns n when it fits out, else Spark's ARITHMETIC_OVERFLOW.
func checked(out arrow.DataType, fn string, n int64, overflow bool) (any, error) {
	lo, hi := intRange(out)
	if overflow || n < lo || n > hi {
		return nil, fmt.Errorf("[ARITHMETIC_OVERFLOW] %s overflow in %s. Use 'try_' functions to tolerate overflow and return NULL instead. SQLSTATE: 22003", strings.ToLower(arrowSQLName(out)), fn)
	}
	return n, nil
}

func arrowSQLName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT8:
		return "tinyint"
	case arrow.INT16:
		return "smallint"
	case arrow.INT32:
		return "integer"
	}
	return "long"
}

func errDivideByZero() error {
	return fmt.Errorf("[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. SQLSTATE: 22012")
}

// arith defines a binary function over two numbers of their wider type:
// fi for integers (reporting overflow, which makes NULL when try, else
// ARITHMETIC_OVERFLOW), ff for doubles. try_add and try_subtract also
// take a date and a number of days.
func arith(name string, try bool, fi func(a, b int64) (int64, bool, error), ff func(a, b float64) (any, error)) *Def {
	return row(name, "math", 2, 2, &rowImpl{mayBeNull: try, resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if (name == "try_add" || name == "try_subtract") && in[0].ID() == arrow.DATE32 && isIntegral(in[1]) {
			return []arrow.DataType{nil, tLong}, in[0], nil
		}
		for _, t := range in {
			if !isNumber(t) {
				return nil, nil, fmt.Errorf("%s of %s is not supported: Atlas's %s takes numbers (and a date plus days)", name, t, name)
			}
		}
		t, _ := expr.WiderType(in[0], in[1])
		switch {
		case t.ID() == arrow.NULL:
			t = tInt
		case t.ID() == arrow.FLOAT32:
			t = tDouble
		}
		return []arrow.DataType{t, t}, t, nil
	}, evalTyped: func(out arrow.DataType, v []any) (any, error) {
		if d, ok := v[0].(time.Time); ok {
			days := v[1].(int64)
			if name == "try_subtract" {
				days = -days
			}
			return d.AddDate(0, 0, int(days)), nil
		}
		if a, ok := v[0].(float64); ok {
			return ff(a, v[1].(float64))
		}
		n, over, err := fi(v[0].(int64), v[1].(int64))
		if err != nil {
			return nil, err
		}
		lo, hi := intRange(out)
		if over || n < lo || n > hi {
			if try {
				return nil, nil
			}
			return checked(out, name, n, true)
		}
		return n, nil
	}})
}

// extremeDef is greatest (sign 1) or least (-1): NULLs are skipped, and
// the result is NULL only when every argument is.
func extremeDef(name string, sign int) *Def {
	return row(name, "math", 2, -1, &rowImpl{nullSafe: true, mayBeNull: true, resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		t, err := expr.CommonType(in)
		if err != nil {
			return nil, nil, err
		}
		if t.ID() == arrow.NULL {
			t = tInt
		}
		want := make([]arrow.DataType, len(in))
		for i := range want {
			want[i] = t
		}
		return want, t, nil
	}, eval: func(v []any) (any, error) { return extreme(v, sign), nil }})
}

// roundDef is floor, ceil and ceiling of one number: BIGINT, as Spark's
// for integers and doubles. Spark names floor and ceil in upper case,
// ceiling as written. The two-argument forms (a scale) need DECIMAL and
// are refused.
func roundDef(name string, f func(float64) float64) *Def {
	d := row(name, "math", 1, 1, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		switch {
		case isIntegral(in[0]):
			return []arrow.DataType{tLong}, tLong, nil
		case isFloatType(in[0]), in[0].ID() == arrow.NULL, in[0].ID() == arrow.STRING:
			return []arrow.DataType{tDouble}, tLong, nil
		}
		return nil, nil, fmt.Errorf("requires a number, got %s", in[0])
	}, eval: func(v []any) (any, error) {
		if n, ok := v[0].(int64); ok {
			return n, nil
		}
		x := f(v[0].(float64))
		switch {
		case math.IsNaN(x):
			return int64(0), nil
		case x >= math.MaxInt64:
			return int64(math.MaxInt64), nil
		case x <= math.MinInt64:
			return int64(math.MinInt64), nil
		}
		return int64(x), nil
	}})
	if name != "ceiling" {
		d.ColumnName = upperName
	}
	return d
}

// widthBucket is Spark's WidthBucket.computeBucketNumberNotNull.
func widthBucket(v, lo, hi float64, n int64) any {
	if n <= 0 || n == math.MaxInt64 || math.IsNaN(v) || lo == hi || math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	lower, upper := math.Min(lo, hi), math.Max(lo, hi)
	if lo < hi {
		switch {
		case v < lower:
			return int64(0)
		case v >= upper:
			return n + 1
		}
		return int64(float64(n)*(v-lower)/(upper-lower)) + 1
	}
	switch {
	case v > upper:
		return int64(0)
	case v <= lower:
		return n + 1
	}
	return int64(float64(n)*(upper-v)/(upper-lower)) + 1
}
