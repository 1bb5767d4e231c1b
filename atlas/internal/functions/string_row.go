package functions

import (
	"encoding/base64"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// stringRowDefs are the string functions evaluated a row at a time.
func stringRowDefs() []*Def {
	length := &rowImpl{resolve: strOrBin(tInt), eval: func(v []any) (any, error) {
		if b, ok := v[0].([]byte); ok {
			return int32(len(b)), nil
		}
		return int32(utf8.RuneCountInString(v[0].(string))), nil
	}}
	str1 := func(name string, f func(string) any, out arrow.DataType) *Def {
		return row(name, "string", 1, 1, &rowImpl{resolve: sig(out, tString), eval: func(v []any) (any, error) { return f(v[0].(string)), nil }})
	}
	return []*Def{
		row("length", "string", 1, 1, length, "len", "char_length", "character_length"),
		row("octet_length", "string", 1, 1, &rowImpl{resolve: strOrBin(tInt), eval: func(v []any) (any, error) { return int32(len(bytesOf(v[0]))), nil }}),
		row("bit_length", "string", 1, 1, &rowImpl{resolve: strOrBin(tInt), eval: func(v []any) (any, error) { return int32(8 * len(bytesOf(v[0]))), nil }}),
		str1("ascii", func(s string) any {
			if s == "" {
				return int32(0)
			}
			r, _ := utf8.DecodeRuneInString(s)
			return int32(r)
		}, tInt),
		row("chr", "string", 1, 1, &rowImpl{resolve: sig(tString, tLong), eval: func(v []any) (any, error) {
			n := v[0].(int64)
			if n < 0 {
				return "", nil
			}
			return string(rune(n & 0xFF)), nil
		}}, "char"),
		row("base64", "string", 1, 1, &rowImpl{resolve: sig(tString, tBinary), eval: func(v []any) (any, error) {
			return base64.StdEncoding.EncodeToString(v[0].([]byte)), nil
		}}),
		row("unbase64", "string", 1, 1, &rowImpl{resolve: sig(tBinary, tString), eval: func(v []any) (any, error) {
			b, err := base64.StdEncoding.DecodeString(v[0].(string))
			if err != nil {
				return nil, fmt.Errorf("[CONVERSION_INVALID_INPUT] The value '%s' (STRING) cannot be converted to BINARY: it is not base64", v[0])
			}
			return b, nil
		}}),
		row("repeat", "string", 2, 2, &rowImpl{resolve: sig(tString, tString, tInt), eval: func(v []any) (any, error) {
			n := v[1].(int64)
			if n <= 0 {
				return "", nil
			}
			return strings.Repeat(v[0].(string), int(n)), nil
		}}),
		row("replace", "string", 2, 3, &rowImpl{resolve: sig(tString, tString), eval: func(v []any) (any, error) {
			s, from := v[0].(string), v[1].(string)
			to := ""
			if len(v) == 3 {
				to = v[2].(string)
			}
			if from == "" {
				return s, nil
			}
			return strings.ReplaceAll(s, from, to), nil
		}}),
		row("left", "string", 2, 2, binaryAware(&rowImpl{resolve: sig(tString, tString, tInt), eval: func(v []any) (any, error) {
			return substringSQL(v[0].(string), 1, v[1].(int64)), nil
		}}, "")),
		row("right", "string", 2, 2, binaryAware(&rowImpl{resolve: sig(tString, tString, tInt), eval: func(v []any) (any, error) {
			n := v[1].(int64)
			if n <= 0 {
				return "", nil
			}
			return substringSQL(v[0].(string), -n, math.MaxInt32), nil
		}}, "")),
		padFn("lpad", true),
		padFn("rpad", false),
		{Name: "substring", Aliases: []string{"substr"}, Group: "string", MinArgs: 2, MaxArgs: 3, Build: rowBuild(binaryAware(&rowImpl{
			resolve: sig(tString, tString, tInt, tInt),
			eval: func(v []any) (any, error) {
				n := int64(math.MaxInt32)
				if len(v) == 3 {
					n = v[2].(int64)
				}
				return substringSQL(v[0].(string), v[1].(int64), n), nil
			}}, "")), ColumnName: withDefaults(3, "2147483647")},
		row("translate", "string", 3, 3, &rowImpl{resolve: sig(tString, tString), eval: func(v []any) (any, error) {
			return translate(v[0].(string), v[1].(string), v[2].(string)), nil
		}}),
		row("substring_index", "string", 3, 3, &rowImpl{resolve: sig(tString, tString, tString, tInt), eval: func(v []any) (any, error) {
			return substringIndex(v[0].(string), v[1].(string), v[2].(int64)), nil
		}}),
		row("split_part", "string", 3, 3, &rowImpl{resolve: sig(tString, tString, tString, tInt), eval: func(v []any) (any, error) {
			return splitPart(v[0].(string), v[1].(string), v[2].(int64))
		}}),
		predicate("startswith", strings.HasPrefix),
		predicate("endswith", strings.HasSuffix),
		predicate("contains", strings.Contains),
		row("instr", "string", 2, 2, &rowImpl{resolve: sig(tInt, tString), eval: func(v []any) (any, error) {
			return locate(v[1].(string), v[0].(string), 1), nil
		}}),
		{Name: "locate", Aliases: []string{"position"}, Group: "string", MinArgs: 2, MaxArgs: 3, Build: rowBuild(&rowImpl{
			resolve: sig(tInt, tString, tString, tInt),
			eval: func(v []any) (any, error) {
				pos := int64(1)
				if len(v) == 3 {
					pos = v[2].(int64)
				}
				return locate(v[0].(string), v[1].(string), pos), nil
			}}), ColumnName: withDefaults(3, "1")},
		str1("initcap", func(s string) any { return initcap(s) }, tString),
		str1("soundex", func(s string) any { return soundex(s) }, tString),
		row("space", "string", 1, 1, &rowImpl{resolve: sig(tString, tInt), eval: func(v []any) (any, error) {
			return strings.Repeat(" ", int(max(v[0].(int64), 0))), nil
		}}),
		row("btrim", "string", 1, 2, &rowImpl{resolve: sig(tString, tString), eval: func(v []any) (any, error) {
			if len(v) == 1 {
				return strings.Trim(v[0].(string), " "), nil
			}
			return strings.Trim(v[0].(string), v[1].(string)), nil
		}}),
		row("levenshtein", "string", 2, 3, &rowImpl{resolve: sig(tInt, tString, tString, tInt), eval: func(v []any) (any, error) {
			d := levenshtein([]rune(v[0].(string)), []rune(v[1].(string)))
			if len(v) == 3 && int64(d) > v[2].(int64) {
				return int32(-1), nil
			}
			return int32(d), nil
		}}),
		row("find_in_set", "string", 2, 2, &rowImpl{resolve: sig(tInt, tString), eval: func(v []any) (any, error) {
			s := v[0].(string)
			if strings.Contains(s, ",") {
				return int32(0), nil
			}
			for i, p := range strings.Split(v[1].(string), ",") {
				if p == s {
					return int32(i + 1), nil
				}
			}
			return int32(0), nil
		}}),
		str1("luhn_check", func(s string) any { return luhn(s) }, tBool),
		{Name: "mask", Group: "string", MinArgs: 1, MaxArgs: 5, Build: rowBuild(&rowImpl{
			resolve: sig(tString, tString), nullSafe: true, mayBeNull: true,
			eval: func(v []any) (any, error) {
				if v[0] == nil {
					return nil, nil
				}
				repl := []any{"X", "x", "n", nil}
				copy(repl, v[1:])
				return mask(v[0].(string), repl), nil
			}}), ColumnName: withDefaults(5, "X", "x", "n", "NULL")},
	}
}

// withDefaults names a call with its omitted trailing arguments filled in
// by their defaults, as Spark does: locate(bar, foobarbar, 1). total is
// the full number of parameters, defaults those of the last ones.
func withDefaults(total int, defaults ...string) func(string, []string) string {
	return func(name string, args []string) string {
		out := append([]string{}, args...)
		for len(out) < total {
			out = append(out, defaults[len(out)-(total-len(defaults))])
		}
		return name + "(" + strings.Join(out, ", ") + ")"
	}
}

func strOrBin(out arrow.DataType) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if in[0].ID() == arrow.BINARY {
			return []arrow.DataType{nil}, out, nil
		}
		return sig(out, tString)(in)
	}
}

func bytesOf(v any) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	return []byte(v.(string))
}

func predicate(name string, f func(s, sub string) bool) *Def {
	return row(name, "string", 2, 2, &rowImpl{resolve: sig(tBool, tString, tString), eval: func(v []any) (any, error) {
		return f(v[0].(string), v[1].(string)), nil
	}})
}

func padFn(name string, left bool) *Def {
	return &Def{Name: name, Group: "string", MinArgs: 2, MaxArgs: 3, ColumnName: withDefaults(3, " "), Build: rowBuild(binaryAware(&rowImpl{
		resolve: sig(tString, tString, tInt, tString),
		eval: func(v []any) (any, error) {
			s, n := []rune(v[0].(string)), v[1].(int64)
			pad := []rune(" ")
			if len(v) == 3 {
				pad = []rune(v[2].(string))
			}
			if n <= 0 {
				return "", nil
			}
			if int64(len(s)) >= n || len(pad) == 0 {
				return string(s[:min(int64(len(s)), n)]), nil
			}
			fill := make([]rune, 0, n-int64(len(s)))
			for i := 0; int64(len(fill)) < n-int64(len(s)); i++ {
				fill = append(fill, pad[i%len(pad)])
			}
			if left {
				return string(fill) + string(s), nil
			}
			return string(s) + string(fill), nil
		}}, "\x00"))}
}

// binaryAware lets a string function take a BINARY first argument, as
// Spark's do for bytes: the bytes (and those of other BINARY arguments)
// are the characters, one per byte, and the result is BINARY. With
// fewer arguments than the function takes, a binary call gets pad as the
// last (lpad and rpad pad bytes with X'00', not a blank).
func binaryAware(impl *rowImpl, pad string) *rowImpl {
	return &rowImpl{
		nullSafe: impl.nullSafe, mayBeNull: impl.mayBeNull,
		resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
			if in[0].ID() != arrow.BINARY {
				return impl.resolve(in)
			}
			asStr := make([]arrow.DataType, len(in))
			for i, t := range in {
				asStr[i] = t
				if t.ID() == arrow.BINARY {
					asStr[i] = tString
				}
			}
			want, _, err := impl.resolve(asStr)
			if err != nil {
				return nil, nil, err
			}
			for i, t := range in {
				if t.ID() == arrow.BINARY {
					want[i] = nil
				}
			}
			return want, tBinary, nil
		},
		eval: func(v []any) (any, error) {
			b, ok := v[0].([]byte)
			if !ok {
				return impl.eval(v)
			}
			args := make([]any, len(v))
			for i, x := range v {
				args[i] = x
				if xb, ok := x.([]byte); ok {
					args[i] = bytesAsRunes(xb)
				}
			}
			if pad != "" && len(args) == 2 {
				args = append(args, pad)
			}
			args[0] = bytesAsRunes(b)
			out, err := impl.eval(args)
			if s, ok := out.(string); ok && err == nil {
				return runesAsBytes(s), nil
			}
			return out, err
		},
	}
}

// bytesAsRunes makes each byte one character (U+0000 to U+00FF).
func bytesAsRunes(b []byte) string {
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return string(rs)
}

// runesAsBytes undoes bytesAsRunes.
func runesAsBytes(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = append(out, byte(r))
	}
	return out
}

// substringSQL is Spark's UTF8String.substringSQL: 1-based pos, a
// negative pos counts from the end, 0 reads as 1.
func substringSQL(s string, pos, length int64) string {
	r := []rune(s)
	n := int64(len(r))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	}
	end := start + length
	if length > math.MaxInt32 || end > math.MaxInt32 {
		end = math.MaxInt32
	}
	start = max(start, 0)
	if start >= end || start >= n {
		return ""
	}
	return string(r[start:min(end, n)])
}

func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	m := map[rune]rune{}
	for i, c := range f {
		if _, seen := m[c]; seen {
			continue
		}
		if i < len(t) {
			m[c] = t[i]
		} else {
			m[c] = -1
		}
	}
	var b strings.Builder
	for _, c := range s {
		if x, ok := m[c]; ok {
			if x >= 0 {
				b.WriteRune(x)
			}
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func substringIndex(s, delim string, count int64) string {
	if delim == "" || count == 0 {
		return ""
	}
	parts := strings.Split(s, delim)
	if count > 0 {
		if count >= int64(len(parts)) {
			return s
		}
		return strings.Join(parts[:count], delim)
	}
	if -count >= int64(len(parts)) {
		return s
	}
	return strings.Join(parts[int64(len(parts))+count:], delim)
}

func splitPart(s, delim string, part int64) (any, error) {
	if part == 0 {
		return nil, fmt.Errorf("[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1). SQLSTATE: 22003")
	}
	parts := []string{s}
	if delim != "" {
		parts = strings.Split(s, delim)
	}
	n := int64(len(parts))
	if part > 0 && part <= n {
		return parts[part-1], nil
	}
	if part < 0 && -part <= n {
		return parts[n+part], nil
	}
	return "", nil
}

// locate is the 1-based position of sub in s at or after pos (0: none).
func locate(sub, s string, pos int64) int32 {
	if pos < 1 {
		return 0
	}
	r, q := []rune(s), []rune(sub)
	for i := pos - 1; i+int64(len(q)) <= int64(len(r)); i++ {
		if string(r[i:i+int64(len(q))]) == sub {
			return int32(i + 1)
		}
	}
	return 0
}

// initcap upper-cases the first letter of each space-separated word and
// lower-cases the rest, as Spark's UTF8String.toLowerCase().toTitleCase().
func initcap(s string) string {
	r := []rune(strings.ToLower(s))
	for i := range r {
		if i == 0 || r[i-1] == ' ' {
			r[i] = unicode.ToTitle(r[i])
		}
	}
	return string(r)
}

// soundex is Spark's UTF8String.soundex: American Soundex for ASCII
// letters; a string not starting with a letter comes back unchanged.
func soundex(s string) string {
	const mapping = "01230127022455012623017202"
	if s == "" {
		return s
	}
	first := unicode.ToUpper(rune(s[0]))
	if first < 'A' || first > 'Z' {
		return s
	}
	out := []byte{byte(first), '0', '0', '0'}
	n, last := 1, mapping[first-'A']
	for _, c := range strings.ToUpper(s[1:]) {
		if c < 'A' || c > 'Z' {
			last = '0'
			continue
		}
		code := mapping[c-'A']
		if code == '7' {
			continue
		}
		if code != '0' && code != last {
			out[n] = code
			n++
			if n > 3 {
				break
			}
		}
		last = code
	}
	return string(out)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func luhn(s string) bool {
	if s == "" {
		return false
	}
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// mask replaces upper-case letters, lower-case letters, digits and other
// characters by the first rune of repl[0..3]; a nil replacement keeps them.
func mask(s string, repl []any) string {
	pick := func(i int, c rune) rune {
		if r, ok := repl[i].(string); ok && r != "" {
			x, _ := utf8.DecodeRuneInString(r)
			return x
		}
		return c
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteRune(pick(0, c))
		case c >= 'a' && c <= 'z':
			b.WriteRune(pick(1, c))
		case c >= '0' && c <= '9':
			b.WriteRune(pick(2, c))
		default:
			b.WriteRune(pick(3, c))
		}
	}
	return b.String()
}
