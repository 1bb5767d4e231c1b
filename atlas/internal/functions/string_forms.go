package functions

import (
	"math"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// stringFormDefs are the string functions SQL also writes as keyword
// forms (see the parser's parse_forms.go): trim, ltrim and rtrim with the
// characters to remove, and overlay.
func stringFormDefs() []*Def {
	return []*Def{
		trimDef("trim", "BOTH", strings.Trim),
		trimDef("ltrim", "LEADING", strings.TrimLeft),
		trimDef("rtrim", "TRAILING", strings.TrimRight),
		{Name: "overlay", Group: "string", MinArgs: 3, MaxArgs: 4, Build: rowBuild(binaryAware(&rowImpl{
			resolve: sig(tString, tString, tString, tInt, tInt),
			eval: func(v []any) (any, error) {
				n := int64(-1)
				if len(v) == 4 {
					n = v[3].(int64)
				}
				return overlay(v[0].(string), v[1].(string), v[2].(int64), n), nil
			}}, "")), ColumnName: withDefaults(4, "-1")},
	}
}

// trimDef is trim(str) (spaces) or trim(chars, str), the characters
// first as in Spark's StringTrim(trimStr, srcStr) constructor; Spark names
// the two-argument call TRIM(BOTH chars FROM str) (LEADING for ltrim,
// TRAILING for rtrim), the one-argument one trim(str).
func trimDef(name, side string, cut func(s, cutset string) string) *Def {
	two := &rowImpl{resolve: sig(tString, tString, tString), eval: func(v []any) (any, error) {
		return cut(v[1].(string), v[0].(string)), nil
	}}
	return &Def{Name: name, Group: "string", MinArgs: 1, MaxArgs: 2,
		Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			if len(a) == 1 {
				return &expr.StringFunc{Fn: name, X: a[0]}, nil
			}
			return &rowCall{name: called, args: a, impl: two}, nil
		},
		ColumnName: func(called string, a []string) string {
			if len(a) == 2 {
				return "TRIM(" + side + " " + a[0] + " FROM " + a[1] + ")"
			}
			return called + "(" + strings.Join(a, ", ") + ")"
		}}
}

// overlay is Spark's Overlay.calculate: input up to pos, then replace,
// then input from pos + length on, where a negative length means the
// length of replace. pos + length wraps as Java's int addition does.
func overlay(input, replace string, pos, length int64) string {
	if length < 0 {
		length = int64(len([]rune(replace)))
	}
	rest := int64(int32(pos + length))
	return substringSQL(input, 1, pos-1) + replace + substringSQL(input, rest, math.MaxInt32)
}
