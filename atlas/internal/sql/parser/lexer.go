package parser

import (
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lexer splits SQL text into tokens, skipping blanks and comments.
type lexer struct {
	src  string
	off  int
	line int
	col  int
}

// operators lists the operators and punctuation, longest first so that the
// first match is the longest.
var operators = []string{
	"<=>", "<>", "<=", ">=", "==", "!=", "||", "=>", "->", "::",
	"=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".", ";", ":", "!",
	"&", "|", "^", "~", "[", "]",
}

// tokenize returns all tokens of src. The last token is tokEOF, or tokError
// when the text holds a lexical error (tokens after it are not produced).
func tokenize(src string) []token {
	lx := &lexer{src: src, line: 1, col: 1}
	var toks []token
	last := lx.pos()
	for {
		if err := lx.skipBlank(); err != nil {
			return append(toks, token{kind: tokError, pos: err.Pos(), end: err.Pos(), err: err})
		}
		if lx.off >= len(src) {
			return append(toks, token{kind: tokEOF, pos: last, end: last})
		}
		t := lx.next(toks)
		toks = append(toks, t)
		if t.kind == tokError {
			return toks
		}
		last = t.end
	}
}

func (lx *lexer) pos() Position {
	return Position{Line: lx.line, Col: lx.col, Offset: lx.off}
}

// peek returns the byte k bytes ahead, or 0 past the end.
func (lx *lexer) peek(k int) byte {
	if lx.off+k < len(lx.src) {
		return lx.src[lx.off+k]
	}
	return 0
}

// advance moves over one character.
func (lx *lexer) advance() {
	if lx.off >= len(lx.src) {
		return
	}
	r, size := utf8.DecodeRuneInString(lx.src[lx.off:])
	lx.off += size
	if r == '\n' {
		lx.line++
		lx.col = 1
	} else {
		lx.col++
	}
}

func (lx *lexer) advanceN(n int) {
	for range n {
		lx.advance()
	}
}

func (lx *lexer) errorAt(pos Position, hint, format string, args ...any) *Error {
	return newError(lx.src, pos, hint, format, args...)
}

// skipBlank skips white space, -- line comments and /* block comments */
// (which nest, as in Spark).
func (lx *lexer) skipBlank() *Error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.advance()
		case c == '-' && lx.peek(1) == '-':
			for lx.off < len(lx.src) && lx.src[lx.off] != '\n' {
				lx.advance()
			}
		case c == '/' && lx.peek(1) == '*':
			start := lx.pos()
			lx.advanceN(2)
			depth := 1
			for depth > 0 {
				switch {
				case lx.off >= len(lx.src):
					return lx.errorAt(start, "close the comment with */", "unterminated comment: the /* opened here is never closed")
				case lx.src[lx.off] == '*' && lx.peek(1) == '/':
					depth--
					lx.advanceN(2)
				case lx.src[lx.off] == '/' && lx.peek(1) == '*':
					depth++
					lx.advanceN(2)
				default:
					lx.advance()
				}
			}
		default:
			r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
			if !unicode.IsSpace(r) {
				return nil
			}
			lx.advance()
		}
	}
	return nil
}

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// next lexes the token at the current (non-blank) position. prev holds the
// tokens so far, to tell ".5" (a number) from "t.5".
func (lx *lexer) next(prev []token) token {
	start := lx.pos()
	c := lx.src[lx.off]
	r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
	switch {
	case (c == 'r' || c == 'R') && (lx.peek(1) == '\'' || lx.peek(1) == '"'):
		return lx.rawStr(start)
	case (c == 'x' || c == 'X') && strings.HasPrefix(strings.TrimLeft(lx.src[lx.off+1:], " \t\r\n"), "'"):
		return lx.hexStr(start) // X'0AFF', or X '0AFF' as Spark's typeConstructor allows
	case isIdentStart(r):
		for lx.off < len(lx.src) {
			r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
			if !isIdentPart(r) {
				break
			}
			lx.advance()
		}
		text := lx.src[start.Offset:lx.off]
		return token{kind: tokIdent, text: text, val: text, pos: start, end: lx.pos()}
	case isDigit(c) || (c == '.' && isDigit(lx.peek(1)) && !afterName(prev)):
		return lx.number(start)
	case c == '\'' || c == '"':
		return lx.str(start, c)
	case c == '`':
		return lx.quotedIdent(start)
	}
	for _, op := range operators {
		if strings.HasPrefix(lx.src[lx.off:], op) {
			lx.advanceN(len(op))
			return token{kind: tokOp, text: op, val: op, pos: start, end: lx.pos()}
		}
	}
	hint := ""
	switch c {
	case '#':
		hint = "comments start with -- or /*"
	}
	return token{kind: tokError, pos: start, end: start,
		err: lx.errorAt(start, hint, "unexpected character %q", r)}
}

// afterName reports whether the previous token may end a name (a word
// that is not reserved, a quoted name or a closing parenthesis), so that a
// following ".5" is a dot and not a number.
func afterName(prev []token) bool {
	if len(prev) == 0 {
		return false
	}
	t := prev[len(prev)-1]
	return (t.kind == tokIdent && !isReserved(t.text)) || t.kind == tokQuotedIdent || t.isOp(")")
}

// number lexes digits [. digits] [e [+-] digits] [L|S|Y|D|F|BD].
func (lx *lexer) number(start Position) token {
	digits := func() {
		for isDigit(lx.peek(0)) {
			lx.advance()
		}
	}
	digits()
	if lx.peek(0) == '.' && (isDigit(lx.peek(1)) || !isIdentByte(lx.peek(1))) {
		lx.advance()
		digits()
	}
	if (lx.peek(0) == 'e' || lx.peek(0) == 'E') &&
		(isDigit(lx.peek(1)) || ((lx.peek(1) == '+' || lx.peek(1) == '-') && isDigit(lx.peek(2)))) {
		lx.advanceN(2)
		digits()
	}
	switch {
	case (lx.peek(0) == 'B' || lx.peek(0) == 'b') && (lx.peek(1) == 'D' || lx.peek(1) == 'd') && !isIdentByte(lx.peek(2)):
		lx.advanceN(2)
	case strings.IndexByte("LlSsYyDdFf", lx.peek(0)) >= 0 && lx.peek(0) != 0 && !isIdentByte(lx.peek(1)):
		lx.advance()
	}
	if isIdentByte(lx.peek(0)) {
		for isIdentByte(lx.peek(0)) {
			lx.advance()
		}
		text := lx.src[start.Offset:lx.off]
		return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start,
			"quote a name that starts with a digit in backticks: `"+text+"`",
			"invalid number %s", text)}
	}
	text := lx.src[start.Offset:lx.off]
	return token{kind: tokNumber, text: text, val: text, pos: start, end: lx.pos()}
}

// isIdentByte reports whether c may continue a name (ASCII letters, digits,
// '_' and any byte of a multi-byte character).
func isIdentByte(c byte) bool {
	return c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

// str lexes a string literal quoted by q. Inside it, a doubled quote stands
// for the quote itself and a backslash escapes the next character as in
// Spark: \n \t \r \b \0 \Z \uXXXX, \% and \_ keep their backslash (for LIKE
// patterns), any other escaped character stands for itself.
func (lx *lexer) str(start Position, q byte) token {
	lx.advance()
	var b strings.Builder
	for {
		if lx.off >= len(lx.src) {
			return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start,
				"close the string with "+string(q)+"; write "+string(q)+string(q)+" or \\"+string(q)+" for a quote inside it",
				"unterminated string literal: the %c opened at %s is never closed", q, start)}
		}
		c := lx.src[lx.off]
		switch {
		case c == q && lx.peek(1) == q:
			b.WriteByte(q)
			lx.advanceN(2)
		case c == q:
			lx.advance()
			text := lx.src[start.Offset:lx.off]
			return token{kind: tokString, text: text, val: b.String(), pos: start, end: lx.pos()}
		case c == '\\' && lx.off+1 < len(lx.src):
			lx.advance()
			lx.escape(&b)
		default:
			r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
			b.WriteRune(r)
			lx.advance()
		}
	}
}

// rawStr lexes a raw string r'...' (or R"..."): every character up to the
// closing quote stands for itself, backslashes included, as Spark's
// raw string literals.
func (lx *lexer) rawStr(start Position) token {
	q := lx.peek(1)
	lx.advanceN(2)
	from := lx.off
	for lx.off < len(lx.src) && lx.src[lx.off] != q {
		lx.advance()
	}
	if lx.off >= len(lx.src) {
		return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start,
			"close the raw string with "+string(q)+"; a raw string cannot hold its own quote",
			"unterminated raw string literal: the %c opened at %s is never closed", q, start)}
	}
	// Invalid UTF-8 reads as U+FFFD, one per byte, as in a quoted string
	// (and as Java decodes the query text): the value is text either way.
	val := string([]rune(lx.src[from:lx.off]))
	lx.advance()
	return token{kind: tokString, text: lx.src[start.Offset:lx.off], val: val, pos: start, end: lx.pos()}
}

// hexStr lexes a binary literal X'0AFF': hexadecimal digits, two per
// byte; an odd count reads as if a leading 0 were written (Spark's
// Hex.unhex). val holds the bytes.
func (lx *lexer) hexStr(start Position) token {
	for lx.advance(); lx.src[lx.off] != '\''; {
		lx.advance()
	}
	lx.advance()
	from := lx.off
	for lx.off < len(lx.src) && lx.src[lx.off] != '\'' {
		lx.advance()
	}
	if lx.off >= len(lx.src) {
		return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start,
			"close the binary literal with '", "unterminated binary literal: the X' opened at %s is never closed", start)}
	}
	digits := lx.src[from:lx.off]
	lx.advance()
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start,
			"write two hexadecimal digits (0-9, A-F) per byte, such as X'1F8B'",
			"invalid binary literal %s: %v", lx.src[start.Offset:lx.off], err)}
	}
	return token{kind: tokBinary, text: lx.src[start.Offset:lx.off], val: string(b), pos: start, end: lx.pos()}
}

// escape writes the character escaped by a backslash (already consumed).
func (lx *lexer) escape(b *strings.Builder) {
	c := lx.src[lx.off]
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case '0':
		b.WriteByte(0)
	case 'Z':
		b.WriteByte(0x1a)
	case '%', '_':
		b.WriteByte('\\')
		b.WriteByte(c)
	case 'u':
		if lx.off+5 <= len(lx.src) {
			if v, ok := hex4(lx.src[lx.off+1 : lx.off+5]); ok {
				b.WriteRune(v)
				lx.advanceN(5)
				return
			}
		}
		b.WriteByte('u')
	default:
		r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
		b.WriteRune(r)
	}
	lx.advance()
}

func hex4(s string) (rune, bool) {
	var v rune
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			v = v*16 + rune(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			v = v*16 + rune(c|0x20-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// quotedIdent lexes `name`, where a doubled backtick stands for a backtick.
func (lx *lexer) quotedIdent(start Position) token {
	lx.advance()
	var b strings.Builder
	for {
		if lx.off >= len(lx.src) {
			return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start,
				"close the name with a backtick `",
				"unterminated quoted identifier: the ` opened at %s is never closed", start)}
		}
		c := lx.src[lx.off]
		if c == '`' {
			if lx.peek(1) == '`' {
				b.WriteByte('`')
				lx.advanceN(2)
				continue
			}
			lx.advance()
			if b.Len() == 0 {
				return token{kind: tokError, pos: start, end: start, err: lx.errorAt(start, "", "empty quoted identifier ``")}
			}
			text := lx.src[start.Offset:lx.off]
			return token{kind: tokQuotedIdent, text: text, val: b.String(), pos: start, end: lx.pos()}
		}
		r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
		b.WriteRune(r)
		lx.advance()
	}
}
