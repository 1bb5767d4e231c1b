package functions

import (
	"math/rand/v2"
	"strings"
)

// miscMoreDefs are string, array and random functions added after misc.go.
func miscMoreDefs() []*Def {
	return []*Def{
		// quote wraps a string in single quotes, escaping each quote inside
		// with a backslash, as Spark's ExpressionImplUtils.quote.
		row("quote", "string", 1, 1, &rowImpl{resolve: sig(tString, tString), eval: func(v []any) (any, error) {
			return quoteString(v[0].(string)), nil
		}}),
		// shuffle is a random permutation of the array (non-deterministic).
		arrayFn("shuffle", 1, 1, arrayOnly(sameArray), func(a []any, _ []any) (any, error) {
			out := append([]any(nil), a...)
			rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			return out, nil
		}),
	}
}

// quoteString is s between single quotes with each quote escaped.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}
