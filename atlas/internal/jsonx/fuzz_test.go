package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// FuzzDecode feeds arbitrary bytes to a Decoder of every supported type. It
// must never panic, must return one valid row per value, and must not call
// a valid JSON object malformed JSON. Run it by hand:
//
//	go test ./atlas/internal/jsonx -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"s":"x","i":1,"l":-2,"d":2.5,"f":1e3,"b":true,"ts":"2026-11-30T10:15:30.123Z","dt":"2026-11-30","bin":"aGk=","n":{"x":1,"y":"z"}}`,
		`{"s":{"a":[1,2,{"b":null}]},"i":"x","ts":1700000000,"n":[1]}`,
		`{'s':'it\'s','d':NaN,'f':-Infinity,"ts":"2026-1-2 3:4:5.6 UTC+01:00"}`,
		`{"s":"\ud83d\ude00\u00e9\n","ts":"2026-11-30T10:15:30 Europe/Paris","dt":"365"}`,
		`{"i":007}`, `{"a":`, `[1]`, `  `, `{"s":"a` + "\xff" + `"}`, `{"n":{"n":{"n":{}}}}`,
	} {
		f.Add([]byte(seed))
	}
	inner := arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true},
	)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: types.Timestamp, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "n", Type: inner, Nullable: true},
	}, nil)
	decoders := make([]*Decoder, 2)
	for i, opts := range []Options{{}, {CaseInsensitive: true, BinaryBase64: true}} {
		d, err := NewDecoder(schema, opts)
		if err != nil {
			f.Fatal(err)
		}
		decoders[i] = d
	}
	mem := memory.NewGoAllocator()
	f.Fuzz(func(t *testing.T, data []byte) {
		bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		bb.Append(data)
		bb.AppendNull()
		bb.Append(data) // twice, so state left by one row cannot leak into the next
		in := bb.NewBinaryArray()
		bb.Release()
		defer in.Release()
		for _, d := range decoders {
			out, stats, err := d.Decode(in)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if err := out.ValidateFull(); err != nil {
				t.Fatalf("invalid output: %v", err)
			}
			rows := goRows(out)
			out.Release()
			if len(rows) != 3 || rows[1] != nil {
				t.Fatalf("rows = %v", rows)
			}
			if !sameCell(rows[0], rows[2]) {
				t.Fatalf("same input decoded differently: %#v and %#v", rows[0], rows[2])
			}
			if stats.Malformed != 0 && stats.Malformed != 2 {
				t.Fatalf("Malformed = %d for the same input twice", stats.Malformed)
			}
			trimmed := bytes.TrimLeft(data, " \t\r\n")
			if json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{' && strings.Contains(stats.FirstError, "malformed JSON") && depth(data) <= maxDepth {
				t.Fatalf("valid JSON object reported as %q", stats.FirstError)
			}
		}
	})
}

// depth is the maximum bracket nesting of JSON text, ignoring strings.
func depth(b []byte) int {
	max, cur, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '{' || c == '['):
			cur++
			if cur > max {
				max = cur
			}
		case !inStr && (c == '}' || c == ']'):
			cur--
		}
	}
	return max
}
