package parser

import "strings"

// query parses [WITH cte, ...] term { UNION [ALL|DISTINCT] term }
// [ORDER BY] [LIMIT], a term being a SELECT or a parenthesised query.
func (p *parser) query() *Select {
	p.enter()
	defer p.leave()
	var with []*CTE
	if p.at("WITH") {
		with = p.withClause()
	}
	q := p.queryTerm()
	if p.at("UNION") {
		if len(q.OrderBy) > 0 || q.Limit != nil || len(q.SetOps) > 0 || len(q.With) > 0 {
			// (SELECT ... LIMIT 1) UNION ...: keep the branch's own clauses.
			q = &Select{Items: []*SelectItem{{Expr: &Star{At: q.At}, At: q.At}}, From: &SubqueryRef{Query: q, At: q.At}, At: q.At}
		}
		for p.at("UNION") {
			kw := p.advance()
			op := &SetOp{At: kw.pos}
			if p.accept("ALL") {
				op.All = true
			} else {
				p.accept("DISTINCT")
			}
			op.Query = p.queryTerm()
			q.SetOps = append(q.SetOps, op)
		}
	}
	if t := p.tok(); t.is("EXCEPT") || t.is("INTERSECT") || t.is("MINUS") {
		p.fail(t, "UNION and UNION ALL are supported", "set operation %s is not supported", strings.ToUpper(t.text))
	}
	p.orderLimit(q)
	if len(with) > 0 {
		if len(q.With) > 0 {
			q = &Select{Items: []*SelectItem{{Expr: &Star{At: q.At}, At: q.At}}, From: &SubqueryRef{Query: q, At: q.At}, At: q.At}
		}
		q.With = with
	}
	return q
}

// withClause parses WITH name AS (query) { , name AS (query) }.
func (p *parser) withClause() []*CTE {
	p.expect("WITH", "")
	var out []*CTE
	for {
		name, at := p.ident("a name", "for the common table expression after WITH")
		p.accept("AS")
		if !p.atOp("(") {
			p.expected("(", "before the query of the common table expression "+name, "")
		}
		open := p.advance()
		q := p.query()
		p.closeParen(open, "the query of "+name)
		out = append(out, &CTE{Name: name, Query: q, At: at})
		if !p.acceptOp(",") {
			return out
		}
	}
}

// queryTerm parses one SELECT, or a parenthesised query.
func (p *parser) queryTerm() *Select {
	if p.atOp("(") {
		open := p.advance()
		q := p.query()
		p.closeParen(open, "the query")
		return q
	}
	if p.at("VALUES") {
		return p.valuesQuery()
	}
	if !p.at("SELECT") {
		p.expected("SELECT", "", "")
	}
	return p.selectStmt()
}

// selectStmt parses SELECT ... [FROM] [WHERE] [GROUP BY] [HAVING]; query
// adds ORDER BY and LIMIT.
func (p *parser) selectStmt() *Select {
	kw := p.expect("SELECT", "")
	s := &Select{At: kw.pos}
	if p.accept("DISTINCT") {
		s.Distinct = true
	} else {
		p.accept("ALL")
	}
	s.Items = append(s.Items, p.selectItem())
	for p.acceptOp(",") {
		s.Items = append(s.Items, p.selectItem())
	}
	if p.accept("FROM") {
		s.From = p.relations()
	}
	if p.accept("WHERE") {
		s.Where = p.expr()
	}
	if p.at("GROUP") {
		p.advance()
		p.expect("BY", "after GROUP")
		s.GroupBy = p.exprList()
	}
	if p.accept("HAVING") {
		s.Having = p.expr()
	}
	if p.at("WINDOW") && p.look(2).is("AS") {
		p.windowClause(s)
	}
	p.checkWindowNames(s)
	return s
}

// orderLimit parses [ORDER BY] [LIMIT] into s.
func (p *parser) orderLimit(s *Select) {
	if (p.at("ORDER") || p.at("LIMIT")) && (len(s.OrderBy) > 0 || s.Limit != nil) {
		// (SELECT ... LIMIT 1) ORDER BY x: the outer clauses apply to the result.
		inner := *s
		*s = Select{Items: []*SelectItem{{Expr: &Star{At: s.At}, At: s.At}}, From: &SubqueryRef{Query: &inner, At: s.At}, At: s.At}
	}
	if p.at("ORDER") {
		p.advance()
		p.expect("BY", "after ORDER")
		s.OrderBy = append(s.OrderBy, p.orderItem())
		for p.acceptOp(",") {
			s.OrderBy = append(s.OrderBy, p.orderItem())
		}
	}
	if p.accept("LIMIT") {
		s.Limit = p.expr()
	}
}

// exprList parses expr { , expr }.
func (p *parser) exprList() []Expr {
	es := []Expr{p.expr()}
	for p.acceptOp(",") {
		es = append(es, p.expr())
	}
	return es
}

// selectItem parses *, qualifier.* or expr [[AS] alias].
func (p *parser) selectItem() *SelectItem {
	t := p.tok()
	if t.isOp("*") {
		p.advance()
		return &SelectItem{Expr: &Star{At: t.pos}, At: t.pos}
	}
	if q, n := p.starQualifier(); n > 0 {
		for range n {
			p.advance()
		}
		return &SelectItem{Expr: &Star{Qualifier: q, At: t.pos}, At: t.pos}
	}
	e := p.expr()
	return &SelectItem{Expr: e, Alias: p.alias("the select list"), At: t.pos}
}

// starQualifier looks ahead for name(.name)*.* and returns the qualifier
// and the number of tokens it spans (0 when it is not there).
func (p *parser) starQualifier() ([]string, int) {
	var q []string
	n := 0
	for {
		t := p.look(n)
		if !(t.kind == tokQuotedIdent || (t.kind == tokIdent && (n > 0 || !isReserved(t.text)))) {
			return nil, 0
		}
		q = append(q, t.val)
		if !p.look(n + 1).isOp(".") {
			return nil, 0
		}
		if p.look(n + 2).isOp("*") {
			return q, n + 3
		}
		n += 2
	}
}

// orderItem parses expr [ASC|DESC] [NULLS FIRST|LAST].
func (p *parser) orderItem() *OrderItem {
	e := p.expr()
	o := &OrderItem{Expr: e, At: e.Pos()}
	if p.accept("DESC") {
		o.Desc = true
	} else {
		p.accept("ASC")
	}
	if p.accept("NULLS") {
		switch {
		case p.accept("FIRST"):
			o.Nulls = NullsFirst
		case p.accept("LAST"):
			o.Nulls = NullsLast
		default:
			p.expected("FIRST or LAST", "after NULLS", "")
		}
	}
	return o
}

// relations parses a FROM clause: relation { , relation }, each with its
// joins; a comma is a cross join.
func (p *parser) relations() Relation {
	r := p.joined()
	for p.atOp(",") {
		p.advance()
		r = &Join{Type: CrossJoin, Left: r, Right: p.joined(), Comma: true, At: r.Pos()}
	}
	return r
}

// joined parses a relation followed by any number of joins.
func (p *parser) joined() Relation {
	r := p.relationPrimary("FROM")
	for {
		typ, ok := p.joinType()
		if !ok {
			return r
		}
		right := p.relationPrimary("JOIN")
		j := &Join{Type: typ, Left: r, Right: right, At: r.Pos()}
		switch {
		case p.accept("ON"):
			j.On = p.expr()
		case p.at("USING"):
			p.advance()
			open := p.expectOp("(", "after USING")
			for {
				col, _ := p.ident("a column name", "in USING (...)")
				j.Using = append(j.Using, col)
				if !p.acceptOp(",") {
					break
				}
			}
			p.closeParen(open, "USING")
		case typ != CrossJoin:
			p.expected("ON or USING", "after the joined relation", "")
		}
		r = j
	}
}

// joinType consumes a join operator: [INNER] JOIN, LEFT|RIGHT|FULL [OUTER]
// JOIN, CROSS JOIN, LEFT SEMI|ANTI JOIN.
func (p *parser) joinType() (JoinType, bool) {
	var typ JoinType
	switch {
	case p.at("JOIN"):
		typ = InnerJoin
	case p.accept("INNER"):
		typ = InnerJoin
	case p.accept("CROSS"):
		typ = CrossJoin
	case p.accept("LEFT"):
		switch {
		case p.accept("SEMI"):
			typ = SemiJoin
		case p.accept("ANTI"):
			typ = AntiJoin
		default:
			p.accept("OUTER")
			typ = LeftJoin
		}
	case p.accept("RIGHT"):
		p.accept("OUTER")
		typ = RightJoin
	case p.accept("FULL"):
		p.accept("OUTER")
		typ = FullJoin
	case p.at("NATURAL"):
		p.fail(p.tok(), "write the join condition with ON or USING", "NATURAL joins are not supported")
	default:
		return "", false
	}
	p.expect("JOIN", "after "+string(typ))
	return typ, true
}

// relationPrimary parses name [[AS] alias] or ( query ) [[AS] alias].
func (p *parser) relationPrimary(after string) Relation {
	t := p.tok()
	if t.is("VALUES") {
		return p.values()
	}
	if t.isOp("(") {
		p.advance()
		if !p.at("SELECT") && !p.atOp("(") && !p.at("VALUES") && !p.at("WITH") {
			p.expected("SELECT", "in the subquery", "")
		}
		q := p.query()
		p.closeParen(t, "the subquery")
		return &SubqueryRef{Query: q, Alias: p.alias("the subquery"), At: t.pos}
	}
	name := p.name("a table name", "after "+after)
	r := &TableRef{Name: name, At: name.At}
	if after == "FROM" || after == "JOIN" {
		p.timeTravel(r)
	}
	r.Alias = p.alias("the table reference")
	return r
}

// timeTravel parses an optional [FOR] VERSION|SYSTEM_VERSION AS OF v or
// [FOR] TIMESTAMP|SYSTEM_TIME AS OF ts after a table name.
func (p *parser) timeTravel(r *TableRef) {
	n := 0
	if p.at("FOR") {
		n = 1
	}
	kw := p.look(n)
	version := kw.is("VERSION") || kw.is("SYSTEM_VERSION")
	stamp := kw.is("TIMESTAMP") || kw.is("SYSTEM_TIME")
	if !(version || stamp) || !p.look(n+1).is("AS") || !p.look(n+2).is("OF") {
		return
	}
	for range n + 3 {
		p.advance()
	}
	if version {
		t := p.tok()
		if t.kind != tokNumber && t.kind != tokString {
			p.expected("a snapshot id or a quoted tag name", "after VERSION AS OF", "")
		}
		r.Version = p.primary()
		return
	}
	r.Timestamp = p.additive()
}
