package functions

import "testing"

// TestQuoteString checks Spark's documented example quote('Don\'t') = 'Don\'t'.
func TestQuoteString(t *testing.T) {
	cases := map[string]string{`Don't`: `'Don\'t'`, ``: `''`, `ab`: `'ab'`, `''`: `'\'\''`}
	for in, want := range cases {
		if got := quoteString(in); got != want {
			t.Errorf("quoteString(%q) = %q, want %q", in, got, want)
		}
	}
}
