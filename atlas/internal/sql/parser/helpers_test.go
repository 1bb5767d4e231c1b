package parser

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

var positionType = reflect.TypeOf(Position{})

// stripPositions zeroes every Position reachable from v (a pointer or
// interface to tree nodes), so trees written by hand without positions
// compare equal with parsed ones.
func stripPositions(v any) {
	strip(reflect.ValueOf(v), map[uintptr]bool{})
}

func strip(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		strip(v.Elem(), seen)
	case reflect.Interface:
		if !v.IsNil() {
			strip(v.Elem(), seen)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			strip(v.Index(i), seen)
		}
	case reflect.Struct:
		if v.Type() == positionType {
			if v.CanSet() {
				v.Set(reflect.Zero(positionType))
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				strip(v.Field(i), seen)
			}
		}
	}
}

// dump renders a tree for failure messages.
func dump(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// sameTree reports whether got and want are equal, positions aside.
func sameTree(got, want any) bool {
	stripPositions(got)
	stripPositions(want)
	return reflect.DeepEqual(got, want)
}

func mustParse(t *testing.T, sql string) Statement {
	t.Helper()
	s, err := Parse(sql)
	if err != nil {
		t.Fatalf("Parse(%q): %v", sql, err)
	}
	return s
}

func mustExpr(t *testing.T, s string) Expr {
	t.Helper()
	e, err := ParseExpr(s)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", s, err)
	}
	return e
}

// Hand-built tree helpers.

func col(parts ...string) *ColumnRef { return &ColumnRef{Parts: parts} }

func name(parts ...string) *Name { return &Name{Parts: parts} }

func ilit(v int64) *Literal {
	return &Literal{Kind: IntLiteral, Value: v, Text: strconv.FormatInt(v, 10)}
}

func slit(s string) *Literal { return &Literal{Kind: StringLiteral, Value: s} }

func bin(op string, l, r Expr) *Binary { return &Binary{Op: op, L: l, R: r} }

func and(l, r Expr) *Binary { return bin("AND", l, r) }

func eq(l, r Expr) *Binary { return bin("=", l, r) }

func call(fn string, args ...Expr) *Call { return &Call{Name: fn, Args: args} }

func item(e Expr, alias string) *SelectItem { return &SelectItem{Expr: e, Alias: alias} }

func table(alias string, parts ...string) *TableRef {
	return &TableRef{Name: name(parts...), Alias: alias}
}
