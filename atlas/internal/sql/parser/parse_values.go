package parser

// values parses VALUES row {, row} [[AS] alias [(col, ...)]], a row being
// a parenthesised list of expressions or a single expression.
func (p *parser) values() *ValuesRef {
	kw := p.expect("VALUES", "")
	r := &ValuesRef{At: kw.pos}
	for {
		var row []Expr
		if p.atOp("(") {
			open := p.advance()
			row = p.exprList()
			p.closeParen(open, "the row of VALUES")
		} else {
			row = []Expr{p.expr()}
		}
		if len(r.Rows) > 0 && len(row) != len(r.Rows[0]) {
			p.fail(p.tok(), "give every row of VALUES the same number of values",
				"[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Inline table expected %d columns but found %d columns in row %d", len(r.Rows[0]), len(row), len(r.Rows))
		}
		r.Rows = append(r.Rows, row)
		if !p.acceptOp(",") {
			break
		}
	}
	r.Alias = p.alias("the inline table")
	if r.Alias != "" && p.atOp("(") {
		open := p.advance()
		for {
			c, _ := p.ident("a column name", "in the column list of "+r.Alias)
			r.Columns = append(r.Columns, c)
			if !p.acceptOp(",") {
				break
			}
		}
		p.closeParen(open, "the column list of "+r.Alias)
		if len(r.Columns) != len(r.Rows[0]) {
			p.fail(p.tok(), "name every column of the inline table",
				"[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Inline table expected %d columns but found %d columns in row 0", len(r.Columns), len(r.Rows[0]))
		}
	}
	return r
}

// valuesQuery is a bare VALUES used as a query: SELECT * FROM VALUES ...
func (p *parser) valuesQuery() *Select {
	v := p.values()
	return &Select{Items: []*SelectItem{{Expr: &Star{At: v.At}, At: v.At}}, From: v, At: v.At}
}
