package jsonx

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// row is the expected decoded row: nil for a null struct.
type row = []any

func TestDecodeRules(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		name      string
		schema    string
		opts      Options
		in        *string
		want      row
		malformed int64
	}{
		// Row-level rules.
		{name: "null input is a null struct", schema: "a int", in: nil, want: nil},
		{name: "empty input is a null struct", schema: "a int", in: str(""), want: nil},
		{name: "blank input is a null struct", schema: "a int", in: str(" \n\t"), want: nil},
		{name: "invalid JSON nulls every field", schema: "a int, b string", in: str(`{"a" 1}`), want: row{nil, nil}, malformed: 1},
		{name: "truncated record", schema: "a int, b string", in: str(`{"a":1,"b":"x`), want: row{nil, nil}, malformed: 1},
		{name: "truncated after comma", schema: "a int", in: str(`{"a":1,`), want: row{nil}, malformed: 1},
		{name: "top-level array", schema: "a int", in: str(`[{"a":1}]`), want: row{nil}, malformed: 1},
		{name: "top-level number", schema: "a int", in: str(`42`), want: row{nil}, malformed: 1},
		{name: "top-level null", schema: "a int", in: str(`null`), want: row{nil}, malformed: 1},
		{name: "top-level string", schema: "a int", in: str(`"a"`), want: row{nil}, malformed: 1},
		{name: "syntax error after good fields", schema: "a int, b int", in: str(`{"a":1,"b":2,"c":[1,}`), want: row{nil, nil}, malformed: 1},
		{name: "trailing comma", schema: "a int", in: str(`{"a":1,}`), want: row{nil}, malformed: 1},
		{name: "comment", schema: "a int", in: str(`{"a":1 /* x */}`), want: row{nil}, malformed: 1},
		{name: "unquoted key", schema: "a int", in: str(`{a:1}`), want: row{nil}, malformed: 1},
		{name: "bytes after the object are ignored", schema: "a int", in: str(`{"a":1} trailing {`), want: row{int64(1)}},
		{name: "empty object", schema: "a int, b string", in: str(`{}`), want: row{nil, nil}},
		{name: "missing fields are null, not malformed", schema: "a int, b string, c double", in: str(`{"b":"x"}`), want: row{nil, "x", nil}},
		{name: "extra fields ignored", schema: "a int", in: str(`{"x":{"y":[1,2,{"z":null}]},"a":7,"w":"\u00e9"}`), want: row{int64(7)}},
		{name: "JSON null", schema: "a int, b string", in: str(`{"a":null,"b":null}`), want: row{nil, nil}},
		{name: "whitespace everywhere", schema: "a int, b string", in: str(" {\n \"a\" : 1 ,\t\"b\"\r\n:\"x\" } "), want: row{int64(1), "x"}},
		{name: "field order free", schema: "a int, b string", in: str(`{"b":"x","a":2}`), want: row{int64(2), "x"}},
		// Keys in the schema's order are matched without a scan; these
		// look like the expected key without being it.
		{name: "key extending the expected one", schema: "ab int, abc int", in: str(`{"abc":1,"ab":2}`), want: row{int64(2), int64(1)}},
		{name: "key shorter than the expected one", schema: "abc int, ab int", in: str(`{"ab":1,"abc":2}`), want: row{int64(2), int64(1)}},
		{name: "expected key escaped", schema: "ab int, c int", in: str(`{"\u0061b":1,"c":2}`), want: row{int64(1), int64(2)}},
		{name: "expected key cut short", schema: "ab int", in: str(`{"ab`), want: row{nil}, malformed: 1},
		{name: "expected key without its quote", schema: "ab int", in: str(`{"ab:1}`), want: row{nil}, malformed: 1},
		{name: "expected key then the end", schema: "ab int, c int", in: str(`{"ab":1,"c"`), want: row{nil, nil}, malformed: 1},
		{name: "expected key single-quoted", schema: "ab int, c int", in: str(`{'ab':1,'c':2}`), want: row{int64(1), int64(2)}},
		{name: "single quotes", schema: "a int, b string", in: str(`{'a':1,'b':'it''s'}`), want: row{nil, nil}, malformed: 1},
		{name: "single-quoted strings", schema: "a int, b string", in: str(`{'a':1,'b':'say "hi"'}`), want: row{int64(1), `say "hi"`}},

		// Type mismatch: that field only is null; the row is malformed.
		{name: "int given a string", schema: "a int, b string", in: str(`{"a":"x","b":"ok"}`), want: row{nil, "ok"}, malformed: 1},
		{name: "int given a fraction", schema: "q int, b string", in: str(`{"q":6.5,"b":"ok"}`), want: row{nil, "ok"}, malformed: 1},
		{name: "int given 6.0", schema: "q int", in: str(`{"q":6.0}`), want: row{nil}, malformed: 1},
		{name: "int given exponent", schema: "q int", in: str(`{"q":1e2}`), want: row{nil}, malformed: 1},
		{name: "int given numeric string", schema: "q int", in: str(`{"q":"6"}`), want: row{nil}, malformed: 1},
		{name: "int given empty string", schema: "q int", in: str(`{"q":""}`), want: row{nil}, malformed: 1},
		{name: "int given bool", schema: "q int", in: str(`{"q":true}`), want: row{nil}, malformed: 1},
		{name: "int given object", schema: "q int, r int", in: str(`{"q":{"x":1},"r":2}`), want: row{nil, int64(2)}, malformed: 1},
		{name: "int out of range", schema: "q int", in: str(`{"q":2147483648}`), want: row{nil}, malformed: 1},
		{name: "int at range ends", schema: "q int, r int", in: str(`{"q":2147483647,"r":-2147483648}`), want: row{int64(math.MaxInt32), int64(math.MinInt32)}},
		{name: "tinyint range", schema: "a tinyint, b tinyint", in: str(`{"a":127,"b":128}`), want: row{int64(127), nil}, malformed: 1},
		{name: "smallint range", schema: "a smallint, b smallint", in: str(`{"a":-32768,"b":-32769}`), want: row{int64(-32768), nil}, malformed: 1},
		{name: "bigint range", schema: "a bigint, b bigint, c bigint", in: str(`{"a":9223372036854775807,"b":-9223372036854775808,"c":9223372036854775808}`), want: row{int64(math.MaxInt64), int64(math.MinInt64), nil}, malformed: 1},
		{name: "bigint huge", schema: "a bigint", in: str(`{"a":123456789012345678901234567890}`), want: row{nil}, malformed: 1},
		{name: "negative zero int", schema: "a int", in: str(`{"a":-0}`), want: row{int64(0)}},
		{name: "leading zero is invalid JSON", schema: "a int, b int", in: str(`{"a":007,"b":1}`), want: row{nil, nil}, malformed: 1},
		{name: "leading plus is invalid JSON", schema: "a int", in: str(`{"a":+1}`), want: row{nil}, malformed: 1},
		{name: "bool given string", schema: "a boolean, b boolean", in: str(`{"a":"true","b":false}`), want: row{nil, false}, malformed: 1},
		{name: "bool", schema: "a boolean, b boolean", in: str(`{"a":true,"b":false}`), want: row{true, false}},

		// Doubles.
		{name: "double accepts ints", schema: "d double", in: str(`{"d":17850}`), want: row{17850.0}},
		{name: "double", schema: "d double, e double, f double", in: str(`{"d":2.55,"e":-1.5e-3,"f":17850.0}`), want: row{2.55, -0.0015, 17850.0}},
		{name: "double exponent forms", schema: "d double, e double", in: str(`{"d":1E+2,"e":0.1e1}`), want: row{100.0, 1.0}},
		{name: "double overflow is inf", schema: "d double", in: str(`{"d":1e400}`), want: row{inf}},
		{name: "double long mantissa", schema: "d double", in: str(`{"d":3.14159265358979323846264338327950288}`), want: row{math.Pi}},
		{name: "double negative zero", schema: "d double", in: str(`{"d":-0.0}`), want: row{math.Copysign(0, -1)}},
		{name: "double non-numeric tokens", schema: "a double, b double, c double, d double", in: str(`{"a":NaN,"b":Infinity,"c":-Infinity,"d":+INF}`), want: row{nan, inf, -inf, inf}},
		{name: "double non-numeric strings", schema: "a double, b double, c double", in: str(`{"a":"NaN","b":"+Infinity","c":"-INF"}`), want: row{nan, inf, -inf}},
		{name: "double given other string", schema: "a double, b double", in: str(`{"a":"2.5","b":1}`), want: row{nil, 1.0}, malformed: 1},
		{name: "double given bool", schema: "a double", in: str(`{"a":false}`), want: row{nil}, malformed: 1},
		{name: "float rounds to float32", schema: "f float", in: str(`{"f":0.1}`), want: row{float64(float32(0.1))}},
		{name: "int given NaN", schema: "a int", in: str(`{"a":NaN}`), want: row{nil}, malformed: 1},
		{name: "bad special token", schema: "a double", in: str(`{"a":NaNa}`), want: row{nil}, malformed: 1},
		{name: "fraction without digits", schema: "a double", in: str(`{"a":1.}`), want: row{nil}, malformed: 1},

		// Strings.
		{name: "string escapes", schema: "s string", in: str(`{"s":"a\"b\\c\/d\n\t\r\b\f"}`), want: row{"a\"b\\c/d\n\t\r\b\f"}},
		{name: "unicode escape", schema: "s string", in: str(`{"s":"caf\u00e9 \u20AC"}`), want: row{"café €"}},
		{name: "surrogate pair", schema: "s string", in: str(`{"s":"\ud83d\ude00!"}`), want: row{"😀!"}},
		{name: "lone surrogate is ?", schema: "s string", in: str(`{"s":"a\ud83db"}`), want: row{"a?b"}},
		{name: "raw UTF-8", schema: "s string", in: str(`{"s":"日本語 😀"}`), want: row{"日本語 😀"}},
		{name: "invalid UTF-8 replaced", schema: "s string", in: str("{\"s\":\"a\xffb\"}"), want: row{"a\uFFFDb"}},
		{name: "escaped single quote", schema: "s string", in: str(`{"s":"it\'s"}`), want: row{"it's"}},
		{name: "bad escape", schema: "s string", in: str(`{"s":"\x41"}`), want: row{nil}, malformed: 1},
		{name: "short unicode escape", schema: "s string", in: str(`{"s":"\u00e"}`), want: row{nil}, malformed: 1},
		{name: "raw control char", schema: "s string", in: str("{\"s\":\"a\nb\"}"), want: row{nil}, malformed: 1},
		{name: "string from number keeps text", schema: "s string", in: str(`{"s":17850.0}`), want: row{"17850.0"}},
		{name: "string from object keeps text", schema: "s string", in: str(`{"s":{"a": [1, true]}}`), want: row{`{"a": [1, true]}`}},
		{name: "string from bool", schema: "s string", in: str(`{"s":false}`), want: row{"false"}},
		{name: "empty string", schema: "s string", in: str(`{"s":""}`), want: row{""}},
		{name: "escaped key", schema: "user_id string", in: str(`{"\u0075ser_id":"u1"}`), want: row{"u1"}},

		// Binary.
		{name: "binary takes string bytes", schema: "b binary", in: str(`{"b":"aGk="}`), want: row{[]byte("aGk=")}},
		{name: "binary base64 option", schema: "b binary, c binary", opts: Options{BinaryBase64: true}, in: str(`{"b":"aGk=","c":"aGk"}`), want: row{[]byte("hi"), []byte("hi")}},
		{name: "binary bad base64", schema: "b binary", opts: Options{BinaryBase64: true}, in: str(`{"b":"!!"}`), want: row{nil}, malformed: 1},
		{name: "binary given number", schema: "b binary", in: str(`{"b":12}`), want: row{nil}, malformed: 1},

		// Field names.
		{name: "names are case-sensitive", schema: "Country string", in: str(`{"country":"UK"}`), want: row{nil}},
		{name: "case-insensitive option", schema: "Country string", opts: Options{CaseInsensitive: true}, in: str(`{"country":"UK"}`), want: row{"UK"}},
		{name: "duplicate key: last wins", schema: "a int", in: str(`{"a":1,"a":2}`), want: row{int64(2)}},
		{name: "duplicate key: null wins", schema: "a int", in: str(`{"a":1,"a":null}`), want: row{nil}},
		{name: "duplicate key: bad keeps earlier", schema: "a int", in: str(`{"a":1,"a":"x"}`), want: row{int64(1)}, malformed: 1},

		// Timestamps.
		{name: "timestamp Z", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30Z"}`), want: row{ts(2026, 11, 30, 10, 15, 30, 0)}},
		{name: "timestamp millis", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30.123Z"}`), want: row{ts(2026, 11, 30, 10, 15, 30, 123000)}},
		{name: "timestamp micros offset", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30.123456+01:00"}`), want: row{ts(2026, 11, 30, 9, 15, 30, 123456)}},
		{name: "timestamp space no zone is UTC", schema: "ts timestamp", in: str(`{"ts":"2026-11-30 10:15:30"}`), want: row{ts(2026, 11, 30, 10, 15, 30, 0)}},
		{name: "timestamp nanos truncated", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30.123456789-0230"}`), want: row{ts(2026, 11, 30, 12, 45, 30, 123456)}},
		{name: "timestamp date only", schema: "ts timestamp", in: str(`{"ts":"2026-11-30"}`), want: row{ts(2026, 11, 30, 0, 0, 0, 0)}},
		{name: "timestamp short fields", schema: "ts timestamp", in: str(`{"ts":"2026-1-3T4:5:6.7"}`), want: row{ts(2026, 1, 3, 4, 5, 6, 700000)}},
		{name: "timestamp minutes only", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15"}`), want: row{ts(2026, 11, 30, 10, 15, 0, 0)}},
		{name: "timestamp UTC zone name", schema: "ts timestamp", in: str(`{"ts":"2026-11-30 10:15:30 UTC"}`), want: row{ts(2026, 11, 30, 10, 15, 30, 0)}},
		{name: "timestamp GMT offset", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30GMT+2"}`), want: row{ts(2026, 11, 30, 8, 15, 30, 0)}},
		{name: "timestamp short id", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30EST"}`), want: row{ts(2026, 11, 30, 15, 15, 30, 0)}},
		{name: "timestamp escaped text", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30\u005a"}`), want: row{ts(2026, 11, 30, 10, 15, 30, 0)}},
		{name: "timestamp epoch seconds", schema: "ts timestamp", in: str(`{"ts":1700000000}`), want: row{ts(2023, 11, 14, 22, 13, 20, 0)}},
		{name: "timestamp float is malformed", schema: "ts timestamp", in: str(`{"ts":1700000000.5}`), want: row{nil}, malformed: 1},
		{name: "timestamp garbage", schema: "ts timestamp, a int", in: str(`{"ts":"abc","a":1}`), want: row{nil, int64(1)}, malformed: 1},
		{name: "timestamp bad date", schema: "ts timestamp", in: str(`{"ts":"2026-02-30T10:15:30Z"}`), want: row{nil}, malformed: 1},
		{name: "timestamp bad hour", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T24:00:00Z"}`), want: row{nil}, malformed: 1},
		{name: "timestamp zone after minutes", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15Z"}`), want: row{nil}, malformed: 1},
		{name: "timestamp time only", schema: "ts timestamp", in: str(`{"ts":"10:15:30"}`), want: row{nil}, malformed: 1},
		{name: "timestamp empty", schema: "ts timestamp", in: str(`{"ts":""}`), want: row{nil}, malformed: 1},
		{name: "timestamp offset too big", schema: "ts timestamp", in: str(`{"ts":"2026-11-30T10:15:30+19:00"}`), want: row{nil}, malformed: 1},
		{name: "timestamp layout option", schema: "ts timestamp", opts: Options{TimestampLayout: "02/01/2006 15:04"}, in: str(`{"ts":"30/11/2026 10:15"}`), want: row{ts(2026, 11, 30, 10, 15, 0, 0)}},
		{name: "timestamp layout option rejects ISO", schema: "ts timestamp", opts: Options{TimestampLayout: "02/01/2006 15:04"}, in: str(`{"ts":"2026-11-30T10:15:30Z"}`), want: row{nil}, malformed: 1},

		// Dates.
		{name: "date", schema: "d date", in: str(`{"d":"2026-11-30"}`), want: row{"2026-11-30"}},
		{name: "date from timestamp text", schema: "d date", in: str(`{"d":"2026-11-30T10:15:30Z"}`), want: row{"2026-11-30"}},
		{name: "date short", schema: "d date", in: str(`{"d":"2026-1-2"}`), want: row{"2026-01-02"}},
		{name: "date year month", schema: "d date", in: str(`{"d":"2026-11"}`), want: row{"2026-11-01"}},
		{name: "date legacy days", schema: "d date", in: str(`{"d":"365"}`), want: row{"1971-01-01"}},
		{name: "date bad", schema: "d date", in: str(`{"d":"2026-13-01"}`), want: row{nil}, malformed: 1},
		{name: "date given number", schema: "d date", in: str(`{"d":20000}`), want: row{nil}, malformed: 1},
		{name: "date layout option", schema: "d date", opts: Options{DateLayout: "02.01.2006"}, in: str(`{"d":"30.11.2026"}`), want: row{"2026-11-30"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows, stats := decodeAll(t, ddl(t, tc.schema), tc.opts, []*string{tc.in})
			if !sameCell(tc.want, rows[0]) {
				t.Errorf("row = %#v, want %#v", rows[0], tc.want)
			}
			if stats.Malformed != tc.malformed {
				t.Errorf("Malformed = %d, want %d (FirstError %q)", stats.Malformed, tc.malformed, stats.FirstError)
			}
			if (stats.FirstError != "") != (tc.malformed > 0) {
				t.Errorf("FirstError = %q with %d malformed", stats.FirstError, tc.malformed)
			}
		})
	}
}

func TestCaseInsensitiveExactMatchWins(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "A", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "Other", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rows, _ := decodeAll(t, schema, Options{CaseInsensitive: true}, []*string{str(`{"A":"upper","a":"lower","OTHER":"o"}`)})
	if want := (row{"lower", "upper", "o"}); !sameCell(want, rows[0]) {
		t.Errorf("row = %#v, want %#v", rows[0], want)
	}
}

// nestedSchema is a, b struct<x int, y struct<z string>>, c string.
func nestedSchema() *arrow.Schema {
	inner := arrow.StructOf(arrow.Field{Name: "z", Type: arrow.BinaryTypes.String, Nullable: true})
	b := arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "y", Type: inner, Nullable: true},
	)
	return arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: b, Nullable: true},
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

func TestDecodeNested(t *testing.T) {
	cases := []struct {
		in        string
		want      row
		malformed int64
	}{
		{`{"a":1,"b":{"x":2,"y":{"z":"q"}},"c":"s"}`, row{int64(1), row{int64(2), row{"q"}}, "s"}, 0},
		{`{"a":1,"b":{"y":{}},"c":"s"}`, row{int64(1), row{nil, row{nil}}, "s"}, 0},
		{`{"a":1,"b":null}`, row{int64(1), nil, nil}, 0},
		// A mismatch inside a nested struct nulls only that leaf (Spark 3.4+
		// partial results).
		{`{"a":1,"b":{"x":"bad","y":{"z":"q"}},"c":"s"}`, row{int64(1), row{nil, row{"q"}}, "s"}, 1},
		// A nested struct given a non-object is null.
		{`{"a":1,"b":5,"c":"s"}`, row{int64(1), nil, "s"}, 1},
		{`{"a":1,"b":{"x":2,"y":"str"},"c":"s"}`, row{int64(1), row{int64(2), nil}, "s"}, 1},
		// A syntax error inside the nested object nulls the whole row.
		{`{"a":1,"b":{"x":2,,},"c":"s"}`, row{nil, nil, nil}, 1},
		// A second object replaces the first entirely.
		{`{"b":{"x":2},"b":{"y":{"z":"w"}}}`, row{nil, row{nil, row{"w"}}, nil}, 0},
	}
	for _, tc := range cases {
		rows, stats := decodeAll(t, nestedSchema(), Options{}, []*string{str(tc.in)})
		if !sameCell(tc.want, rows[0]) {
			t.Errorf("%s: row = %#v, want %#v", tc.in, rows[0], tc.want)
		}
		if stats.Malformed != tc.malformed {
			t.Errorf("%s: Malformed = %d, want %d", tc.in, stats.Malformed, tc.malformed)
		}
	}
}

func TestDecodeStatsAndFirstError(t *testing.T) {
	in := []*string{
		str(`{"ts":"2026-11-30T10:15:30Z","q":1}`),
		nil,
		str(`{"ts":"abc","q":2}`),
		str(`{"ts":"2026-11-30T10:15:30Z","q":"x"}`),
		str(`not json`),
		str(``),
	}
	rows, stats := decodeAll(t, ddl(t, "ts timestamp, q int"), Options{}, in)
	if stats.Malformed != 3 {
		t.Errorf("Malformed = %d, want 3", stats.Malformed)
	}
	if want := `row 2: field "ts": cannot parse "abc" as timestamp`; stats.FirstError != want {
		t.Errorf("FirstError = %q, want %q", stats.FirstError, want)
	}
	want := [][]any{
		{ts(2026, 11, 30, 10, 15, 30, 0), int64(1)},
		nil,
		{nil, int64(2)},
		{ts(2026, 11, 30, 10, 15, 30, 0), nil},
		{nil, nil},
		nil,
	}
	for i := range want {
		if !sameCell(want[i], rows[i]) {
			t.Errorf("row %d = %#v, want %#v", i, rows[i], want[i])
		}
	}

	_, stats = decodeAll(t, ddl(t, "a int"), Options{}, []*string{str(`{"a":1}`), str(`{"a":`)})
	if want := "row 1: malformed JSON at byte 5: unexpected end of input"; stats.FirstError != want {
		t.Errorf("FirstError = %q, want %q", stats.FirstError, want)
	}
}

func TestNewDecoderRejectsUnsupportedTypes(t *testing.T) {
	cases := []struct {
		field arrow.Field
		want  string
	}{
		{arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)}, `field "l"`},
		{arrow.Field{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}}, `field "t"`},
		{arrow.Field{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "m", Type: arrow.BinaryTypes.LargeString})}, `field "s.m"`},
	}
	for _, tc := range cases {
		_, err := NewDecoder(arrow.NewSchema([]arrow.Field{tc.field}, nil), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("NewDecoder(%s) error = %v, want one naming %s", tc.field.Type, err, tc.want)
		}
	}
	_, err := NewDecoder(arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "a", Type: arrow.PrimitiveTypes.Int64},
	}, nil), Options{})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate field error = %v", err)
	}
	ok := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "b", Type: arrow.BinaryTypes.Binary},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8}, {Name: "ts", Type: types.Timestamp},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32}, {Name: "n", Type: nestedSchema().Field(1).Type},
	}, nil)
	if _, err := NewDecoder(ok, Options{}); err != nil {
		t.Errorf("NewDecoder(supported types): %v", err)
	}
}

func TestDecodeInputKinds(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d, err := NewDecoder(ddl(t, "a int, s string"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	texts := []string{`{"a":1,"s":"x"}`, `{"a":2}`, `{"s":"z","a":3}`}
	want := [][]any{{int64(1), "x"}, {int64(2), nil}, {int64(3), "z"}}

	sb := array.NewStringBuilder(mem)
	sb.AppendValues(append([]string{`{"a":0}`}, texts...), nil)
	strs := sb.NewStringArray()
	sb.Release()
	defer strs.Release()
	// A slice exercises a non-zero array offset.
	sliced := array.NewSlice(strs, 1, 4)
	defer sliced.Release()

	lb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.LargeString)
	for _, s := range texts {
		lb.AppendString(s)
	}
	large := lb.NewArray()
	lb.Release()
	defer large.Release()

	for _, in := range []arrow.Array{sliced, large} {
		out, stats, err := d.Decode(in)
		if err != nil {
			t.Fatalf("Decode(%s): %v", in.DataType(), err)
		}
		got := goRows(out)
		out.Release()
		if stats.Malformed != 0 {
			t.Errorf("%s: Malformed = %d", in.DataType(), stats.Malformed)
		}
		for i := range want {
			if !sameCell(want[i], got[i]) {
				t.Errorf("%s row %d = %#v, want %#v", in.DataType(), i, got[i], want[i])
			}
		}
	}

	ints := array.NewInt32Builder(mem)
	ints.Append(1)
	bad := ints.NewArray()
	ints.Release()
	defer bad.Release()
	if _, _, err := d.Decode(bad); err == nil || !strings.Contains(err.Error(), "want binary or string") {
		t.Errorf("Decode(int32) error = %v", err)
	}
}

// TestKeysThatReadAsAnotherName: a field whose name holds a backslash or a
// quote is never matched on its raw bytes, since the JSON text "a\""
// names a" and not a\.
func TestKeysThatReadAsAnotherName(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: `a\`, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: `a"`, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	got, stats := decodeAll(t, schema, Options{}, []*string{str(`{"a\"":1}`), str(`{"a\\":2,"a\"":3}`)})
	want := [][]any{{nil, int64(1)}, {int64(2), int64(3)}}
	for i := range want {
		for f := range want[i] {
			if !sameCell(got[i][f], want[i][f]) {
				t.Errorf("row %d field %d = %#v, want %#v", i, f, got[i][f], want[i][f])
			}
		}
	}
	if stats.Malformed != 0 {
		t.Errorf("%d malformed rows (%s), want 0", stats.Malformed, stats.FirstError)
	}
}

// TestSpecialBytesFindsTheFirst: the 8-bytes-at-a-time test of scanString
// points at the first byte the byte table does not call plain (or says
// none is), for every byte in every lane and random words.
func TestSpecialBytesFindsTheFirst(t *testing.T) {
	check := func(w [8]byte) {
		want := 8
		for i, c := range w {
			if doubleQuoted[c] != chPlain {
				want = i
				break
			}
		}
		got := 8
		if m := specialBytes(binary.LittleEndian.Uint64(w[:])); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want {
			t.Fatalf("specialBytes(%q) points at byte %d, the table says %d", w[:], got, want)
		}
	}
	base := [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
	for c := 0; c < 256; c++ {
		for lane := 0; lane < 8; lane++ {
			w := base
			w[lane] = byte(c)
			check(w)
			w[(lane+3)%8] = '"' - 1 // a neighbour just below a special byte
			check(w)
		}
	}
	r := rand.New(rand.NewPCG(5, 5))
	alphabet := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xff, 'a', '0'}
	for range 200000 {
		var w [8]byte
		for i := range w {
			if r.IntN(4) == 0 {
				w[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				w[i] = byte(0x20 + r.IntN(0x60))
			}
		}
		check(w)
	}
}
