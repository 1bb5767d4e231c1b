package functions

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// stringMoreDefs are encode, decode (both forms), unhex, elt and the
// UTF-8 validation functions.
func stringMoreDefs() []*Def {
	return []*Def{
		row("encode", "string", 2, 2, &rowImpl{resolve: sig(tBinary, tString, tString), eval: func(v []any) (any, error) {
			return encodeCharset(v[0].(string), v[1].(string))
		}}),
		{Name: "decode", Group: "string", MinArgs: 2, MaxArgs: -1, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			if len(a) == 2 {
				return &rowCall{name: called, args: a, impl: decodeCharsetImpl}, nil
			}
			return &rowCall{name: called, args: a, impl: decodeSwitchImpl}, nil
		}},
		{Name: "typeof", Group: "misc", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &typeOf{x: a[0]}, nil
		}},
		row("unhex", "string", 1, 1, &rowImpl{resolve: sig(tBinary, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			s := v[0].(string)
			if len(s)%2 == 1 {
				s = "0" + s
			}
			b, err := hex.DecodeString(s)
			if err != nil {
				return nil, nil // Spark's Hex.unhex: NULL for a non-hex digit
			}
			return b, nil
		}}),
		row("elt", "string", 2, -1, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			want := []arrow.DataType{tInt}
			for range in[1:] {
				want = append(want, tString)
			}
			return want, tString, nil
		}, nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
			if v[0] == nil {
				return nil, nil
			}
			n := v[0].(int64)
			if n < 1 || n >= int64(len(v)) {
				return nil, fmt.Errorf("[INVALID_ARRAY_INDEX] The index %d is out of bounds. The array has %d elements. Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead. SQLSTATE: 22003", n, len(v)-1)
			}
			return v[n], nil
		}}),
		row("is_valid_utf8", "string", 1, 1, &rowImpl{resolve: strOrBin(tBool), eval: func(v []any) (any, error) {
			return utf8.Valid(bytesOf(v[0])), nil
		}}),
		row("make_valid_utf8", "string", 1, 1, &rowImpl{resolve: strOrBin(tString), eval: func(v []any) (any, error) {
			return validUTF8(bytesOf(v[0])), nil
		}}),
		row("validate_utf8", "string", 1, 1, &rowImpl{resolve: strOrBin(tString), eval: func(v []any) (any, error) {
			b := bytesOf(v[0])
			if !utf8.Valid(b) {
				return nil, fmt.Errorf("[INVALID_UTF8_STRING] Invalid UTF8 byte sequence found in string: %s. SQLSTATE: 22029", hexBytes(b))
			}
			return string(b), nil
		}}),
		row("try_validate_utf8", "string", 1, 1, &rowImpl{resolve: strOrBin(tString), mayBeNull: true, eval: func(v []any) (any, error) {
			b := bytesOf(v[0])
			if !utf8.Valid(b) {
				return nil, nil
			}
			return string(b), nil
		}}),
	}
}

// decodeCharsetImpl is decode(binary, charset).
var decodeCharsetImpl = &rowImpl{resolve: sig(tString, tBinary, tString), eval: func(v []any) (any, error) {
	return decodeCharset(v[0].([]byte), v[1].(string))
}}

// decodeSwitchImpl is decode(expr, search1, result1, ..., [default]):
// the result of the first search equal to expr, NULL matching NULL, else
// the default (or NULL).
var decodeSwitchImpl = &rowImpl{nullSafe: true, mayBeNull: true, resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	keys := []arrow.DataType{in[0]}
	var results []arrow.DataType
	for i := 1; i < len(in); i++ {
		if i%2 == 1 && i+1 < len(in) {
			keys = append(keys, in[i])
		} else {
			results = append(results, in[i])
		}
	}
	kt, err := expr.CommonType(keys)
	if err != nil {
		return nil, nil, err
	}
	rt, err := expr.CommonType(results)
	if err != nil {
		return nil, nil, err
	}
	if rt.ID() == arrow.NULL {
		rt = tString
	}
	want := make([]arrow.DataType, len(in))
	for i := range in {
		if i == 0 || (i%2 == 1 && i+1 < len(in)) {
			want[i] = kt
		} else {
			want[i] = rt
		}
	}
	return want, rt, nil
}, eval: func(v []any) (any, error) {
	for i := 1; i+1 < len(v); i += 2 {
		if (v[0] == nil && v[i] == nil) || (v[0] != nil && v[i] != nil && equalValues(v[0], v[i])) {
			return v[i+1], nil
		}
	}
	if len(v)%2 == 0 {
		return v[len(v)-1], nil
	}
	return nil, nil
}}

// encodeCharset encodes s in one of the charsets Spark 4 accepts.
func encodeCharset(s, charset string) (any, error) {
	switch normCharset(charset) {
	case "UTF-8":
		return []byte(s), nil
	case "US-ASCII", "ISO-8859-1":
		limit := rune(0xFF)
		if normCharset(charset) == "US-ASCII" {
			limit = 0x7F
		}
		out := make([]byte, 0, len(s))
		for _, r := range s {
			if r > limit {
				return nil, fmt.Errorf("[MALFORMED_CHARACTER_CODING] Invalid value found when performing `encode` with `%s`. SQLSTATE: 22000", charset)
			}
			out = append(out, byte(r))
		}
		return out, nil
	}
	return nil, errCharset("encode", charset)
}

func decodeCharset(b []byte, charset string) (any, error) {
	switch normCharset(charset) {
	case "UTF-8":
		return validUTF8(b), nil
	case "US-ASCII", "ISO-8859-1":
		rs := make([]rune, len(b))
		for i, c := range b {
			rs[i] = rune(c)
		}
		return string(rs), nil
	}
	return nil, errCharset("decode", charset)
}

func errCharset(fn, charset string) error {
	return fmt.Errorf("[INVALID_PARAMETER_VALUE.CHARSET] The value of parameter(s) `charset` in `%s` is invalid: expects one of the charsets 'US-ASCII', 'ISO-8859-1', 'UTF-8' (Atlas does not implement UTF-16 and UTF-32), but got %s. SQLSTATE: 22023", fn, charset)
}

func normCharset(c string) string {
	c = strings.ToUpper(strings.TrimSpace(c))
	switch c {
	case "UTF8":
		return "UTF-8"
	case "ASCII":
		return "US-ASCII"
	case "LATIN1", "ISO8859-1":
		return "ISO-8859-1"
	}
	return c
}

// validUTF8 replaces each byte that starts no valid UTF-8 sequence by
// U+FFFD, as Java's decoder does for a malformed input of one byte.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[1:]
			continue
		}
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

func hexBytes(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("\\x%02X", c)
	}
	return strings.Join(parts, "")
}

// typeOf is typeof(x): Spark's simple name of x's type, a constant
// known once x is bound.
type typeOf struct{ x expr.Expr }

func (e *typeOf) String() string { return "typeof(" + e.x.String() + ")" }

// Bind resolves x and evaluates to its type's name on every row.
func (e *typeOf) Bind(s *arrow.Schema) (expr.Bound, error) {
	b, err := e.x.Bind(s)
	if err != nil {
		return nil, err
	}
	return expr.Lit(simpleString(b.Type())).Bind(s)
}

// simpleString is Spark's DataType.simpleString: int, array<int>,
// struct<a:int,b:string>, map<string,int>.
func simpleString(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.ListType:
		return "array<" + simpleString(t.Elem()) + ">"
	case *arrow.MapType:
		return "map<" + simpleString(t.KeyType()) + "," + simpleString(t.ItemType()) + ">"
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = f.Name + ":" + simpleString(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	if t.ID() == arrow.NULL {
		return "void"
	}
	return strings.ToLower(types.SQL(t))
}
