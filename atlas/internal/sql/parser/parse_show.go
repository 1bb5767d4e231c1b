package parser

// show parses SHOW TABLES and SHOW NAMESPACES|DATABASES|SCHEMAS.
func (p *parser) show() Statement {
	kw := p.advance()
	switch {
	case p.accept("TABLES"):
		s := &ShowTables{At: kw.pos}
		if p.accept("IN") || p.accept("FROM") {
			s.Namespace = p.name("a namespace name", "after SHOW TABLES IN")
		}
		if p.accept("LIKE") {
			s.Pattern = p.stringLit("a pattern string", "after LIKE")
		}
		return s
	case p.accept("NAMESPACES") || p.accept("DATABASES") || p.accept("SCHEMAS"):
		s := &ShowNamespaces{At: kw.pos}
		if p.accept("IN") || p.accept("FROM") {
			s.Parent = p.name("a namespace name", "after SHOW NAMESPACES IN")
		}
		if p.accept("LIKE") {
			s.Pattern = p.stringLit("a pattern string", "after LIKE")
		}
		return s
	}
	p.expected("TABLES or NAMESPACES", "after SHOW", "")
	return nil
}

// describe parses DESCRIBE|DESC [TABLE] [EXTENDED|FORMATTED] name and
// DESCRIBE HISTORY name. A keyword-like word directly before the end of
// the statement is read as the table's name (DESCRIBE history).
func (p *parser) describe() *Describe {
	kw := p.advance()
	s := &Describe{At: kw.pos}
	nameFollows := func() bool {
		t := p.look(1)
		return t.kind == tokIdent || t.kind == tokQuotedIdent
	}
	if p.at("HISTORY") && nameFollows() {
		p.advance()
		s.Kind = DescribeHistory
		s.Name = p.name("a table name", "after DESCRIBE HISTORY")
		return s
	}
	if p.at("TABLE") && nameFollows() {
		p.advance()
	}
	if (p.at("EXTENDED") || p.at("FORMATTED")) && nameFollows() {
		p.advance()
		s.Extended = true
	}
	s.Name = p.name("a table name", "after DESCRIBE")
	return s
}
