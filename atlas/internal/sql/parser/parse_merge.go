package parser

// merge parses MERGE INTO target [[AS] t] USING source [[AS] s] ON cond
// followed by WHEN clauses, and checks Spark's rules on them.
func (p *parser) merge() *Merge {
	kw := p.advance()
	p.expect("INTO", "after MERGE")
	name := p.name("a target table name", "after MERGE INTO")
	target := &TableRef{Name: name, Alias: p.alias("the MERGE target"), At: name.At}
	if !p.at("USING") {
		p.expected("USING", "after the MERGE target "+target.String(), "write MERGE INTO target t USING source s ON condition WHEN ...")
	}
	p.advance()
	source := p.relationPrimary("USING")
	if !p.at("ON") {
		p.expected("ON", "after the MERGE source", "write MERGE INTO target t USING source s ON t.key = s.key WHEN ...")
	}
	p.advance()
	m := &Merge{Target: target, Source: source, On: p.expr(), At: kw.pos}
	if !p.at("WHEN") {
		p.expected("WHEN", "after the MERGE condition", "add at least one clause, such as WHEN MATCHED THEN UPDATE SET *")
	}
	for p.at("WHEN") {
		m.Clauses = append(m.Clauses, p.mergeClause())
	}
	p.checkMergeClauses(m.Clauses)
	return m
}

// mergeClause parses WHEN [NOT] MATCHED [BY TARGET|SOURCE] [AND cond] THEN
// action.
func (p *parser) mergeClause() *MergeClause {
	when := p.advance()
	c := &MergeClause{At: when.pos}
	head := "WHEN MATCHED"
	switch {
	case p.accept("MATCHED"):
		c.Match = WhenMatched
	case p.at("NOT"):
		p.advance()
		p.expect("MATCHED", "after WHEN NOT")
		head = "WHEN NOT MATCHED"
		c.Match = WhenNotMatched
		if p.accept("BY") {
			switch {
			case p.accept("TARGET"):
				head += " BY TARGET"
			case p.accept("SOURCE"):
				head += " BY SOURCE"
				c.Match = WhenNotMatchedBySource
			default:
				p.expected("TARGET or SOURCE", "after WHEN NOT MATCHED BY", "")
			}
		}
	default:
		p.expected("MATCHED or NOT MATCHED", "after WHEN", "")
	}
	if p.accept("AND") {
		c.Cond = p.expr()
		if !p.at("THEN") {
			p.expected("THEN", "after "+head+" condition", p.missingThenHint(head))
		}
	} else if !p.at("THEN") {
		p.expected("THEN", "after "+head, p.missingThenHint(head))
	}
	p.advance()
	p.mergeAction(c, head)
	return c
}

// missingThenHint explains THEN when the action follows without it.
func (p *parser) missingThenHint(head string) string {
	t := p.tok()
	if t.is("UPDATE") || t.is("DELETE") || t.is("INSERT") {
		return "write " + head + " [AND condition] THEN " + t.text + " ..."
	}
	return ""
}

// mergeAction parses UPDATE SET * | UPDATE SET a = e, ... | DELETE |
// INSERT * | INSERT (cols) VALUES (exprs), checking it suits the clause.
func (p *parser) mergeAction(c *MergeClause, head string) {
	t := p.tok()
	switch {
	case t.is("UPDATE"):
		if c.Match == WhenNotMatched {
			p.fail(t, "a source row without a target row can only be inserted: use INSERT * or INSERT (cols) VALUES (...)",
				"UPDATE is not allowed in %s", head)
		}
		p.advance()
		p.expect("SET", "after UPDATE")
		if p.atOp("*") {
			if c.Match == WhenNotMatchedBySource {
				p.fail(p.tok(), "there is no source row to copy: write UPDATE SET col = expr, ...",
					"UPDATE SET * is not allowed in %s", head)
			}
			p.advance()
			c.Action = UpdateAll
			return
		}
		c.Action = UpdateSet
		c.Set = p.assignments()
	case t.is("DELETE"):
		if c.Match == WhenNotMatched {
			p.fail(t, "a source row without a target row can only be inserted: use INSERT * or INSERT (cols) VALUES (...)",
				"DELETE is not allowed in %s", head)
		}
		p.advance()
		c.Action = DeleteRow
	case t.is("INSERT"):
		if c.Match != WhenNotMatched {
			p.fail(t, "a row that exists in the target can only be updated or deleted: use UPDATE SET ... or DELETE",
				"INSERT is not allowed in %s", head)
		}
		p.advance()
		if p.acceptOp("*") {
			c.Action = InsertAll
			return
		}
		c.Action = InsertValues
		open := p.expectOp("(", "or '*' after INSERT")
		c.Columns = append(c.Columns, p.columnRef("in the INSERT column list"))
		for p.acceptOp(",") {
			c.Columns = append(c.Columns, p.columnRef("in the INSERT column list"))
		}
		p.closeParen(open, "the INSERT column list")
		values := p.expect("VALUES", "after the INSERT column list")
		vopen := p.expectOp("(", "after VALUES")
		c.Values = p.exprList()
		p.closeParen(vopen, "the VALUES list")
		if len(c.Values) != len(c.Columns) {
			p.failAt(values.pos, "", "INSERT lists %d columns but %d values", len(c.Columns), len(c.Values))
		}
	default:
		want := "UPDATE or DELETE"
		if c.Match == WhenNotMatched {
			want = "INSERT"
		}
		p.expected(want, "after "+head+" ... THEN", "")
	}
}

// checkMergeClauses enforces that, among the clauses of one kind, only the
// last may omit its condition (a clause without one would hide the rest).
func (p *parser) checkMergeClauses(cs []*MergeClause) {
	last := map[MergeMatch]int{}
	for i, c := range cs {
		last[c.Match] = i
	}
	for i, c := range cs {
		if c.Cond == nil && last[c.Match] != i {
			p.failAt(c.At, "add AND condition to this clause, or move it after the other "+c.Match.String()+" clauses",
				"only the last %s clause may omit its condition", c.Match)
		}
	}
}

// columnRef parses a possibly qualified column name.
func (p *parser) columnRef(where string) *ColumnRef {
	first, pos := p.ident("a column name", where)
	parts := []string{first}
	for p.acceptOp(".") {
		parts = append(parts, p.anyIdent("a column name", "after '.'"))
	}
	return &ColumnRef{Parts: parts, At: pos}
}

// assignments parses col = expr { , col = expr }.
func (p *parser) assignments() []*Assignment {
	var as []*Assignment
	for {
		col := p.columnRef("in SET")
		p.expectOp("=", "after "+col.SQL()+" in SET")
		as = append(as, &Assignment{Column: col, Value: p.expr(), At: col.At})
		if !p.acceptOp(",") {
			return as
		}
	}
}
