package parser

// insert parses INSERT INTO|OVERWRITE [TABLE] name [(cols)] VALUES ... |
// query.
func (p *parser) insert() *Insert {
	kw := p.advance()
	s := &Insert{At: kw.pos}
	switch {
	case p.accept("INTO"):
	case p.accept("OVERWRITE"):
		s.Overwrite = true
	default:
		p.expected("INTO or OVERWRITE", "after INSERT", "")
	}
	p.accept("TABLE")
	s.Table = p.name("a table name", "after INSERT INTO")
	if p.atOp("(") && !p.look(1).is("SELECT") {
		open := p.advance()
		s.Columns = append(s.Columns, p.columnRef("in the column list"))
		for p.acceptOp(",") {
			s.Columns = append(s.Columns, p.columnRef("in the column list"))
		}
		p.closeParen(open, "the column list")
	}
	switch {
	case p.accept("VALUES"):
		for {
			open := p.expectOp("(", "before a row of VALUES")
			row := p.exprList()
			p.closeParen(open, "the row")
			if len(s.Columns) > 0 && len(row) != len(s.Columns) {
				p.failAt(open.pos, "", "the row has %d values but the column list names %d columns", len(row), len(s.Columns))
			}
			if len(s.Rows) > 0 && len(row) != len(s.Rows[0]) {
				p.failAt(open.pos, "", "the row has %d values but the first row has %d", len(row), len(s.Rows[0]))
			}
			s.Rows = append(s.Rows, row)
			if !p.acceptOp(",") {
				break
			}
		}
	case p.at("SELECT") || p.atOp("("):
		s.Query = p.query()
	default:
		p.expected("VALUES or SELECT", "after INSERT INTO "+s.Table.String(), "")
	}
	return s
}

// delete parses DELETE FROM name [[AS] alias] [WHERE cond].
func (p *parser) delete() *Delete {
	kw := p.advance()
	p.expect("FROM", "after DELETE")
	name := p.name("a table name", "after DELETE FROM")
	s := &Delete{Table: &TableRef{Name: name, Alias: p.alias("DELETE"), At: name.At}, At: kw.pos}
	if p.accept("WHERE") {
		s.Where = p.expr()
	}
	return s
}

// update parses UPDATE name [[AS] alias] SET col = expr, ... [WHERE cond].
func (p *parser) update() *Update {
	kw := p.advance()
	name := p.name("a table name", "after UPDATE")
	s := &Update{Table: &TableRef{Name: name, Alias: p.alias("UPDATE"), At: name.At}, At: kw.pos}
	p.expect("SET", "after UPDATE "+s.Table.String())
	s.Set = p.assignments()
	if p.accept("WHERE") {
		s.Where = p.expr()
	}
	return s
}
