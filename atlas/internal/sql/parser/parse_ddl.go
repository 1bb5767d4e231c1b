package parser

import (
	"strconv"
	"strings"
)

// create parses CREATE [OR REPLACE] TABLE ... and CREATE NAMESPACE ...
func (p *parser) create() Statement {
	kw := p.advance()
	orReplace := p.acceptSeq("OR", "REPLACE")
	switch {
	case p.at("TABLE"):
		return p.createTable(kw, orReplace)
	case p.at("NAMESPACE") || p.at("SCHEMA") || p.at("DATABASE"):
		if orReplace {
			p.fail(p.tok(), "", "CREATE OR REPLACE is only supported for tables")
		}
		return p.createNamespace(kw)
	case p.at("TEMP") || p.at("TEMPORARY") || p.at("VIEW") || p.at("GLOBAL"):
		p.fail(p.tok(), "register a temporary view with DataFrame.CreateOrReplaceTempView", "CREATE VIEW is not supported")
	}
	after := "after CREATE"
	if orReplace {
		after = "after CREATE OR REPLACE"
	}
	p.expected("TABLE, NAMESPACE, SCHEMA or DATABASE", after, "")
	return nil
}

// createTable parses the rest of CREATE [OR REPLACE] TABLE.
func (p *parser) createTable(kw token, orReplace bool) *CreateTable {
	p.advance()
	s := &CreateTable{OrReplace: orReplace, At: kw.pos}
	if p.at("IF") {
		ifTok := p.advance()
		p.expect("NOT", "after IF")
		p.expect("EXISTS", "after IF NOT")
		if orReplace {
			p.fail(ifTok, "use either CREATE OR REPLACE TABLE or CREATE TABLE IF NOT EXISTS",
				"OR REPLACE and IF NOT EXISTS cannot be used together")
		}
		s.IfNotExists = true
	}
	s.Name = p.name("a table name", "after CREATE TABLE")
	if p.atOp("(") {
		open := p.advance()
		for {
			s.Columns = append(s.Columns, p.columnDef())
			if p.acceptOp(",") {
				continue
			}
			if p.atIdent() {
				p.fail(p.tok(), "separate column definitions with ','",
					"expected ',' or ')' after the definition of column %s, found %s",
					quoteIdent(s.Columns[len(s.Columns)-1].Name), p.tok().describe())
			}
			break
		}
		p.closeParen(open, "the column list")
	}
	seen := map[string]bool{}
	once := func(t token, clause string) {
		if seen[clause] {
			p.fail(t, "", "%s is given twice", clause)
		}
		seen[clause] = true
	}
	for {
		t := p.tok()
		switch {
		case t.is("USING"):
			once(t, "USING")
			p.advance()
			s.Provider, _ = p.ident("a table provider", "after USING")
		case t.is("PARTITIONED"):
			once(t, "PARTITIONED BY")
			p.advance()
			p.expect("BY", "after PARTITIONED")
			s.Partitioning = p.partitionFields()
		case t.is("COMMENT"):
			once(t, "COMMENT")
			p.advance()
			s.Comment = p.stringLit("a comment string", "after COMMENT")
		case t.is("LOCATION"):
			once(t, "LOCATION")
			p.advance()
			s.Location = p.stringLit("a location string", "after LOCATION")
		case t.is("TBLPROPERTIES"):
			once(t, "TBLPROPERTIES")
			p.advance()
			s.Properties = p.properties("TBLPROPERTIES")
		case t.is("AS"):
			p.advance()
			s.AsSelect = p.query()
			return s
		default:
			if len(s.Columns) == 0 && s.AsSelect == nil {
				p.failAt(s.Name.At, "list the columns, such as CREATE TABLE t (id bigint, name string) USING iceberg, or add AS SELECT ...",
					"CREATE TABLE %s has no columns", s.Name)
			}
			return s
		}
	}
}

// columnDef parses name type [NOT NULL] [COMMENT 'text'] (options in any
// order).
func (p *parser) columnDef() *ColumnDef {
	if p.atOp(")") && p.prev().isOp(",") {
		p.expected("a column name", "in the column list", "remove the trailing comma before ')'")
	}
	name, pos := p.ident("a column name", "in the column list")
	if p.atOp(",") || p.atOp(")") {
		p.expected("a type", "for column "+quoteIdent(name), "write each column as name type, such as "+quoteIdent(name)+" string")
	}
	c := &ColumnDef{Name: name, Type: p.dataType(), At: pos}
	for {
		switch {
		case p.atSeq("NOT", "NULL"):
			p.acceptSeq("NOT", "NULL")
			c.NotNull = true
		case p.accept("COMMENT"):
			c.Comment = p.stringLit("a comment string", "after COMMENT")
		default:
			return c
		}
	}
}

// partitionTransforms lists the transforms PARTITIONED BY accepts and
// whether they take a width.
var partitionTransforms = map[string]bool{
	"years": false, "year": false, "months": false, "month": false,
	"days": false, "day": false, "date": false, "hours": false, "hour": false, "date_hour": false,
	"bucket": true, "truncate": true,
}

const partitionHint = "partition by columns or transforms: col, years(col), months(col), days(col), hours(col), bucket(n, col), truncate(n, col)"

// partitionFields parses ( field, ... ) after PARTITIONED BY.
func (p *parser) partitionFields() []*PartitionField {
	open := p.expectOp("(", "after PARTITIONED BY")
	var fields []*PartitionField
	for {
		fields = append(fields, p.partitionField())
		if !p.acceptOp(",") {
			break
		}
	}
	p.closeParen(open, "PARTITIONED BY")
	return fields
}

// partitionField parses col, transform(col), bucket(n, col) or
// truncate(n, col) (also written truncate(col, n)).
func (p *parser) partitionField() *PartitionField {
	t := p.tok()
	name, pos := p.ident("a column or partition transform", "in PARTITIONED BY")
	if !p.atOp("(") {
		for p.acceptOp(".") {
			name += "." + p.anyIdent("a field name", "after '.'")
		}
		return &PartitionField{Transform: "identity", Column: name, At: pos}
	}
	fn := strings.ToLower(name)
	takesWidth, ok := partitionTransforms[fn]
	if !ok {
		p.fail(t, partitionHint, "unknown partition transform %s", name)
	}
	open := p.advance()
	f := &PartitionField{Transform: fn, At: pos}
	if takesWidth {
		if p.tok().kind == tokNumber {
			f.Width = p.partitionWidth(fn)
			p.expectOp(",", "after the width of "+fn)
			f.Column = p.partitionColumn(fn)
		} else {
			f.Column = p.partitionColumn(fn)
			p.expectOp(",", "after the column of "+fn)
			f.Width = p.partitionWidth(fn)
		}
	} else {
		f.Column = p.partitionColumn(fn)
	}
	p.closeParen(open, fn+"(...)")
	return f
}

func (p *parser) partitionColumn(fn string) string {
	col, _ := p.ident("a column name", "in "+fn+"(...)")
	for p.acceptOp(".") {
		col += "." + p.anyIdent("a field name", "after '.'")
	}
	return col
}

func (p *parser) partitionWidth(fn string) int {
	t := p.tok()
	if t.kind != tokNumber {
		p.expected("a positive integer", "as the width of "+fn, partitionHint)
	}
	p.advance()
	n, err := strconv.Atoi(t.text)
	if err != nil || n <= 0 {
		p.fail(t, partitionHint, "the width of %s must be a positive integer, found %s", fn, t.text)
	}
	return n
}

// properties parses ( key [=] value, ... ), keys being strings or dotted
// names, values strings, numbers or booleans.
func (p *parser) properties(clause string) []*Property {
	open := p.expectOp("(", "after "+clause)
	var props []*Property
	for !p.atOp(")") {
		if len(props) > 0 {
			p.expectOp(",", "between "+clause+" entries")
		}
		kt := p.tok()
		var key string
		switch kt.kind {
		case tokString:
			key = p.stringLit("", "")
		case tokIdent, tokQuotedIdent:
			key = p.anyIdent("a property key", "")
			for p.acceptOp(".") {
				key += "." + p.anyIdent("a property key part", "after '.'")
			}
		default:
			p.expected("a property key", "in "+clause, "write properties as ('key' = 'value', ...)")
		}
		p.acceptOp("=")
		vt := p.tok()
		var val string
		switch {
		case vt.kind == tokString:
			val = p.stringLit("", "")
		case vt.kind == tokNumber:
			val = p.advance().text
		case vt.is("TRUE") || vt.is("FALSE"):
			val = strings.ToLower(p.advance().text)
		default:
			p.expected("a property value", "for key "+quoteString(key), "write properties as ('key' = 'value', ...)")
		}
		props = append(props, &Property{Key: key, Value: val, At: kt.pos})
	}
	p.closeParen(open, clause)
	return props
}

// createNamespace parses the rest of CREATE NAMESPACE|SCHEMA|DATABASE.
func (p *parser) createNamespace(kw token) *CreateNamespace {
	p.advance()
	s := &CreateNamespace{At: kw.pos}
	if p.at("IF") {
		p.advance()
		p.expect("NOT", "after IF")
		p.expect("EXISTS", "after IF NOT")
		s.IfNotExists = true
	}
	s.Name = p.name("a namespace name", "after CREATE NAMESPACE")
	for {
		switch {
		case p.accept("COMMENT"):
			s.Comment = p.stringLit("a comment string", "after COMMENT")
		case p.accept("LOCATION"):
			s.Location = p.stringLit("a location string", "after LOCATION")
		case p.at("WITH"):
			p.advance()
			if !p.accept("DBPROPERTIES") && !p.accept("PROPERTIES") {
				p.expected("DBPROPERTIES or PROPERTIES", "after WITH", "")
			}
			s.Properties = append(s.Properties, p.properties("WITH DBPROPERTIES")...)
		default:
			return s
		}
	}
}

// drop parses DROP TABLE and DROP NAMESPACE|SCHEMA|DATABASE.
func (p *parser) drop() Statement {
	kw := p.advance()
	switch {
	case p.at("TABLE"):
		p.advance()
		s := &DropTable{At: kw.pos}
		s.IfExists = p.acceptSeq("IF", "EXISTS")
		s.Name = p.name("a table name", "after DROP TABLE")
		s.Purge = p.accept("PURGE")
		return s
	case p.at("NAMESPACE") || p.at("SCHEMA") || p.at("DATABASE"):
		p.advance()
		s := &DropNamespace{At: kw.pos}
		s.IfExists = p.acceptSeq("IF", "EXISTS")
		s.Name = p.name("a namespace name", "after DROP NAMESPACE")
		if p.accept("CASCADE") {
			s.Cascade = true
		} else {
			p.accept("RESTRICT")
		}
		return s
	}
	p.expected("TABLE, NAMESPACE, SCHEMA or DATABASE", "after DROP", "")
	return nil
}
