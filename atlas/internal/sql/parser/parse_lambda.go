package parser

import (
	"fmt"
	"strings"
)

// Lambda is a lambda function, an argument of a higher-order function:
// x -> body or (x, y) -> body, as Spark's grammar has it. Params keep
// their spelling; inside Body, a single-part ColumnRef naming a parameter
// (case-insensitively) refers to it, shadowing columns and the parameters
// of enclosing lambdas.
type Lambda struct {
	Params []string
	Body   Expr
	At     Position
}

// Pos returns where the lambda starts.
func (e *Lambda) Pos() Position { return e.At }

func (*Lambda) exprNode() {}

// String returns Spark's name: lambdafunction(body, namedlambdavariable(),
// ...), every reference to a parameter written namedlambdavariable().
func (e *Lambda) String() string { return render(e, true) }

// SQL returns the lambda as SQL text: (x, y) -> body.
func (e *Lambda) SQL() string { return render(e, false) }

// lambdaAhead reports whether a lambda starts at the current token:
// name -> or (name, name, ...) ->. Parameter names may be words that are
// otherwise reserved (left, right), as in Spark's array_sort examples.
func (p *parser) lambdaAhead() bool {
	if isName(p.tok()) {
		return p.look(1).isOp("->")
	}
	if !p.atOp("(") {
		return false
	}
	for k := 1; ; k += 2 {
		if !isName(p.look(k)) {
			return false
		}
		switch next := p.look(k + 1); {
		case next.isOp(")"):
			return k > 1 && p.look(k+2).isOp("->")
		case !next.isOp(","):
			return false
		}
	}
}

// atLambdaParam reports whether the current token names a parameter of
// an enclosing lambda (and is not a call).
func (p *parser) atLambdaParam() bool {
	t := p.tok()
	if t.kind != tokIdent || p.look(1).isOp("(") {
		return false
	}
	for _, v := range p.lambdaParams {
		if strings.EqualFold(v, t.val) {
			return true
		}
	}
	return false
}

func isName(t token) bool { return t.kind == tokIdent || t.kind == tokQuotedIdent }

// lambda parses a lambda function (lambdaAhead holds).
func (p *parser) lambda() Expr {
	start := p.tok()
	l := &Lambda{At: start.pos}
	if p.atOp("(") {
		p.advance()
		for {
			l.Params = append(l.Params, p.advance().val)
			if p.atOp(")") {
				p.advance()
				break
			}
			p.advance() // ,
		}
	} else {
		l.Params = []string{p.advance().val}
	}
	for i, a := range l.Params {
		for _, b := range l.Params[:i] {
			if strings.EqualFold(a, b) {
				p.fail(start, "give each parameter its own name", "the lambda function has duplicate arguments %s", quoteIdent(a))
			}
		}
	}
	p.advance() // ->
	saved := p.lambdaParams
	p.lambdaParams = append(append([]string{}, saved...), l.Params...)
	l.Body = p.expr()
	p.lambdaParams = saved
	return l
}

// lambda writes a lambda as Spark names it, or as SQL.
func (p *printer) lambda(e *Lambda) {
	if !p.pretty {
		if len(e.Params) == 1 {
			p.w(quoteIdent(e.Params[0]), " -> ")
		} else {
			p.w("(")
			for i, name := range e.Params {
				if i > 0 {
					p.w(", ")
				}
				p.w(quoteIdent(name))
			}
			p.w(") -> ")
		}
		p.expr(e.Body)
		return
	}
	inner := *p
	inner.lambdaVars = append(append([]string{}, p.lambdaVars...), e.Params...)
	p.w("lambdafunction(")
	inner.expr(e.Body)
	for range e.Params {
		p.w(", namedlambdavariable()")
	}
	p.w(")")
}

// isLambdaVar reports whether a column reference names a parameter of an
// enclosing lambda.
func (p *printer) isLambdaVar(e *ColumnRef) bool {
	if len(e.Parts) != 1 {
		return false
	}
	for _, v := range p.lambdaVars {
		if strings.EqualFold(v, e.Parts[0]) {
			return true
		}
	}
	return false
}

// rowConstructor parses the rest of (e1, e2, ...), Spark's row
// constructor: a struct whose fields are named after the columns they
// read (col1, col2, ... otherwise), which Spark names
// named_struct(name1, e1, ...). It is written that way here.
func (p *parser) rowConstructor(open token, first Expr) Expr {
	items := []Expr{first}
	for p.acceptOp(",") {
		items = append(items, p.expr())
	}
	p.closeParen(open, "the row constructor (a, b, ...)")
	c := &Call{Name: "named_struct", At: open.pos}
	for i, it := range items {
		name := fmt.Sprintf("col%d", i+1)
		if ref, ok := it.(*ColumnRef); ok {
			name = ref.Parts[len(ref.Parts)-1]
		}
		c.Args = append(c.Args, &Literal{Kind: StringLiteral, Value: name, At: it.Pos()}, it)
	}
	return c
}
