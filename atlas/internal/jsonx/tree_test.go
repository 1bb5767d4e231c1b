package jsonx

import "testing"

// TestParseTreeAndWrite checks the tree parser's options (Jackson's
// features) and the writer's escapes against hand-written JSON: Jackson
// escapes control characters as \u00XX with upper-case hex, keeps '/' and
// non-ASCII text, writes -0 as 0 and floats as Java's Double.toString.
func TestParseTreeAndWrite(t *testing.T) {
	for _, c := range []struct {
		in   string
		o    TreeOptions
		want string // "" for an error
	}{
		{`{"a":[1,-0,2.50,1e2,"x/é"],"b":{}}`, TreeOptions{}, `{"a":[1,0,2.5,100.0,"x/é"],"b":{}}`},
		{"\"a\x01\tb\\u0002\"", TreeOptions{ControlChars: true}, `"a\u0001\tb\u0002"`},
		{"\"a\x01\"", TreeOptions{}, ""},
		{`'a'`, TreeOptions{}, ""},
		{`'a'`, TreeOptions{SingleQuotes: true}, `"a"`},
		{`[007, -01]`, TreeOptions{}, ""},
		{`[007, -01]`, TreeOptions{LeadingZeros: true}, `[7,-1]`},
		{`NaN`, TreeOptions{}, ""},
		{`[NaN]`, TreeOptions{NonNumeric: true}, `["NaN"]`},
		{`{"a":1} {`, TreeOptions{}, `{"a":1}`},
		{`{"a":1,}`, TreeOptions{}, ""},
		{`   `, TreeOptions{}, ""},
	} {
		v, err := ParseTree([]byte(c.in), c.o)
		got := ""
		if err == nil {
			got = string(AppendJSON(nil, v))
		}
		if got != c.want {
			t.Errorf("%q %+v: %q (%v), want %q", c.in, c.o, got, err, c.want)
		}
	}
}
