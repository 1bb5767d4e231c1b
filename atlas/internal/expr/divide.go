package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// divideByZero is Spark's DIVIDE_BY_ZERO, raised under ANSI mode (Spark
// 4's default) by x / 0 and x % 0; without ANSI they are NULL.
func divideByZero(src *Binary) *sparkerr.Error {
	return sparkerr.WithParams("DIVIDE_BY_ZERO", map[string]string{"config": `"spark.sql.ansi.enabled"`},
		`Division by zero in %s. Use `+"`try_divide`"+` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.`, src)
}

// ansi reports whether the query runs under spark.sql.ansi.enabled.
func ansi(c *Ctx) bool { return EvalDefault.resolve(c) == EvalANSI }

// divideFloats is Spark's "/" on doubles: a zero divisor fails the query
// under ANSI and gives NULL without it (never Infinity or NaN, as IEEE
// would: Spark's Divide tests the divisor first).
func divideFloats(c *Ctx, b *binaryBound, ld, rd compute.Datum, n int) (arrow.Array, error) {
	la, ra, err := operandArrays(c, ld, rd, n)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	defer ra.Release()
	x, y := la.(*array.Float64), ra.(*array.Float64)
	out := array.NewFloat64Builder(c.Mem)
	defer out.Release()
	out.Reserve(n)
	strict := ansi(c)
	for i := 0; i < n; i++ {
		switch {
		case x.IsNull(i) || y.IsNull(i):
			out.AppendNull()
		case y.Value(i) == 0:
			if strict {
				return nil, divideByZero(b.src)
			}
			out.AppendNull()
		default:
			out.UnsafeAppend(x.Value(i) / y.Value(i))
		}
	}
	return out.NewArray(), nil
}

// zeroDivisor reports whether some row divides a non-null x by zero.
func zeroDivisor(x, y arrow.Array) bool {
	for i := 0; i < y.Len(); i++ {
		if x.IsNull(i) || y.IsNull(i) {
			continue
		}
		if v, f, isFloat := numberAt(y, i); (isFloat && f == 0) || (!isFloat && v == 0) {
			return true
		}
	}
	return false
}
