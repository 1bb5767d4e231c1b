package parser

// Named arguments, name => value, in function calls (Spark's
// namedArgumentExpression): positional arguments come first, as Spark
// requires (UNEXPECTED_POSITIONAL_ARGUMENT). The planner matches the
// names with the function's parameters.

// callArg parses one argument of the call c, named or positional.
func (p *parser) callArg(c *Call) {
	if (p.tok().kind == tokIdent || p.tok().kind == tokQuotedIdent) && p.look(1).isOp("=>") {
		name := p.advance()
		p.advance() // =>
		if c.ArgNames == nil {
			c.ArgNames = make([]string, len(c.Args))
		}
		c.ArgNames = append(c.ArgNames, name.val)
		c.Args = append(c.Args, p.expr())
		return
	}
	if c.ArgNames != nil {
		p.fail(p.tok(), "write the positional arguments first, then the named ones",
			"[UNEXPECTED_POSITIONAL_ARGUMENT] a positional argument follows the named argument %s in %s(...)", c.ArgNames[len(c.ArgNames)-1], c.Name)
	}
	c.Args = append(c.Args, p.expr())
}

// namedArgs prints the arguments of c with their names.
func (p *printer) namedArgs(c *Call) {
	for i, a := range c.Args {
		if i > 0 {
			p.w(", ")
		}
		if i < len(c.ArgNames) && c.ArgNames[i] != "" {
			p.w(quoteIdent(c.ArgNames[i]), " => ")
		}
		p.expr(a)
	}
}
