package parser

import (
	"fmt"
	"strings"
)

// tokenKind classifies a token.
type tokenKind int

const (
	tokEOF         tokenKind = iota // end of input
	tokIdent                        // a bare word: keyword or identifier
	tokQuotedIdent                  // `quoted identifier`
	tokString                       // 'string' or "string"
	tokNumber                       // 42, 1.5, 1e3, 10L, 1.5BD
	tokOp                           // punctuation and operators
	tokBinary                       // X'0AFF'; val holds the bytes
	tokError                        // a lexical error; always the last token
)

// token is one lexeme of the SQL text.
type token struct {
	kind tokenKind
	// text is the token exactly as written in the source.
	text string
	// val is the identifier name (backticks removed), the unescaped string
	// value, or the operator.
	val string
	pos Position
	// end is the position just after the token.
	end Position
	// err is the lexical error of a tokError token.
	err *Error
}

// is reports whether t is the bare keyword kw (case-insensitive).
func (t token) is(kw string) bool {
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

// isOp reports whether t is the operator or punctuation op.
func (t token) isOp(op string) bool {
	return t.kind == tokOp && t.text == op
}

// describe renders the token for "found ..." in error messages.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return "string " + clip(t.text)
	case tokNumber:
		return "number " + t.text
	case tokBinary:
		return "binary " + clip(t.text)
	case tokError:
		return "invalid input"
	}
	return fmt.Sprintf("'%s'", clip(t.text))
}

// clip shortens long token text for messages.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}
