package parser

// callProcedure parses CALL name([arg[, arg]...]) where arg is
// `name => expr` or `expr`; named arguments follow positional ones, as in
// Spark.
func (p *parser) callProcedure() *CallProcedure {
	kw := p.advance()
	s := &CallProcedure{At: kw.pos}
	s.Procedure = p.name("a procedure name", "after CALL")
	open := p.expectOp("(", "after CALL "+s.Procedure.String())
	if p.atOp(")") {
		p.advance()
		return s
	}
	named := false
	for {
		arg := ProcedureArg{At: p.tok().pos}
		if p.atIdent() && p.look(1).isOp("=>") {
			arg.Name, _ = p.ident("an argument name", "in CALL")
			p.advance() // =>
			named = true
		} else if named {
			p.fail(p.tok(), "write every argument after a named one as name => value",
				"a positional argument follows a named one")
		}
		arg.Value = p.expr()
		s.Args = append(s.Args, arg)
		if !p.acceptOp(",") {
			break
		}
	}
	p.closeParen(open, "the argument list of CALL")
	return s
}
