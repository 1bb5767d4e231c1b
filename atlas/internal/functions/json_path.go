package functions

import (
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
)

// This file is get_json_object's JSONPath: Spark's JsonPathParser grammar
// and its evaluatePath walk (GetJsonObjectEvaluator), which follows Hive's
// behaviour, over a parsed tree instead of Jackson's token stream.

// sharedJSON are the parser features of Spark's SharedFactory, which
// get_json_object, json_tuple, json_array_length and json_object_keys
// use: strict JSON plus raw control characters inside strings.
var sharedJSON = jsonx.TreeOptions{ControlChars: true}

type pathOpKind uint8

const (
	opKey       pathOpKind = iota // before a name: .name or ['name']
	opNamed                       // the name
	opWildcard                    // .* or ['*'] or the * of [*]
	opSubscript                   // before an index or a wildcard: [
	opIndex                       // the n of [n]
)

type pathOp struct {
	kind  pathOpKind
	name  string
	index int64
}

// isScalaSpace is Scala's RegexParsers whitespace, \s.
func isScalaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func skipSpaces(s string, i int) int {
	for i < len(s) && isScalaSpace(s[i]) {
		i++
	}
	return i
}

// parseJSONPath parses a path as Spark's JsonPathParser: '$' then any of
// .* ['*'] .name ['name'] [*] [n], whitespace allowed before each token
// (Scala's RegexParsers skip it). ok is false for a path Spark rejects,
// which makes get_json_object NULL.
func parseJSONPath(s string) (ops []pathOp, ok bool) {
	i := skipSpaces(s, 0)
	if i >= len(s) || s[i] != '$' {
		return nil, false
	}
	i++
	for {
		j := skipSpaces(s, i)
		if j >= len(s) {
			return ops, true
		}
		rest := s[j:]
		switch {
		case len(rest) >= 2 && rest[:2] == ".*":
			ops, i = append(ops, pathOp{kind: opWildcard}), j+2
		case len(rest) >= 5 && rest[:5] == "['*']":
			ops, i = append(ops, pathOp{kind: opWildcard}), j+5
		case rest[0] == '.':
			k := skipSpaces(s, j+1)
			m := k
			for m < len(s) && s[m] != '.' && s[m] != '[' {
				m++
			}
			if m == k {
				return nil, false
			}
			ops, i = append(ops, pathOp{kind: opKey}, pathOp{kind: opNamed, name: s[k:m]}), m
		case len(rest) >= 2 && rest[:2] == "['":
			k := skipSpaces(s, j+2)
			m := k
			for m < len(s) && s[m] != '\'' {
				m++
			}
			e := skipSpaces(s, m)
			if m == k || e+2 > len(s) || s[e:e+2] != "']" {
				return nil, false
			}
			ops, i = append(ops, pathOp{kind: opKey}, pathOp{kind: opNamed, name: s[k:m]}), e+2
		case rest[0] == '[':
			op, next, ok := parseSubscript(s, j+1)
			if !ok {
				return nil, false
			}
			ops, i = append(ops, pathOp{kind: opSubscript}, op), next
		default:
			return nil, false
		}
	}
}

// parseSubscript parses the "*]" or "n]" after a '['.
func parseSubscript(s string, i int) (pathOp, int, bool) {
	k := skipSpaces(s, i)
	var op pathOp
	switch {
	case k < len(s) && s[k] == '*':
		op, k = pathOp{kind: opWildcard}, k+1
	default:
		m := k
		for m < len(s) && s[m] >= '0' && s[m] <= '9' {
			m++
		}
		n, err := strconv.ParseInt(s[k:m], 10, 64)
		if m == k || err != nil {
			return op, 0, false
		}
		op, k = pathOp{kind: opIndex, index: n}, m
	}
	k = skipSpaces(s, k)
	if k >= len(s) || s[k] != ']' {
		return op, 0, false
	}
	return op, k + 1, true
}

// pathStyle is how evaluatePath writes what matches.
type pathStyle uint8

const (
	rawStyle     pathStyle = iota // a matched string without quotes
	quotedStyle                   // matched values as JSON
	flattenStyle                  // matched arrays spliced into the parent
)

// jsonGen writes JSON values with Jackson's generator's separators: a comma
// between the values of an array, a space between root values.
type jsonGen struct {
	buf   []byte
	open  []int // values written so far in each open array
	roots int
}

func (g *jsonGen) sep() {
	if n := len(g.open); n > 0 {
		if g.open[n-1] > 0 {
			g.buf = append(g.buf, ',')
		}
		g.open[n-1]++
		return
	}
	if g.roots > 0 {
		g.buf = append(g.buf, ' ')
	}
	g.roots++
}

func (g *jsonGen) copyValue(v *jsonx.Value) {
	g.sep()
	g.buf = jsonx.AppendJSON(g.buf, v)
}

func (g *jsonGen) rawValue(b []byte) {
	g.sep()
	g.buf = append(g.buf, b...)
}

func (g *jsonGen) startArray() {
	g.sep()
	g.open = append(g.open, 0)
	g.buf = append(g.buf, '[')
}

func (g *jsonGen) endArray() {
	g.open = g.open[:len(g.open)-1]
	g.buf = append(g.buf, ']')
}

func hasOps(path []pathOp, kinds ...pathOpKind) bool {
	if len(path) < len(kinds) {
		return false
	}
	for i, k := range kinds {
		if path[i].kind != k {
			return false
		}
	}
	return true
}

// evalPath is Spark's evaluatePath: it writes what path matches in v to g
// and reports whether anything matched.
func evalPath(v *jsonx.Value, g *jsonGen, st pathStyle, path []pathOp) bool {
	switch {
	case len(path) == 0 && v.Kind == jsonx.String && st == rawStyle:
		g.buf = append(g.buf, v.Text...) // Jackson's writeRaw: no separator
		return true
	case len(path) == 0 && v.Kind == jsonx.Array && st == flattenStyle:
		dirty := false
		for _, e := range v.Elems {
			dirty = evalPath(e, g, st, nil) || dirty
		}
		return dirty
	case len(path) == 0:
		g.copyValue(v)
		return true
	case v.Kind == jsonx.Object && path[0].kind == opKey:
		for i, k := range v.Keys {
			if evalField(k, v.Elems[i], g, st, path[1:]) {
				return true // the other fields are skipped
			}
		}
		return false
	case v.Kind != jsonx.Array:
		return false
	case hasOps(path, opSubscript, opWildcard, opSubscript, opWildcard):
		// Hive's double wildcard, which does not preserve structure.
		dirty := false
		g.startArray()
		for _, e := range v.Elems {
			dirty = evalPath(e, g, flattenStyle, path[4:]) || dirty
		}
		g.endArray()
		return dirty
	case hasOps(path, opSubscript, opWildcard) && st != quotedStyle:
		return evalWildcard(v, g, st, path[2:])
	case hasOps(path, opSubscript, opWildcard):
		dirty := false
		g.startArray()
		for _, e := range v.Elems {
			dirty = evalPath(e, g, quotedStyle, path[2:]) || dirty
		}
		g.endArray()
		return dirty
	case hasOps(path, opSubscript, opIndex):
		idx, rest := path[1].index, path[2:]
		if idx >= int64(len(v.Elems)) {
			return false
		}
		if hasOps(rest, opSubscript, opWildcard) {
			st = quotedStyle // one or more results
		}
		return evalPath(v.Elems[idx], g, st, rest)
	}
	return false
}

// evalField evaluates the rest of a path at one member of an object, as
// evaluatePath does at a FIELD_NAME token: a matching name with a non-null
// value, or a wildcard, goes on into the value.
func evalField(key string, val *jsonx.Value, g *jsonGen, st pathStyle, path []pathOp) bool {
	switch {
	case len(path) > 0 && path[0].kind == opNamed && path[0].name == key:
		return val.Kind != jsonx.Null && evalPath(val, g, st, path[1:])
	case len(path) > 0 && path[0].kind == opWildcard:
		return evalPath(val, g, st, path[1:])
	}
	return false
}

// evalWildcard is [*] in raw or flatten style: the matches are buffered
// and written as an array when there are several, alone when there is one
// (Hive's behaviour).
func evalWildcard(v *jsonx.Value, g *jsonGen, st pathStyle, rest []pathOp) bool {
	next := quotedStyle
	if st == flattenStyle {
		next = flattenStyle
	}
	sub := &jsonGen{}
	sub.startArray()
	matched := 0
	for _, e := range v.Elems {
		if evalPath(e, sub, next, rest) {
			matched++
		}
	}
	sub.endArray()
	switch {
	case matched > 1:
		g.rawValue(sub.buf)
	case matched == 1:
		g.rawValue(sub.buf[1 : len(sub.buf)-1])
	}
	return matched > 0
}

// getJSONObject is get_json_object(json, path): the JSON text of what path
// matches, a matched string without quotes; ok is false (NULL) for an
// invalid path, malformed JSON or no match.
func getJSONObject(doc string, path []pathOp) (string, bool) {
	v, err := jsonx.ParseTree([]byte(doc), sharedJSON)
	if err != nil {
		return "", false
	}
	g := &jsonGen{}
	if !evalPath(v, g, rawStyle, path) {
		return "", false
	}
	return string(g.buf), true
}
