package parser

import (
	"encoding/hex"
	"regexp"
	"strings"
)

// timeText is Spark's TIME literal text: H[H]:mm[:ss[.f{1,6}]].
var timeText = regexp.MustCompile(`^\d{1,2}:\d{2}(:\d{2}(\.\d{1,6})?)?$`)

// timeLiteral parses TIME 'hh:mm[:ss[.ffffff]]'. Atlas has no TIME type:
// the literal parses, so that the planner can refuse it naming the TIME
// type and the call it is in (UNSUPPORTED_TIME_TYPE), rather than fail
// as a syntax error.
func (p *parser) timeLiteral() Expr {
	kw := p.advance()
	strTok := p.tok()
	s := strings.TrimSpace(p.stringLit("a string", ""))
	if !timeText.MatchString(s) {
		p.fail(strTok, "write the time as 'HH:mm:ss[.ffffff]', such as TIME '09:08:01.000001'", "invalid TIME literal %s", quoteString(s))
	}
	return &Literal{Kind: TimeLiteral, Value: s, At: kw.pos}
}

// spacedBinaryLiteral parses X 'hex' written with a blank before the
// string (Spark reads X as a typed literal's type there too); X'hex' with
// no blank is the lexer's. An odd count of digits reads as if a leading 0
// were written, as Spark's Hex.unhex.
func (p *parser) spacedBinaryLiteral() Expr {
	kw := p.advance()
	strTok := p.tok()
	digits := p.stringLit("a string", "")
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		p.fail(strTok, "write two hexadecimal digits (0-9, A-F) per byte, such as X'1F8B'", "invalid binary literal X %s", quoteString(digits))
	}
	return &Literal{Kind: BinaryLiteral, Value: b, At: kw.pos}
}
