package functions

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
)

// This file is schema_of_json: Spark's JsonInferSchema (inferField,
// compatibleType, canonicalizeType) with the default options, printed as
// DataType.sql.

// inferred is a type JSON schema inference can give.
type inferred struct {
	kind        inferredKind
	prec, scale int          // decimal
	elem        *inferred    // array
	fields      []inferField // struct, sorted by name
}

type inferredKind uint8

const (
	infNull inferredKind = iota
	infBool
	infLong
	infDouble
	infDecimal
	infString
	infArray
	infStruct
)

type inferField struct {
	name string
	t    *inferred
}

var (
	tNullInf   = &inferred{kind: infNull}
	tStringInf = &inferred{kind: infString}
	tDoubleInf = &inferred{kind: infDouble}
)

// schemaOfJSON parses doc and returns the DDL of its inferred type.
func schemaOfJSON(doc string, opts jsonx.TreeOptions) (string, error) {
	v, err := jsonx.ParseTree([]byte(doc), opts)
	if err == jsonx.ErrEmpty {
		return "STRING", nil // no token: NullType, canonicalized to STRING
	}
	if err != nil {
		return "", fmt.Errorf("[MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are detected in record parsing: %s. SQLSTATE: 22023", err)
	}
	t := inferJSON(v)
	switch {
	case t.kind == infStruct:
		if c := canonical(t); c != nil {
			return c.sql(), nil
		}
		return "STRUCT<>", nil
	case t.kind == infArray && t.elem.kind == infStruct:
		if c := canonical(t.elem); c != nil {
			return "ARRAY<" + c.sql() + ">", nil
		}
		return "ARRAY<STRUCT<>>", nil
	}
	if c := canonical(t); c != nil {
		return c.sql(), nil
	}
	return "STRING", nil
}

// inferJSON is inferField for one value.
func inferJSON(v *jsonx.Value) *inferred {
	switch v.Kind {
	case jsonx.Null:
		return tNullInf
	case jsonx.Bool:
		return &inferred{kind: infBool}
	case jsonx.String:
		if v.Text == "" {
			return tNullInf // Spark: an empty string may be a null
		}
		return tStringInf
	case jsonx.Number:
		if v.Float {
			return tDoubleInf
		}
		if _, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return &inferred{kind: infLong}
		}
		// Jackson's BIG_INTEGER: a decimal of its digits, or a double past 38.
		n, _ := new(big.Int).SetString(v.Text, 10)
		if p := len(n.Text(10)) - btoi(n.Sign() < 0); p <= 38 {
			return &inferred{kind: infDecimal, prec: p}
		}
		return tDoubleInf
	case jsonx.Array:
		elem := tNullInf
		for _, e := range v.Elems {
			elem = compatible(elem, inferJSON(e))
		}
		return &inferred{kind: infArray, elem: elem}
	}
	fields := make([]inferField, len(v.Keys))
	for i, k := range v.Keys {
		fields[i] = inferField{name: k, t: inferJSON(v.Elems[i])}
	}
	sort.SliceStable(fields, func(i, j int) bool { return javaLess(fields[i].name, fields[j].name) })
	return &inferred{kind: infStruct, fields: fields}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// javaLess is Java's String.compareTo < 0: UTF-16 code unit order.
func javaLess(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// compatible is JsonInferSchema.compatibleType.
func compatible(a, b *inferred) *inferred {
	switch {
	case a.kind == infNull:
		return b
	case b.kind == infNull:
		return a
	case a.kind == b.kind && a.kind <= infDouble, a.kind == infString && b.kind == infString:
		return a
	case a.kind == infLong && b.kind == infDouble, a.kind == infDouble && b.kind == infLong:
		return tDoubleInf
	case a.kind == infDouble && b.kind == infDecimal, a.kind == infDecimal && b.kind == infDouble:
		return tDoubleInf
	case a.kind == infLong && b.kind == infDecimal:
		return compatible(&inferred{kind: infDecimal, prec: 20}, b)
	case a.kind == infDecimal && b.kind == infLong:
		return compatible(a, &inferred{kind: infDecimal, prec: 20})
	case a.kind == infDecimal && b.kind == infDecimal:
		scale := max(a.scale, b.scale)
		rng := max(a.prec-a.scale, b.prec-b.scale)
		if rng+scale > 38 {
			return tDoubleInf
		}
		return &inferred{kind: infDecimal, prec: rng + scale, scale: scale}
	case a.kind == infArray && b.kind == infArray:
		return &inferred{kind: infArray, elem: compatible(a.elem, b.elem)}
	case a.kind == infStruct && b.kind == infStruct:
		return &inferred{kind: infStruct, fields: mergeFields(a.fields, b.fields)}
	}
	return tStringInf
}

// mergeFields merges two field lists sorted by name, as compatibleType
// merges structs.
func mergeFields(f1, f2 []inferField) []inferField {
	var out []inferField
	i, j := 0, 0
	for i < len(f1) && j < len(f2) {
		switch {
		case f1[i].name == f2[j].name:
			out = append(out, inferField{name: f1[i].name, t: compatible(f1[i].t, f2[j].t)})
			i, j = i+1, j+1
		case javaLess(f1[i].name, f2[j].name):
			out, i = append(out, f1[i]), i+1
		default:
			out, j = append(out, f2[j]), j+1
		}
	}
	out = append(out, f1[i:]...)
	return append(out, f2[j:]...)
}

// canonical is canonicalizeType: nulls become strings, structs lose
// fields with empty names, and empty structs (with the arrays of them)
// disappear (nil).
func canonical(t *inferred) *inferred {
	switch t.kind {
	case infNull:
		return tStringInf
	case infArray:
		e := canonical(t.elem)
		if e == nil {
			return nil
		}
		return &inferred{kind: infArray, elem: e}
	case infStruct:
		var fields []inferField
		for _, f := range t.fields {
			if f.name == "" {
				continue
			}
			if c := canonical(f.t); c != nil {
				fields = append(fields, inferField{name: f.name, t: c})
			}
		}
		if len(fields) == 0 {
			return nil
		}
		return &inferred{kind: infStruct, fields: fields}
	}
	return t
}

// sql is DataType.sql: BIGINT, ARRAY<STRING>, STRUCT<a: BIGINT, `b c`: STRING>.
func (t *inferred) sql() string {
	switch t.kind {
	case infBool:
		return "BOOLEAN"
	case infLong:
		return "BIGINT"
	case infDouble:
		return "DOUBLE"
	case infDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.prec, t.scale)
	case infArray:
		return "ARRAY<" + t.elem.sql() + ">"
	case infStruct:
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			parts[i] = quoteIfNeeded(f.name) + ": " + f.t.sql()
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	}
	return "STRING"
}

var plainIdent = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)
var allDigits = regexp.MustCompile(`^[0-9]+$`)

// quoteIfNeeded is Spark's QuotingUtils.quoteIfNeeded: names of letters,
// digits and underscores (not digits only) stay bare, others are
// backquoted with backquotes doubled.
func quoteIfNeeded(name string) string {
	if plainIdent.MatchString(name) && !allDigits.MatchString(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
