package jsonx

import (
	"errors"
	"fmt"
)

// This file parses one JSON value into a tree, for the functions that walk
// a document rather than decode it into a schema: get_json_object,
// json_tuple, json_array_length, json_object_keys and schema_of_json. They
// are not on the streaming hot path, so a tree is simple and fast enough;
// the lexer is the decoder's (scan.go), so both accept the same JSON.

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is one parsed JSON value. Object members keep their document
// order, duplicates included, as Jackson's token stream shows them.
type Value struct {
	Kind Kind
	// Text is a string's unescaped text, a number as written (NaN,
	// Infinity, ... included) and "true" or "false" for a boolean.
	Text string
	// Float is set for a number with a fraction or an exponent, or a
	// non-numeric number: Jackson's VALUE_NUMBER_FLOAT.
	Float bool
	// Keys are an object's member names; Elems are an array's elements or,
	// parallel to Keys, an object's member values.
	Keys  []string
	Elems []*Value
}

// TreeOptions are the Jackson features a parse allows beyond strict JSON.
type TreeOptions struct {
	// SingleQuotes allows 'strings' and 'names' (allowSingleQuotes).
	SingleQuotes bool
	// NonNumeric allows NaN, Infinity, +Infinity, -Infinity, +INF and -INF
	// (allowNonNumericNumbers).
	NonNumeric bool
	// ControlChars allows raw control characters inside strings
	// (ALLOW_UNQUOTED_CONTROL_CHARS, which Spark's get_json_object,
	// json_tuple, json_array_length and json_object_keys enable).
	ControlChars bool
	// LeadingZeros allows 007 (allowNumericLeadingZeros).
	LeadingZeros bool
}

// ErrEmpty is ParseTree's error for a text holding no value at all (Jackson
// returns no token for it).
var ErrEmpty = errors.New("no JSON value")

// controlQuoted is the class table of a double-quoted string in which raw
// control characters are plain characters.
var controlQuoted = func() *stringClass {
	c := *newStringClass('"')
	for i := 0; i < 0x20; i++ {
		c[i] = chPlain
	}
	return &c
}()

// ParseTree parses the first JSON value of b, after leading whitespace;
// what follows it is ignored, as Jackson reads no further than the value.
func ParseTree(b []byte, o TreeOptions) (*Value, error) {
	i := skipWS(b, 0)
	if i >= len(b) {
		return nil, ErrEmpty
	}
	p := treeParser{b: b, o: o}
	v, _, err := p.value(i, 0)
	if err != synOK {
		return nil, fmt.Errorf("malformed JSON at offset %d: %s", p.pos, err)
	}
	return v, nil
}

type treeParser struct {
	b   []byte
	o   TreeOptions
	pos int // where the error is
}

func (p *treeParser) fail(i int, err synErr) (*Value, int, synErr) {
	p.pos = i
	return nil, i, err
}

// value parses the value at b[i] (not whitespace).
func (p *treeParser) value(i, depth int) (*Value, int, synErr) {
	b := p.b
	if i >= len(b) {
		return p.fail(i, synEOF)
	}
	switch c := b[i]; c {
	case '"', '\'':
		s, end, err := p.str(i)
		if err != synOK {
			return nil, end, err
		}
		return &Value{Kind: String, Text: s}, end, synOK
	case '{':
		return p.object(i+1, depth+1)
	case '[':
		return p.array(i+1, depth+1)
	case 't':
		if hasLit(b, i, "true") {
			return &Value{Kind: Bool, Text: "true"}, i + 4, synOK
		}
	case 'f':
		if hasLit(b, i, "false") {
			return &Value{Kind: Bool, Text: "false"}, i + 5, synOK
		}
	case 'n':
		if hasLit(b, i, "null") {
			return &Value{Kind: Null}, i + 4, synOK
		}
	default:
		if p.o.NonNumeric {
			if sp, end := scanSpecial(b, i); sp != specialNone {
				return &Value{Kind: Number, Text: string(b[i:end]), Float: true}, end, synOK
			}
		}
		if c == '-' || isDigit(c) {
			return p.number(i)
		}
	}
	return p.fail(i, synUnexpected)
}

// number parses a number, with leading zeros dropped when allowed.
func (p *treeParser) number(i int) (*Value, int, synErr) {
	b, start, sign := p.b, i, ""
	if p.o.LeadingZeros {
		j := i
		if b[j] == '-' {
			sign, j = "-", j+1
		}
		for j+1 < len(b) && b[j] == '0' && isDigit(b[j+1]) {
			j++
		}
		start = j
	}
	n, end, err := scanNumber(b, start)
	if err != synOK {
		return p.fail(end, err)
	}
	text := string(b[start:end])
	if start != i {
		text = sign + text // the sign was before the dropped zeros
	}
	return &Value{Kind: Number, Text: text, Float: n.isFloat}, end, synOK
}

// str parses the quoted string at b[i] and returns its text.
func (p *treeParser) str(i int) (string, int, synErr) {
	q := p.b[i]
	if q == '\'' && !p.o.SingleQuotes {
		p.pos = i
		return "", i, synUnexpected
	}
	cls := classOf(q)
	if q == '"' && p.o.ControlChars {
		cls = controlQuoted
	}
	end, flags, err := scanString(p.b, i+1, cls)
	if err != synOK {
		p.pos = end
		return "", end, err
	}
	raw := p.b[i+1 : end]
	if flags == 0 {
		return string(raw), end + 1, synOK
	}
	return string(appendText(nil, raw)), end + 1, synOK
}

// object parses the members of an object whose '{' is at b[i-1].
func (p *treeParser) object(i, depth int) (*Value, int, synErr) {
	if depth > maxDepth {
		return p.fail(i, synDepth)
	}
	v := &Value{Kind: Object}
	b := p.b
	i = skipWS(b, i)
	if i < len(b) && b[i] == '}' {
		return v, i + 1, synOK
	}
	for {
		if i >= len(b) {
			return p.fail(i, synEOF)
		}
		if b[i] != '"' && b[i] != '\'' {
			return p.fail(i, synUnexpected)
		}
		key, end, err := p.str(i)
		if err != synOK {
			return nil, end, err
		}
		if i, err = skipColon(b, end); err != synOK {
			return p.fail(i, err)
		}
		var m *Value
		if m, i, err = p.value(i, depth); err != synOK {
			return nil, i, err
		}
		v.Keys, v.Elems = append(v.Keys, key), append(v.Elems, m)
		var more bool
		if i, more, err = nextMember(b, i, '}'); err != synOK {
			return p.fail(i, err)
		}
		if !more {
			return v, i, synOK
		}
	}
}

// array parses the elements of an array whose '[' is at b[i-1].
func (p *treeParser) array(i, depth int) (*Value, int, synErr) {
	if depth > maxDepth {
		return p.fail(i, synDepth)
	}
	v := &Value{Kind: Array}
	b := p.b
	i = skipWS(b, i)
	if i < len(b) && b[i] == ']' {
		return v, i + 1, synOK
	}
	for {
		e, next, err := p.value(i, depth)
		if err != synOK {
			return nil, next, err
		}
		v.Elems = append(v.Elems, e)
		var more bool
		if i, more, err = nextMember(b, next, ']'); err != synOK {
			return p.fail(i, err)
		}
		if !more {
			return v, i, synOK
		}
	}
}
