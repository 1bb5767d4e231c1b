package parser

import "strings"

// Spark's keyword forms of some function calls (SqlBaseParser's
// primaryExpression alternatives), each parsed into the ordinary call
// Spark's AstBuilder makes of it, so that SQL() prints a call that parses
// back to the same tree and the registry names the result column:
//
//	EXTRACT(field FROM source)                      → extract('field', source)
//	TRIM([BOTH|LEADING|TRAILING] [chars] FROM str)  → trim|ltrim|rtrim([chars,] str)
//	SUBSTR|SUBSTRING(str FROM pos [FOR len])         → substring(str, pos[, len])
//	OVERLAY(input PLACING repl FROM pos [FOR len])   → overlay(input, repl, pos[, len])
//	POSITION(substr IN str)                          → locate(substr, str)
//
// The two-argument trim(chars, str) takes the characters first, as
// Spark's StringTrim(trimStr, srcStr) constructor does.

// keywordForm parses the arguments of a keyword form of the call c after
// its opening parenthesis and reports whether it did; false leaves the
// parser where it was, for an ordinary argument list.
func (p *parser) keywordForm(c *Call) bool {
	switch strings.ToUpper(c.Name) {
	case "EXTRACT":
		return p.extractForm(c)
	case "TRIM":
		return p.trimForm(c)
	case "SUBSTR", "SUBSTRING":
		return p.fromForForm(c, "substring", "")
	case "OVERLAY":
		return p.fromForForm(c, "overlay", "PLACING")
	case "POSITION":
		return p.positionForm(c)
	}
	return false
}

// extractForm parses EXTRACT(field FROM source); field is any word
// (YEAR, doy, seconds, ...), checked when the call is planned.
func (p *parser) extractForm(c *Call) bool {
	t := p.tok()
	if (t.kind != tokIdent && t.kind != tokQuotedIdent) || !p.look(1).is("FROM") {
		return false
	}
	p.advance()
	p.advance() // FROM
	c.Name = "extract"
	c.Args = []Expr{&Literal{Kind: StringLiteral, Value: t.val, At: t.pos}, p.expr()}
	return true
}

// trimForm parses TRIM([BOTH|LEADING|TRAILING] [chars] FROM str) and
// TRIM(chars FROM str); trim(str) and trim(chars, str) are ordinary calls.
func (p *parser) trimForm(c *Call) bool {
	start := p.i
	name := "trim"
	switch {
	case p.at("BOTH"):
	case p.at("LEADING"):
		name = "ltrim"
	case p.at("TRAILING"):
		name = "rtrim"
	default:
		name = ""
	}
	if name != "" {
		p.advance()
		if p.atOp(",") || p.atOp(")") || p.atOp("(") {
			p.i = start // a column or function named both, leading or trailing
			return false
		}
	}
	var chars Expr
	if !p.at("FROM") {
		chars = p.expr()
	}
	if !p.accept("FROM") {
		if name != "" {
			p.expected("FROM", "after the characters of TRIM("+strings.ToUpper(p.toks[start].text)+" ...", "")
		}
		p.i = start
		return false
	}
	if name == "" {
		name = "trim"
	}
	c.Name = name
	if chars != nil {
		c.Args = append(c.Args, chars)
	}
	c.Args = append(c.Args, p.expr())
	return true
}

// fromForForm parses f(x [sep y] FROM pos [FOR len]): SUBSTRING(str FROM
// pos [FOR len]) with no sep, OVERLAY(input PLACING repl FROM pos [FOR
// len]) with sep PLACING. It backs off when the first argument is followed
// by neither sep nor FROM (an ordinary call).
func (p *parser) fromForForm(c *Call, name, sep string) bool {
	start := p.i
	args := []Expr{p.expr()}
	if sep != "" {
		if !p.accept(sep) {
			p.i = start
			return false
		}
		args = append(args, p.expr())
		p.expect("FROM", "after "+sep+" in "+strings.ToUpper(name)+"(...)")
	} else if !p.accept("FROM") {
		p.i = start
		return false
	}
	args = append(args, p.expr())
	if p.accept("FOR") {
		args = append(args, p.expr())
	}
	c.Name, c.Args = name, args
	return true
}

// positionForm parses POSITION(substr IN str). Both sides are value
// expressions (no predicates), as in Spark's grammar, so the IN is not
// read as an IN list.
func (p *parser) positionForm(c *Call) bool {
	start := p.i
	sub := p.comparison()
	if !p.accept("IN") {
		p.i = start
		return false
	}
	c.Name = "locate"
	c.Args = []Expr{sub, p.comparison()}
	return true
}
