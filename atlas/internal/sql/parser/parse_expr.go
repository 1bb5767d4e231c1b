package parser

import (
	"strings"
)

// Expression grammar, loosest binding first, as in Spark's SqlBase.g4:
//
//	expr       := or
//	or         := and { OR and }
//	and        := not { AND not }
//	not        := (NOT | !) not | predicate
//	predicate  := comparison [ [NOT] BETWEEN comparison AND comparison
//	                         | [NOT] IN ( expr, ... )
//	                         | [NOT] LIKE|ILIKE|RLIKE|REGEXP comparison
//	                         | IS [NOT] NULL ]
//	comparison := bitor { (= | == | <> | != | < | <= | > | >= | <=>) bitor }
//	bitor      := bitxor { | bitxor }
//	bitxor     := bitand { ^ bitand }
//	bitand     := shift { & shift }
//	shift      := additive { (<< | >> | >>>) additive }
//	additive   := multiplicative { (+ | - | ||) multiplicative }
//	multiplicative := unary { (* | / | % | DIV) unary }
//	unary      := (- | + | ~) unary | primary { :: type }

// expr parses a full expression.
func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	return p.or()
}

func (p *parser) or() Expr {
	l := p.and()
	for p.at("OR") {
		op := p.advance()
		l = &Binary{Op: "OR", L: l, R: p.and(), OpAt: op.pos, At: l.Pos()}
	}
	return l
}

func (p *parser) and() Expr {
	l := p.not()
	for p.at("AND") {
		op := p.advance()
		l = &Binary{Op: "AND", L: l, R: p.not(), OpAt: op.pos, At: l.Pos()}
	}
	return l
}

func (p *parser) not() Expr {
	if p.at("NOT") || p.atOp("!") {
		t := p.advance()
		p.enter()
		defer p.leave()
		return &Unary{Op: "NOT", X: p.not(), At: t.pos}
	}
	return p.predicate()
}

// predicate parses a comparison and at most one predicate suffix.
func (p *parser) predicate() Expr {
	x := p.comparison()
	not := false
	if p.at("NOT") && (p.look(1).is("BETWEEN") || p.look(1).is("IN") || isLikeWord(p.look(1))) {
		p.advance()
		not = true
	}
	t := p.tok()
	switch {
	case t.is("BETWEEN"):
		p.advance()
		lo := p.comparison()
		p.expect("AND", "between the bounds of BETWEEN")
		hi := p.comparison()
		return &Between{X: x, Low: lo, High: hi, Not: not, At: x.Pos()}
	case t.is("IN"):
		p.advance()
		open := p.expectOp("(", "after IN")
		if p.at("SELECT") {
			p.fail(p.tok(), "", "subqueries in IN are not supported")
		}
		if p.atOp(")") {
			p.expected("a value", "in the IN list", "")
		}
		list := []Expr{p.expr()}
		for p.acceptOp(",") {
			list = append(list, p.expr())
		}
		p.closeParen(open, "the IN list")
		return &In{X: x, List: list, Not: not, At: x.Pos()}
	case isLikeWord(t):
		p.advance()
		op := strings.ToUpper(t.text)
		if op == "REGEXP" {
			op = "RLIKE"
		}
		l := &Like{Op: op, X: x, Pattern: p.comparison(), Not: not, At: x.Pos()}
		if op != "RLIKE" && p.accept("ESCAPE") {
			l.Escape = &Literal{Kind: StringLiteral, At: p.tok().pos}
			l.Escape.(*Literal).Value = p.stringLit("the escape character (a string)", "after ESCAPE")
		}
		return l
	case t.is("IS"):
		p.advance()
		isNot := p.accept("NOT")
		if !p.at("NULL") {
			p.expected("NULL", "after IS", "only IS NULL and IS NOT NULL are supported")
		}
		p.advance()
		return &IsNull{X: x, Not: isNot, At: x.Pos()}
	}
	return x
}

func isLikeWord(t token) bool {
	return t.is("LIKE") || t.is("ILIKE") || t.is("RLIKE") || t.is("REGEXP")
}

// comparisonOps maps each comparison operator to its AST spelling.
var comparisonOps = map[string]string{
	"=": "=", "==": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "<=>": "<=>",
}

func (p *parser) comparison() Expr {
	l := p.bitor()
	for {
		t := p.tok()
		op, ok := comparisonOps[t.text]
		if t.kind != tokOp || !ok {
			return l
		}
		p.advance()
		l = &Binary{Op: op, L: l, R: p.bitor(), OpAt: t.pos, At: l.Pos()}
	}
}

// binaryLevel parses next { op next } for the operators ops.
func (p *parser) binaryLevel(next func() Expr, ops ...string) Expr {
	l := next()
	for {
		t := p.tok()
		matched := false
		for _, op := range ops {
			if t.isOp(op) {
				matched = true
				break
			}
		}
		if !matched {
			return l
		}
		p.advance()
		l = &Binary{Op: t.text, L: l, R: next(), OpAt: t.pos, At: l.Pos()}
	}
}

func (p *parser) bitor() Expr  { return p.binaryLevel(p.bitxor, "|") }
func (p *parser) bitxor() Expr { return p.binaryLevel(p.bitand, "^") }
func (p *parser) bitand() Expr { return p.binaryLevel(p.shift, "&") }
func (p *parser) additive() Expr {
	return p.binaryLevel(p.multiplicative, "+", "-", "||")
}
func (p *parser) multiplicative() Expr {
	return p.multiplicativeOps()
}

// unary parses prefix operators; a minus directly before a number becomes
// part of the number's literal (so -2147483648 is an int, as in Spark).
func (p *parser) unary() Expr {
	t := p.tok()
	if t.isOp("-") || t.isOp("+") || t.isOp("~") {
		p.advance()
		if t.text != "~" && p.tok().kind == tokNumber {
			lit := p.numberLiteral(t.text == "-")
			lit.At = t.pos
			return p.postfix(lit)
		}
		p.enter()
		defer p.leave()
		return &Unary{Op: t.text, X: p.unary(), At: t.pos}
	}
	return p.postfix(p.primary())
}

// clauseWords are keywords that commonly follow a stray comma.
var clauseWords = []string{"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "ON", "USING", "WHEN", "THEN", "SET", "VALUES"}

// primary parses literals, names, calls, CASE, CAST and parentheses.
func (p *parser) primary() Expr {
	t := p.tok()
	if p.lambdaAhead() {
		return p.lambda()
	}
	if p.atLambdaParam() {
		return p.columnOrCall()
	}
	switch t.kind {
	case tokNumber:
		return p.numberLiteral(false)
	case tokString:
		return &Literal{Kind: StringLiteral, Value: p.stringLit("a string", ""), At: t.pos}
	case tokBinary:
		p.advance()
		return &Literal{Kind: BinaryLiteral, Value: []byte(t.val), At: t.pos}
	case tokQuotedIdent:
		return p.columnOrCall()
	case tokOp:
		if t.text == "(" {
			p.advance()
			if p.at("SELECT") {
				p.fail(p.tok(), "", "subqueries in expressions are not supported")
			}
			e := p.expr()
			if p.atOp(",") {
				return p.rowConstructor(t, e)
			}
			p.closeParen(t, "the parenthesised expression")
			return e
		}
		if t.text == "*" {
			p.fail(t, "use * alone in a select list (SELECT *), or count(*)", "unexpected '*' in an expression")
		}
	case tokIdent:
		next := p.look(1)
		switch strings.ToUpper(t.text) {
		case "NULL":
			p.advance()
			return &Literal{Kind: NullLiteral, At: t.pos}
		case "TRUE", "FALSE":
			p.advance()
			return &Literal{Kind: BoolLiteral, Value: strings.EqualFold(t.text, "TRUE"), At: t.pos}
		case "CASE":
			return p.caseExpr()
		case "CAST", "TRY_CAST":
			if next.isOp("(") {
				return p.cast()
			}
		case "TIMESTAMP", "TIMESTAMP_LTZ", "TIMESTAMP_NTZ", "DATE":
			if next.kind == tokString {
				return p.datetimeLiteral()
			}
		case "DECIMAL", "DEC", "NUMERIC":
			if next.kind == tokString {
				return p.decimalTypedLiteral()
			}
		case "INTERVAL":
			if next.kind == tokString || next.kind == tokNumber || ((next.isOp("-") || next.isOp("+")) && p.look(2).kind == tokString) {
				return p.intervalLiteral()
			}
		case "TIME":
			if next.kind == tokString {
				return p.timeLiteral()
			}
		case "X":
			if next.kind == tokString {
				return p.spacedBinaryLiteral()
			}
		case "CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_TIME":
			if !next.isOp("(") {
				p.advance()
				return &Call{Name: strings.ToLower(t.text), At: t.pos}
			}
		}
		if isReserved(t.text) && !(reservedFunctions[strings.ToUpper(t.text)] && next.isOp("(")) {
			break
		}
		return p.columnOrCall()
	}
	p.expectedExpr()
	return nil
}

// expectedExpr fails at a token that cannot start an expression.
func (p *parser) expectedExpr() {
	t := p.tok()
	hint := ""
	if prev := p.prev(); prev.isOp(",") && p.i > 0 {
		for _, w := range clauseWords {
			if t.is(w) && (!(t.is("ORDER") || t.is("GROUP")) || p.look(1).is("BY")) {
				hint = "remove the trailing comma before " + strings.ToUpper(t.text)
			}
		}
	}
	if hint == "" && t.kind == tokIdent && isReserved(t.text) {
		hint = "'" + t.text + "' is a reserved keyword; quote it in backticks to use it as a column name: `" + t.text + "`"
	}
	p.fail(t, hint, "expected an expression, found %s", t.describe())
}

// columnOrCall parses name(args) or a dotted column reference.
func (p *parser) columnOrCall() Expr {
	t := p.advance()
	if p.atOp("(") {
		return p.call(t)
	}
	parts := []string{t.val}
	for p.atOp(".") {
		dot := p.advance()
		if p.atOp("*") {
			p.fail(dot, "write "+quoteParts(parts)+".* alone as a select-list item", "unexpected '.*' in an expression")
		}
		parts = append(parts, p.anyIdent("a field or column name", "after '.'"))
	}
	if p.atOp("(") {
		p.fail(p.tok(), "", "qualified function names such as %s(...) are not supported", quoteParts(parts))
	}
	return &ColumnRef{Parts: parts, At: t.pos}
}

// call parses the argument list of the function named by tok.
func (p *parser) call(name token) Expr {
	open := p.advance()
	c := &Call{Name: name.val, At: name.pos}
	what := name.val + "(...)"
	switch {
	case p.keywordForm(c):
	case p.atOp("*") && p.look(1).isOp(")"):
		p.advance()
		c.Star = true
	case p.atOp(")"):
	default:
		if p.accept("DISTINCT") {
			c.Distinct = true
		} else {
			p.accept("ALL")
		}
		p.callArg(c)
		for p.acceptOp(",") {
			p.callArg(c)
		}
	}
	p.closeParen(open, "the arguments of "+what)
	p.withinGroup(c)
	p.windowSuffix(c)
	if p.at("FILTER") && p.look(1).isOp("(") {
		p.fail(p.tok(), "", "aggregate FILTER clauses are not supported")
	}
	return c
}

// withinGroup parses WITHIN GROUP (ORDER BY k, ...) after the arguments
// of an ordered-set aggregate (mode, percentile_cont, listagg, ...).
func (p *parser) withinGroup(c *Call) {
	if !p.at("WITHIN") || !p.look(1).is("GROUP") || !p.look(2).isOp("(") {
		return
	}
	p.advance()
	p.advance()
	open := p.advance()
	p.expect("ORDER", "in WITHIN GROUP (")
	p.expect("BY", "after ORDER")
	c.WithinGroup = append(c.WithinGroup, p.orderItem())
	for p.acceptOp(",") {
		c.WithinGroup = append(c.WithinGroup, p.orderItem())
	}
	p.closeParen(open, "WITHIN GROUP (ORDER BY ...)")
}

// caseExpr parses CASE [operand] WHEN c THEN r ... [ELSE e] END.
func (p *parser) caseExpr() Expr {
	start := p.advance()
	c := &Case{At: start.pos}
	if !p.at("WHEN") {
		c.Operand = p.expr()
	}
	if !p.at("WHEN") {
		p.expected("WHEN", "in CASE", "")
	}
	for p.at("WHEN") {
		w := p.advance()
		cond := p.expr()
		p.expect("THEN", "after the WHEN condition of CASE")
		c.Whens = append(c.Whens, &When{Cond: cond, Result: p.expr(), At: w.pos})
	}
	if p.accept("ELSE") {
		c.Else = p.expr()
	}
	if !p.at("END") {
		p.expected("END", "to close the CASE at "+start.pos.String(), "")
	}
	p.advance()
	return c
}

// cast parses CAST(x AS type) and TRY_CAST(x AS type).
func (p *parser) cast() Expr {
	kw := p.advance()
	open := p.advance()
	x := p.expr()
	p.expect("AS", "before the type in "+strings.ToUpper(kw.text))
	typ := p.dataType()
	p.closeParen(open, strings.ToUpper(kw.text))
	return &Cast{X: x, Type: typ, Try: strings.EqualFold(kw.text, "TRY_CAST"), At: kw.pos}
}
