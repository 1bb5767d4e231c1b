package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is a syntax error in SQL text. Its Error method reads
//
//	syntax error at line 3, column 14: expected THEN after WHEN MATCHED condition, found 'UPDATE'
//	WHEN MATCHED UPDATE SET *
//	             ^
//	hint: write WHEN MATCHED [AND condition] THEN UPDATE ...
type Error struct {
	// Line and Col locate the error, counting from 1 (Col in characters).
	Line, Col int
	// Offset is the byte offset of the error in the text, counting from 0.
	Offset int
	// Msg says what was expected and what was found.
	Msg string
	// Hint, when not empty, suggests a fix for a common mistake.
	Hint string
	// Snippet is the source line holding the error followed by a second
	// line with a caret under Col.
	Snippet string
	// Class and SQLState are Spark's error class and SQLSTATE when the
	// error has one of its own (FAILED_TO_PARSE_TOO_COMPLEX, 54001), empty
	// for a plain syntax error (PARSE_SYNTAX_ERROR, 42601).
	Class, SQLState string
}

// Error renders the message, the snippet and the hint.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax error at line %d, column %d: %s", e.Line, e.Col, e.Msg)
	if e.Snippet != "" {
		b.WriteString("\n")
		b.WriteString(e.Snippet)
	}
	if e.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Pos returns where the error is.
func (e *Error) Pos() Position {
	return Position{Line: e.Line, Col: e.Col, Offset: e.Offset}
}

// newError builds an Error at pos in src, quoting the line it falls on.
func newError(src string, pos Position, hint, format string, args ...any) *Error {
	return &Error{
		Line:    pos.Line,
		Col:     pos.Col,
		Offset:  pos.Offset,
		Msg:     fmt.Sprintf(format, args...),
		Hint:    hint,
		Snippet: snippet(src, pos),
	}
}

// snippetSide is how many bytes of a long line a snippet keeps on each
// side of the error.
const snippetSide = 60

// snippet returns the source line holding pos and a caret line under its
// column. Tabs before the column are copied so the caret lines up.
func snippet(src string, pos Position) string {
	off := min(max(pos.Offset, 0), len(src))
	start := strings.LastIndexByte(src[:off], '\n') + 1
	end := len(src)
	if i := strings.IndexByte(src[off:], '\n'); i >= 0 {
		end = off + i
	}
	line := strings.TrimRight(src[start:end], "\r")
	col := pos.Col
	if len(line) > 2*snippetSide {
		// A long line (generated SQL) is cut to a window around the column,
		// so that an error does not repeat the whole statement.
		at := min(max(off-start, 0), len(line))
		lo, hi := max(at-snippetSide, 0), min(at+snippetSide, len(line))
		for lo > 0 && !utf8.RuneStart(line[lo]) {
			lo--
		}
		for hi < len(line) && !utf8.RuneStart(line[hi]) {
			hi++
		}
		col = utf8.RuneCountInString(line[lo:at]) + 1
		prefix, suffix := "", ""
		if lo > 0 {
			prefix, col = "...", col+3
		}
		if hi < len(line) {
			suffix = "..."
		}
		line = prefix + line[lo:hi] + suffix
	}
	var caret strings.Builder
	for i, n := 0, 0; i < len(line) && n < col-1; n++ {
		r, size := utf8.DecodeRuneInString(line[i:])
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
		i += size
	}
	caret.WriteByte('^')
	return line + "\n" + caret.String()
}
