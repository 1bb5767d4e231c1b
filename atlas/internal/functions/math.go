package functions

import (
	"fmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

func mathDefs() []*Def {
	defs := []*Def{
		doubleFn("sqrt", true, math.Sqrt),
		doubleFn("exp", true, math.Exp),
		doubleFn("expm1", true, math.Expm1),
		doubleFn("cbrt", true, math.Cbrt),
		doubleFn("sin", true, math.Sin),
		doubleFn("cos", true, math.Cos),
		doubleFn("tan", true, javaTan),
		doubleFn("asin", true, math.Asin),
		doubleFn("acos", true, math.Acos),
		doubleFn("atan", true, math.Atan),
		doubleFn("sinh", true, math.Sinh),
		doubleFn("cosh", true, math.Cosh),
		doubleFn("tanh", true, math.Tanh),
		doubleFn("asinh", true, math.Asinh),
		doubleFn("acosh", true, math.Acosh),
		doubleFn("atanh", true, math.Atanh),
		doubleFn("cot", true, func(x float64) float64 { return 1 / javaTan(x) }),
		doubleFn("sec", true, func(x float64) float64 { return 1 / math.Cos(x) }),
		doubleFn("csc", true, func(x float64) float64 { return 1 / math.Sin(x) }),
		doubleFn("degrees", true, func(x float64) float64 { return x * 180 / math.Pi }),
		doubleFn("radians", true, func(x float64) float64 { return x / 180 * math.Pi }),
		doubleFn("rint", false, math.RoundToEven),
		doubleFn("signum", true, signum),
		doubleFn("sign", false, signum),
		logFn("ln", false, math.Log, 0),
		logFn("log10", true, math.Log10, 0),
		logFn("log2", true, math.Log2, 0),
		logFn("log1p", true, math.Log1p, -1),
		{Name: "log", Group: "math", MinArgs: 1, MaxArgs: 2, ColumnName: upperName, Build: rowBuild(&rowImpl{
			resolve: sig(tDouble, tDouble), mayBeNull: true,
			eval: func(v []any) (any, error) {
				if len(v) == 1 {
					return positiveLog(math.Log, v[0].(float64), 0), nil
				}
				b, x := v[0].(float64), v[1].(float64)
				if b <= 0 || x <= 0 {
					return nil, nil
				}
				return math.Log(x) / math.Log(b), nil
			}})},
		constant("pi", math.Pi),
		constant("e", math.E),
		binaryDouble("atan2", true, math.Atan2),
		binaryDouble("hypot", true, math.Hypot),
		binaryDouble("power", true, math.Pow),
		binaryDouble("pow", false, math.Pow),
		row("factorial", "math", 1, 1, &rowImpl{resolve: sig(tLong, tInt), mayBeNull: true, eval: func(v []any) (any, error) {
			n := v[0].(int64)
			if n < 0 || n > 20 {
				return nil, nil
			}
			f := int64(1)
			for i := int64(2); i <= n; i++ {
				f *= i
			}
			return f, nil
		}}),
		row("bin", "math", 1, 1, &rowImpl{resolve: sig(tString, tLong), eval: func(v []any) (any, error) {
			return strconv.FormatUint(uint64(v[0].(int64)), 2), nil
		}}),
		{Name: "hex", Group: "math", MinArgs: 1, MaxArgs: 1, Build: rowBuild(&rowImpl{resolve: hexSig, eval: func(v []any) (any, error) {
			switch x := v[0].(type) {
			case int64:
				return strings.ToUpper(strconv.FormatUint(uint64(x), 16)), nil
			case string:
				return strings.ToUpper(fmt.Sprintf("%x", x)), nil
			case []byte:
				return strings.ToUpper(fmt.Sprintf("%x", x)), nil
			}
			return nil, fmt.Errorf("hex of %T", v[0])
		}})},
	}
	return defs
}

// rowBuild builds calls of impl.
func rowBuild(impl *rowImpl) func(string, []expr.Expr) (expr.Expr, error) {
	return func(called string, a []expr.Expr) (expr.Expr, error) {
		return &rowCall{name: called, args: a, impl: impl}, nil
	}
}

func hexSig(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	switch {
	case isIntegral(in[0]):
		return []arrow.DataType{tLong}, tString, nil
	case in[0].ID() == arrow.STRING || in[0].ID() == arrow.BINARY || in[0].ID() == arrow.NULL:
		return []arrow.DataType{nil}, tString, nil
	}
	return []arrow.DataType{tLong}, tString, nil
}

func signum(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// doubleFn is a one-argument function of a double; upper names the
// column in upper case, as Spark's UnaryMathExpression does.
func doubleFn(name string, upper bool, f func(float64) float64) *Def {
	d := row(name, "math", 1, 1, &rowImpl{resolve: sig(tDouble, tDouble), eval: func(v []any) (any, error) {
		return f(v[0].(float64)), nil
	}})
	if upper {
		d.ColumnName = upperName
	}
	return d
}

// logFn is a logarithm: NULL at or below its domain's bound, as Spark.
func logFn(name string, upper bool, f func(float64) float64, bound float64) *Def {
	d := row(name, "math", 1, 1, &rowImpl{resolve: sig(tDouble, tDouble), mayBeNull: true, eval: func(v []any) (any, error) {
		return positiveLog(f, v[0].(float64), bound), nil
	}})
	if upper {
		d.ColumnName = upperName
	}
	return d
}

func positiveLog(f func(float64) float64, x, bound float64) any {
	if x <= bound {
		return nil
	}
	return f(x)
}

func binaryDouble(name string, upper bool, f func(a, b float64) float64) *Def {
	d := row(name, "math", 2, 2, &rowImpl{resolve: sig(tDouble, tDouble, tDouble), eval: func(v []any) (any, error) {
		return f(v[0].(float64), v[1].(float64)), nil
	}})
	if upper {
		d.ColumnName = upperName
	}
	return d
}

func constant(name string, x float64) *Def {
	d := row(name, "math", 0, 0, &rowImpl{resolve: sig(tDouble), eval: func([]any) (any, error) { return x, nil }})
	d.ColumnName = upperName
	return d
}
