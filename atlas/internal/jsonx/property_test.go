package jsonx

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// The property test writes random records with encoding/json from Go values,
// decodes them, and compares every cell with the Go values: the reference
// path never touches the decoder's scanner.

// propSchema: user string, qty int, price double, ok boolean, ts timestamp,
// day date, big bigint, inner struct<x smallint, s string>.
func propSchema() *arrow.Schema {
	inner := arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	)
	return arrow.NewSchema([]arrow.Field{
		{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: types.Timestamp, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "big", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "inner", Type: inner, Nullable: true},
	}, nil)
}

// member is one key of a generated record: its JSON text and the cell the
// decoder must produce for it (bad when the value does not fit the type).
type member struct {
	key  string
	json string
	want any
	bad  bool
}

// recordGen makes random records from a seeded source.
type recordGen struct{ r *rand.Rand }

func (g *recordGen) chance(p float64) bool { return g.r.Float64() < p }

// text returns a random valid UTF-8 string with quotes, backslashes, control
// characters, non-ASCII letters and astral-plane runes (surrogate pairs once
// escaped).
func (g *recordGen) text() string {
	alphabet := []rune{'a', 'b', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', '\x01', '\x1f', 'é', 'ß', '€', '日', '😀', '𝄞', '<', '&', '\'', '\u2028'}
	var b strings.Builder
	for range g.r.IntN(12) {
		b.WriteRune(alphabet[g.r.IntN(len(alphabet))])
	}
	return b.String()
}

// marshal is json.Marshal that cannot fail for the values used here.
func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%v): %v", v, err)
	}
	return string(b)
}

// escapeAll writes s as a JSON string with every non-ASCII rune as \uXXXX
// escapes (surrogate pairs for astral runes), exercising the slow path.
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				r -= 0x10000
				b.WriteString(`\u` + strconv.FormatInt(int64(0xd800+(r>>10)), 16) + `\u` + strconv.FormatInt(int64(0xdc00+(r&0x3ff)), 16))
				continue
			}
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(`\u` + strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g *recordGen) stringMember(t *testing.T, key string) member {
	s := g.text()
	if g.chance(0.3) {
		return member{key, escapeAll(s), s, false}
	}
	return member{key, marshal(t, s), s, false}
}

func (g *recordGen) intMember(t *testing.T, key string, lo, hi int64) member {
	switch {
	case g.chance(0.01):
		return member{key, marshal(t, "7"), nil, true} // a string is not a number
	case g.chance(0.01):
		return member{key, "6.5", nil, true}
	case g.chance(0.01):
		return member{key, strconv.FormatInt(hi, 10) + "0", nil, true} // out of range
	}
	v := lo + g.r.Int64N(hi-lo) + g.r.Int64N(2)
	if g.chance(0.2) {
		v = []int64{lo, hi, 0, -1, 1}[g.r.IntN(5)]
	}
	return member{key, strconv.FormatInt(v, 10), v, false}
}

func (g *recordGen) floatMember(t *testing.T, key string) member {
	var f float64
	switch g.r.IntN(4) {
	case 0:
		f = float64(g.r.IntN(100000)) / 100
	case 1:
		f = g.r.NormFloat64() * 1e6
	case 2:
		f = math.Float64frombits(g.r.Uint64()&^(0x7ff<<52) | uint64(g.r.IntN(2046)+1)<<52) // any finite float
	default:
		f = float64(g.r.Int64N(1 << 40)) // integral: written as an int
	}
	if g.chance(0.02) {
		return member{key, `"x"`, nil, true}
	}
	text := marshal(t, f)
	if g.chance(0.2) {
		text = strconv.FormatFloat(f, 'e', -1, 64) // exponent form
	}
	return member{key, text, f, false}
}

// tsMember writes a random instant in one of several layouts Spark's
// default parser reads.
func (g *recordGen) tsMember(t *testing.T, key string) member {
	sec := g.r.Int64N(4_000_000_000) - 1_000_000_000
	micro := g.r.Int64N(1_000_000)
	at := time.Unix(sec, micro*1000).UTC()
	zone := time.FixedZone("", (g.r.IntN(49)-24)*1800)
	if g.chance(0.02) {
		return member{key, marshal(t, "not a time"), nil, true}
	}
	switch g.r.IntN(6) {
	case 0:
		return member{key, marshal(t, at.Format("2006-01-02T15:04:05.000000Z07:00")), at, false}
	case 1:
		at = at.Truncate(time.Millisecond)
		return member{key, marshal(t, at.In(zone).Format("2006-01-02T15:04:05.000Z07:00")), at, false}
	case 2:
		at = at.Truncate(time.Second)
		return member{key, marshal(t, at.Format("2006-01-02 15:04:05")), at, false}
	case 3:
		at = at.Truncate(time.Second)
		return member{key, marshal(t, at.In(zone).Format("2006-01-02T15:04:05-0700")), at, false}
	case 4:
		at = at.Truncate(time.Second)
		return member{key, strconv.FormatInt(at.Unix(), 10), at, false}
	default:
		// Escaped digits and 'T' take the decoder's unescaping path.
		text := strings.NewReplacer("T", `\u0054`, "0", `\u0030`).Replace(marshal(t, at.Format("2006-01-02T15:04:05.999999Z")))
		return member{key, text, at, false}
	}
}

func (g *recordGen) dateMember(t *testing.T, key string) member {
	d := time.Date(1900+g.r.IntN(300), time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
	if g.chance(0.02) {
		return member{key, "20240101", nil, true} // numbers are not dates
	}
	return member{key, marshal(t, d.Format(time.DateOnly)), d.Format(time.DateOnly), false}
}

// junk is a random JSON value for unknown keys.
func (g *recordGen) junk(depth int) any {
	switch n := g.r.IntN(6); {
	case n == 0 && depth < 3:
		m := map[string]any{}
		for range g.r.IntN(3) {
			m[g.text()] = g.junk(depth + 1)
		}
		return m
	case n == 1 && depth < 3:
		a := make([]any, g.r.IntN(3))
		for i := range a {
			a[i] = g.junk(depth + 1)
		}
		return a
	case n == 2:
		return g.text()
	case n == 3:
		return g.r.NormFloat64()
	case n == 4:
		return nil
	}
	return true
}

// record returns a random record: its JSON text, the expected row (nil for
// a null struct) and whether it is malformed.
func (g *recordGen) record(t *testing.T) (string, []any, bool) {
	switch {
	case g.chance(0.02):
		return "", nil, false
	case g.chance(0.03):
		return []string{`[1,2]`, `"str"`, `12`, `null`, `true`}[g.r.IntN(5)], []any{nil, nil, nil, nil, nil, nil, nil, nil}, true
	}
	var members []member
	bad := false
	// add includes m, or null in its place, or leaves the key out.
	add := func(m member) (any, bool) {
		if g.chance(0.15) {
			return nil, false
		}
		if g.chance(0.1) {
			m = member{m.key, "null", nil, false}
		}
		members = append(members, m)
		bad = bad || m.bad
		return m.want, true
	}
	want := make([]any, 8)
	gen := []func() member{
		func() member { return g.stringMember(t, "user") },
		func() member { return g.intMember(t, "qty", math.MinInt32, math.MaxInt32) },
		func() member { return g.floatMember(t, "price") },
		func() member {
			v := g.chance(0.5)
			if g.chance(0.02) {
				return member{"ok", "0", nil, true}
			}
			return member{"ok", strconv.FormatBool(v), v, false}
		},
		func() member { return g.tsMember(t, "ts") },
		func() member { return g.dateMember(t, "day") },
		func() member { return g.intMember(t, "big", math.MinInt64/2, math.MaxInt64/2) },
		func() member {
			if g.chance(0.02) {
				return member{"inner", "[1]", nil, true}
			}
			var inner []member
			cell := []any{nil, nil}
			innerBad := false
			if !g.chance(0.2) {
				m := g.intMember(t, "x", math.MinInt16, math.MaxInt16)
				inner = append(inner, m)
				cell[0], innerBad = m.want, m.bad
			}
			if !g.chance(0.2) {
				m := g.stringMember(t, "s")
				inner = append(inner, m)
				cell[1] = m.want
			}
			g.r.Shuffle(len(inner), func(i, j int) { inner[i], inner[j] = inner[j], inner[i] })
			return member{"inner", g.object(inner), cell, innerBad}
		},
	}
	for i, mk := range gen {
		want[i], _ = add(mk())
	}
	for range g.r.IntN(3) {
		members = append(members, member{key: "extra_" + g.text(), json: marshal(t, g.junk(0))})
	}
	g.r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	text := g.object(members)
	if g.chance(0.04) {
		// Truncated: never valid, since the object is not closed.
		return text[:1+g.r.IntN(len(text)-1)], []any{nil, nil, nil, nil, nil, nil, nil, nil}, true
	}
	return text, want, bad
}

// object joins members into a JSON object with random whitespace.
func (g *recordGen) object(ms []member) string {
	ws := func() string { return []string{"", "", "", " ", "\n", " \t "}[g.r.IntN(6)] }
	var b strings.Builder
	b.WriteString("{" + ws())
	for i, m := range ms {
		if i > 0 {
			b.WriteString("," + ws())
		}
		b.WriteString(marshalKey(m.key) + ws() + ":" + ws() + m.json + ws())
	}
	b.WriteString("}")
	return b.String()
}

func marshalKey(k string) string {
	b, _ := json.Marshal(k)
	return string(b)
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		g := &recordGen{r: rand.New(rand.NewPCG(seed, 42))}
		const n = 3000
		in := make([]*string, n)
		want := make([][]any, n)
		var wantMalformed int64
		for i := range in {
			if g.chance(0.02) {
				continue // null input, null struct
			}
			text, row, bad := g.record(t)
			in[i], want[i] = &text, row
			if bad {
				wantMalformed++
			}
		}
		got, stats := decodeAll(t, propSchema(), Options{}, in)
		t.Logf("seed %d: %d malformed of %d", seed, wantMalformed, n)
		if stats.Malformed != wantMalformed {
			t.Errorf("seed %d: Malformed = %d, want %d (first: %s)", seed, stats.Malformed, wantMalformed, stats.FirstError)
		}
		failures := 0
		for i := range want {
			for f := 0; f < 8 && failures < 10; f++ {
				var w, g any
				if want[i] != nil {
					w = normalize(want[i][f])
				}
				if got[i] != nil {
					g = got[i][f]
				}
				if (want[i] == nil) != (got[i] == nil) || !sameCell(w, g) {
					failures++
					t.Errorf("seed %d row %d field %d: got %#v, want %#v\ninput: %s", seed, i, f, g, w, deref(in[i]))
				}
			}
		}
	}
}

// normalize maps reference Go values to goRows' cell types.
func normalize(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i])
		}
		return out
	case time.Time:
		return x.UTC()
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
