package parser

import (
	"strings"
	"time"
)

// DefaultMaxDepth is how deeply expressions and queries may nest (through
// parentheses, subqueries, function arguments, NOT and unary operators)
// unless Options says otherwise. Deeper text fails with Spark's
// FAILED_TO_PARSE_TOO_COMPLEX before the parser's recursion could exhaust
// the goroutine's stack (which would end the process; Spark's own parser
// refuses 610 nested filters).
const DefaultMaxDepth = 1000

// ConfMaxDepth is the session setting that raises or lowers the limit of
// the statements a session parses (engine sessions read it).
const ConfMaxDepth = "spark.atlas.sql.parser.maxNestingDepth"

// Options tune parsing.
type Options struct {
	// MaxDepth bounds the nesting depth; 0 means DefaultMaxDepth.
	MaxDepth int
	// Zone is the session time zone, in which a TIMESTAMP literal without
	// a zone is read (and every TIMESTAMP literal is shown); nil means UTC.
	Zone *time.Location
}

// Parse parses one SQL statement, optionally followed by a semicolon.
func Parse(sql string) (Statement, error) { return Options{}.Parse(sql) }

// ParseScript parses statements separated by semicolons (see Options.ParseScript).
func ParseScript(sql string) ([]Statement, error) { return Options{}.ParseScript(sql) }

// ParseExpr parses a single expression (see Options.ParseExpr).
func ParseExpr(s string) (Expr, error) { return Options{}.ParseExpr(s) }

// ParseSelectItem parses one select-list entry (see Options.ParseSelectItem).
func ParseSelectItem(s string) (*SelectItem, error) { return Options{}.ParseSelectItem(s) }

// Parse parses one SQL statement, optionally followed by a semicolon.
func (o Options) Parse(sql string) (Statement, error) {
	var stmt Statement
	err := o.run(sql, func(p *parser) {
		p.skipSemicolons()
		if p.tok().kind == tokEOF {
			p.fail(p.tok(), "", "expected a statement, found end of input")
		}
		stmt = p.statement()
		p.skipSemicolons()
		if t := p.tok(); t.kind != tokEOF {
			p.fail(t, "Parse takes one statement; use ParseScript for several separated by ';'",
				"expected end of input after the statement, found %s", t.describe())
		}
	})
	if err != nil {
		return nil, err
	}
	return stmt, nil
}

// ParseScript parses statements separated by semicolons. Empty statements
// (a lone ';') are skipped; a script with no statements yields none.
func (o Options) ParseScript(sql string) ([]Statement, error) {
	var stmts []Statement
	err := o.run(sql, func(p *parser) {
		for {
			p.skipSemicolons()
			if p.tok().kind == tokEOF {
				return
			}
			stmts = append(stmts, p.statement())
			if t := p.tok(); t.kind != tokEOF && !t.isOp(";") {
				hint := ""
				if startsStatement(t) {
					hint = "end each statement with ';' before the next one"
				}
				p.fail(t, hint, "expected ';' or end of input after the statement, found %s", t.describe())
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return stmts, nil
}

// ParseExpr parses a single expression, such as the condition of
// DataFrame.Where("amount > 10 AND country = 'NL'").
func (o Options) ParseExpr(s string) (Expr, error) {
	var e Expr
	err := o.run(s, func(p *parser) {
		e = p.expr()
		if t := p.tok(); t.kind != tokEOF {
			hint := ""
			if t.is("AS") {
				hint = "an alias belongs to a select item; parse it with ParseSelectItem"
			}
			p.fail(t, hint, "expected end of the expression, found %s", t.describe())
		}
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ParseSelectItem parses one select-list entry, an expression with an
// optional alias or a star, such as the arguments of
// DataFrame.SelectExpr("count(*) AS n", "t.*").
func (o Options) ParseSelectItem(s string) (*SelectItem, error) {
	var it *SelectItem
	err := o.run(s, func(p *parser) {
		it = p.selectItem()
		if t := p.tok(); t.kind != tokEOF {
			p.fail(t, "", "expected end of the select item, found %s", t.describe())
		}
	})
	if err != nil {
		return nil, err
	}
	return it, nil
}

// parser is a recursive-descent parser over the token slice. Errors unwind
// with panic(bailout) to run, which turns them back into an error.
type parser struct {
	src  string
	toks []token
	i    int
	// depth is how many nesting levels enter has opened; maxDepth bounds it.
	depth, maxDepth int
	// lambdaParams are the parameters of the lambdas being parsed: names
	// even when otherwise reserved (left, right).
	lambdaParams []string
	// zone is Options.Zone, UTC when unset.
	zone *time.Location
}

// bailout carries a syntax error up the parser's stack.
type bailout struct{ err *Error }

// run tokenizes sql and calls f, returning the syntax error f fails with.
func (o Options) run(sql string, f func(p *parser)) (err error) {
	p := &parser{src: sql, toks: tokenize(sql), maxDepth: o.MaxDepth, zone: o.Zone}
	if p.zone == nil {
		p.zone = time.UTC
	}
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	f(p)
	return nil
}

// enter opens one nesting level at the current token, failing with
// FAILED_TO_PARSE_TOO_COMPLEX past maxDepth; the caller defers leave.
func (p *parser) enter() {
	p.depth++
	if p.depth > p.maxDepth {
		e := newError(p.src, p.tok().pos, "split the statement, or raise the session setting "+ConfMaxDepth,
			"[FAILED_TO_PARSE_TOO_COMPLEX] The statement, including potential SQL functions and referenced views, was too complex to parse: it nests more than %d levels deep. To mitigate this error divide the statement into multiple, less complex chunks.", p.maxDepth)
		e.Class, e.SQLState = "FAILED_TO_PARSE_TOO_COMPLEX", "54001"
		panic(bailout{e})
	}
}

func (p *parser) leave() { p.depth-- }

// tok is the current token.
func (p *parser) tok() token { return p.toks[p.i] }

// look is the token n places after the current one.
func (p *parser) look(n int) token {
	if j := p.i + n; j < len(p.toks) {
		return p.toks[j]
	}
	return p.toks[len(p.toks)-1]
}

// prev is the token before the current one (the current one at the start).
func (p *parser) prev() token {
	if p.i == 0 {
		return p.toks[0]
	}
	return p.toks[p.i-1]
}

// advance consumes the current token and returns it.
func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind == tokError {
		panic(bailout{t.err})
	}
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

// fail stops parsing with an error at t. A lexical error at the current
// token takes precedence: it explains what went wrong there better.
func (p *parser) fail(t token, hint, format string, args ...any) {
	if cur := p.tok(); cur.kind == tokError {
		panic(bailout{cur.err})
	}
	panic(bailout{newError(p.src, t.pos, hint, format, args...)})
}

// failAt stops parsing with an error at pos.
func (p *parser) failAt(pos Position, hint, format string, args ...any) {
	panic(bailout{newError(p.src, pos, hint, format, args...)})
}

// at reports whether the current token is the keyword kw.
func (p *parser) at(kw string) bool { return p.tok().is(kw) }

// atSeq reports whether the next tokens are the keywords kws.
func (p *parser) atSeq(kws ...string) bool {
	for i, kw := range kws {
		if !p.look(i).is(kw) {
			return false
		}
	}
	return true
}

// atOp reports whether the current token is the operator op.
func (p *parser) atOp(op string) bool { return p.tok().isOp(op) }

// accept consumes the keyword kw if it is next.
func (p *parser) accept(kw string) bool {
	if p.at(kw) {
		p.advance()
		return true
	}
	return false
}

// acceptSeq consumes the keywords kws if they are all next.
func (p *parser) acceptSeq(kws ...string) bool {
	if !p.atSeq(kws...) {
		return false
	}
	for range kws {
		p.advance()
	}
	return true
}

// acceptOp consumes the operator op if it is next.
func (p *parser) acceptOp(op string) bool {
	if p.atOp(op) {
		p.advance()
		return true
	}
	return false
}

// expect consumes the keyword kw or fails with "expected KW <where>".
func (p *parser) expect(kw, where string) token {
	if !p.at(kw) {
		p.expected(kw, where, "")
	}
	return p.advance()
}

// expectOp consumes the operator op or fails with "expected 'op' <where>".
func (p *parser) expectOp(op, where string) token {
	if !p.atOp(op) {
		p.expected("'"+op+"'", where, "")
	}
	return p.advance()
}

// expected fails at the current token: expected <what> <where>, found ...
func (p *parser) expected(what, where, hint string) {
	t := p.tok()
	msg := "expected " + what
	if where != "" {
		msg += " " + where
	}
	if hint == "" && t.kind == tokIdent && isReserved(t.text) && strings.Contains(what, "name") {
		hint = "'" + t.text + "' is a reserved keyword; quote it in backticks to use it as a name: `" + t.text + "`"
	}
	p.fail(t, hint, "%s, found %s", msg, t.describe())
}

// closeParen consumes the ')' matching the '(' token open.
func (p *parser) closeParen(open token, what string) {
	if p.atOp(")") {
		p.advance()
		return
	}
	p.expected("')'", "to close the '(' of "+what+" at "+open.pos.String(), "")
}

func (p *parser) skipSemicolons() {
	for p.acceptOp(";") {
	}
}

// startsStatement reports whether t is a word a statement starts with.
func startsStatement(t token) bool {
	for _, kw := range statementKeywords {
		if t.is(kw) {
			return true
		}
	}
	return t.is("DESC")
}

// ident consumes an identifier: a bare word that is not reserved or a
// `quoted` name. what names it in the error.
func (p *parser) ident(what, where string) (string, Position) {
	t := p.tok()
	switch {
	case t.kind == tokQuotedIdent:
		p.advance()
		return t.val, t.pos
	case t.kind == tokIdent && !isReserved(t.text):
		p.advance()
		return t.val, t.pos
	}
	p.expected(what, where, "")
	return "", Position{}
}

// anyIdent consumes an identifier after a dot, where even reserved words
// are names (t.order).
func (p *parser) anyIdent(what, where string) string {
	t := p.tok()
	if t.kind == tokQuotedIdent || t.kind == tokIdent {
		p.advance()
		return t.val
	}
	p.expected(what, where, "")
	return ""
}

// atIdent reports whether the current token can be an identifier.
func (p *parser) atIdent() bool {
	t := p.tok()
	return t.kind == tokQuotedIdent || (t.kind == tokIdent && !isReserved(t.text))
}

// name consumes a dotted name: ident (. ident)*.
func (p *parser) name(what, where string) *Name {
	first, pos := p.ident(what, where)
	parts := []string{first}
	for p.atOp(".") {
		p.advance()
		parts = append(parts, p.anyIdent("a name part after '.'", "in "+what))
	}
	return &Name{Parts: parts, At: pos}
}

// alias consumes an optional alias: AS name, or a bare name that is not a
// keyword ending the clause.
func (p *parser) alias(what string) string {
	if p.accept("AS") {
		a, _ := p.ident("an alias", "after AS in "+what)
		return a
	}
	t := p.tok()
	if t.is("WINDOW") && p.look(2).is("AS") {
		return "" // the WINDOW clause of a SELECT
	}
	if t.kind == tokQuotedIdent || (t.kind == tokIdent && !isReserved(t.text) && !notAlias[strings.ToUpper(t.text)]) {
		p.advance()
		return t.val
	}
	return ""
}

// stringLit consumes a string literal (adjacent literals concatenate).
func (p *parser) stringLit(what, where string) string {
	if p.tok().kind != tokString {
		p.expected(what, where, "")
	}
	var b strings.Builder
	for p.tok().kind == tokString {
		b.WriteString(p.advance().val)
	}
	return b.String()
}

// statement parses one statement, dispatching on its first word.
func (p *parser) statement() Statement {
	t := p.tok()
	switch {
	case t.is("SELECT"), t.is("WITH"), t.is("VALUES"):
		return p.query()
	case t.isOp("("):
		return p.query()
	case t.is("CREATE"):
		return p.create()
	case t.is("DROP"):
		return p.drop()
	case t.is("MERGE"):
		return p.merge()
	case t.is("INSERT"):
		return p.insert()
	case t.is("DELETE"):
		return p.delete()
	case t.is("UPDATE"):
		return p.update()
	case t.is("SHOW"):
		return p.show()
	case t.is("DESCRIBE"), t.is("DESC"):
		return p.describe()
	case t.is("CALL"):
		return p.callProcedure()
	case t.is("SET"):
		return p.setStmt()
	case t.is("RESET"):
		return p.resetStmt()
	}
	hint := "supported statements: " + supportedStatements
	if t.kind == tokIdent {
		if s := suggest(t.text, append(statementKeywords, "DESC")); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
	}
	p.fail(t, hint, "unknown statement starting with %s", t.describe())
	return nil
}
