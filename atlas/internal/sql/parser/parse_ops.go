package parser

import "strings"

// Operators of Spark's grammar beyond the usual arithmetic: the shifts
// <<, >> and >>> (between + and &), integral division DIV (beside * and
// /), and the cast x::type (tighter than any prefix operator). The lexer
// has no << or >> token, so that ARRAY<ARRAY<INT>> still closes with two
// '>'; a shift is two or three '<' or '>' written together.

// shift parses additive { (<< | >> | >>>) additive }.
func (p *parser) shift() Expr {
	l := p.additive()
	for {
		op, n := p.shiftOp()
		if n == 0 {
			return l
		}
		at := p.tok().pos
		for range n {
			p.advance()
		}
		l = &Binary{Op: op, L: l, R: p.additive(), OpAt: at, At: l.Pos()}
	}
}

// shiftOp reports the shift operator at the current token and how many
// tokens spell it (0: none).
func (p *parser) shiftOp() (string, int) {
	t := p.tok()
	if !t.isOp("<") && !t.isOp(">") {
		return "", 0
	}
	n := 1
	for n < 3 && p.look(n).isOp(t.text) && p.look(n).pos.Offset == p.look(n-1).end.Offset {
		n++
	}
	switch {
	case n == 2:
		return strings.Repeat(t.text, 2), 2
	case n == 3 && t.text == ">":
		return ">>>", 3
	}
	return "", 0
}

// multiplicativeOps parses unary { (* | / | % | DIV) unary }; DIV is a
// word, read as the operator only when an operand follows it.
func (p *parser) multiplicativeOps() Expr {
	l := p.unary()
	for {
		t := p.tok()
		op := ""
		switch {
		case t.isOp("*") || t.isOp("/") || t.isOp("%"):
			op = t.text
		case t.is("DIV") && startsOperand(p.look(1)):
			op = "div"
		default:
			return l
		}
		p.advance()
		l = &Binary{Op: op, L: l, R: p.unary(), OpAt: t.pos, At: l.Pos()}
	}
}

// startsOperand reports whether t can begin the right operand of DIV
// (and so DIV is not an alias: SELECT x div FROM t).
func startsOperand(t token) bool {
	switch t.kind {
	case tokNumber, tokString, tokQuotedIdent, tokBinary:
		return true
	case tokIdent:
		return !isReserved(t.text) || t.is("NULL") || t.is("CASE") || t.is("NOT") || t.is("TRUE") || t.is("FALSE")
	case tokOp:
		return t.isOp("(") || t.isOp("-") || t.isOp("+") || t.isOp("~")
	}
	return false
}

// postfix parses the casts x::type that follow a primary expression.
func (p *parser) postfix(x Expr) Expr {
	for p.atOp("::") {
		p.advance()
		x = &Cast{X: x, Type: p.dataType(), At: x.Pos()}
	}
	return x
}
