package functions

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

func predicateDefs() []*Def {
	nullSafeEq := &rowImpl{resolve: comparable, nullSafe: true, eval: func(v []any) (any, error) {
		if v[0] == nil || v[1] == nil {
			return v[0] == nil && v[1] == nil, nil
		}
		return equalValues(v[0], v[1]), nil
	}}
	return []*Def{
		{Name: "<=>", Group: "predicate", MinArgs: 2, MaxArgs: 2, Build: rowBuild(nullSafeEq), ColumnName: infix("<=>")},
		row("equal_null", "predicate", 2, 2, nullSafeEq),
		{Name: "isnull", Group: "predicate", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.IsNull{X: a[0]}, nil
		}, ColumnName: func(_ string, a []string) string { return "(" + a[0] + " IS NULL)" }},
		{Name: "isnotnull", Group: "predicate", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.IsNull{X: a[0], Negate: true}, nil
		}, ColumnName: func(_ string, a []string) string { return "(" + a[0] + " IS NOT NULL)" }},
		row("isnan", "predicate", 1, 1, &rowImpl{resolve: sig(tBool, tDouble), nullSafe: true, eval: func(v []any) (any, error) {
			f, ok := v[0].(float64)
			return ok && math.IsNaN(f), nil
		}}),
		bitwise("&", func(a, b int64) int64 { return a & b }),
		bitwise("|", func(a, b int64) int64 { return a | b }),
		bitwise("^", func(a, b int64) int64 { return a ^ b }),
		shift("shiftleft", "<<", func(a int64, n uint, w int) int64 { return a << n }),
		shift("shiftright", ">>", func(a int64, n uint, w int) int64 { return a >> n }),
		shift("shiftrightunsigned", ">>>", func(a int64, n uint, w int) int64 {
			if w == 32 {
				return int64(int32(uint32(a) >> n))
			}
			return int64(uint64(a) >> n)
		}),
		{Name: "~", Group: "bitwise", MinArgs: 1, MaxArgs: 1, ColumnName: func(_ string, a []string) string { return "~" + a[0] }, Build: rowBuild(&rowImpl{
			resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
				t := intType(in[0])
				return []arrow.DataType{t}, t, nil
			},
			eval: func(v []any) (any, error) { return v[0].(int64) ^ -1, nil }})},
		row("bit_count", "bitwise", 1, 1, &rowImpl{resolve: sig(tInt, tLong), eval: func(v []any) (any, error) {
			return int32(bits.OnesCount64(uint64(v[0].(int64)))), nil
		}}),
		row("bit_get", "bitwise", 2, 2, &rowImpl{resolve: sig(arrow.PrimitiveTypes.Int8, tLong, tInt), eval: func(v []any) (any, error) {
			pos := v[1].(int64)
			if pos < 0 || pos > 63 {
				return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE] The value of parameter(s) `pos` in `bit_get` is invalid: expects an integer value in [0, 64), but got %d. SQLSTATE: 22023", pos)
			}
			return int8(v[0].(int64) >> pos & 1), nil
		}}, "getbit"),
		row("to_date", "datetime", 1, 2, &rowImpl{resolve: toDateSig, mayBeNull: true, eval: toDate}),
	}
}

// infix names a binary operator as Spark does: (a <=> b).
func infix(op string) func(string, []string) string {
	return func(_ string, a []string) string { return "(" + a[0] + " " + op + " " + a[1] + ")" }
}

// comparable casts both sides to a common type: the wider type, or for a
// string against a number or boolean, the other side's type, as Spark's
// implicit casts for comparisons.
func comparable(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	a, b := in[0], in[1]
	if t, ok := expr.WiderType(a, b); ok {
		return []arrow.DataType{t, t}, tBool, nil
	}
	switch {
	case a.ID() == arrow.STRING && b.ID() != arrow.STRING:
		return []arrow.DataType{b, b}, tBool, nil
	case b.ID() == arrow.STRING && a.ID() != arrow.STRING:
		return []arrow.DataType{a, a}, tBool, nil
	}
	return nil, nil, fmt.Errorf("cannot compare %s with %s", a, b)
}

func equalValues(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	if x, ok := a.(time.Time); ok {
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	if _, ok := a.([]any); ok {
		return fmt.Sprint(a) == fmt.Sprint(b)
	}
	return a == b
}

// intType is the integer type an integer operand keeps (a string or
// NULL reads as BIGINT).
func intType(t arrow.DataType) arrow.DataType {
	if isIntegral(t) {
		return t
	}
	return tLong
}

func bitwise(op string, f func(a, b int64) int64) *Def {
	return &Def{Name: op, Group: "bitwise", MinArgs: 2, MaxArgs: 2, ColumnName: infix(op), Build: rowBuild(&rowImpl{
		resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			t, ok := expr.WiderType(intType(in[0]), intType(in[1]))
			if !ok {
				return nil, nil, fmt.Errorf("%s needs integers", op)
			}
			return []arrow.DataType{t, t}, t, nil
		},
		eval: func(v []any) (any, error) { return f(v[0].(int64), v[1].(int64)), nil }})}
}

// shift is shiftleft and friends: INT stays INT (shifting by the
// distance mod 32, as Java), anything else is BIGINT (mod 64).
func shift(name, op string, f func(a int64, n uint, width int) int64) *Def {
	impl := &rowImpl{
		resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			t := tLong
			if isIntegral(in[0]) && in[0].ID() != arrow.INT64 {
				t = tInt
			}
			return []arrow.DataType{t, tInt}, t, nil
		},
		evalTyped: func(out arrow.DataType, v []any) (any, error) {
			a, n := v[0].(int64), v[1].(int64)
			if out.ID() == arrow.INT32 {
				return int64(int32(f(a, uint(n&31), 32))), nil
			}
			return f(a, uint(n&63), 64), nil
		},
	}
	return &Def{Name: name, Group: "bitwise", MinArgs: 2, MaxArgs: 2, Build: rowBuild(impl), ColumnName: func(called string, a []string) string {
		if called == op {
			return "(" + a[0] + " " + op + " " + a[1] + ")"
		}
		return called + "(" + strings.Join(a, ", ") + ")"
	}}
}

// toDateSig reads a string (with an optional format) or a timestamp.
func toDateSig(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	want := make([]arrow.DataType, len(in))
	switch in[0].ID() {
	case arrow.DATE32:
	case arrow.TIMESTAMP:
		want[0] = arrow.FixedWidthTypes.Date32
	default:
		want[0] = tString
	}
	if len(in) == 2 {
		want[1] = tString
	}
	return want, arrow.FixedWidthTypes.Date32, nil
}

// toDate is to_date(s[, fmt]): without a format, Spark's stringToDate
// (yyyy, yyyy-[m]m, yyyy-[m]m-[d]d, then optionally ' ' or 'T' and
// anything); with one, the datetime pattern (a subset: see expr).
func toDate(v []any) (any, error) {
	if t, ok := v[0].(time.Time); ok {
		return t, nil
	}
	s := strings.TrimSpace(v[0].(string))
	if len(v) == 2 {
		p, err := expr.ParseDatetimePattern(v[1].(string))
		if err != nil {
			return nil, err
		}
		t, err := p.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("[CANNOT_PARSE_TIMESTAMP] Text '%s' could not be parsed with the pattern '%s'. SQLSTATE: 22007", s, v[1])
		}
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	if i := strings.IndexAny(s, " T"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, "-")
	nums := []int{1, 1, 1}
	if len(parts) > 3 || len(parts[0]) != 4 {
		return nil, castDateError(v[0])
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || (i > 0 && (len(p) < 1 || len(p) > 2)) {
			return nil, castDateError(v[0])
		}
		nums[i] = n
	}
	t := time.Date(nums[0], time.Month(nums[1]), nums[2], 0, 0, 0, 0, time.UTC)
	if t.Month() != time.Month(nums[1]) || t.Day() != nums[2] {
		return nil, castDateError(v[0])
	}
	return t, nil
}

func castDateError(v any) error {
	return fmt.Errorf("[CAST_INVALID_INPUT] The value '%v' of the type \"STRING\" cannot be cast to \"DATE\" because it is malformed. SQLSTATE: 22018", v)
}
