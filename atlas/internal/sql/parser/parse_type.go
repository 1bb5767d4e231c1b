package parser

import (
	"strings"
)

// dataType parses a Spark type and returns it in canonical text: lower
// case, no blanks, struct field names as written.
//
//	type := name [ ( n [, n] ) ] | ARRAY < type > | MAP < type , type >
//	      | STRUCT < [ field [:] type [NOT NULL] [COMMENT 's'] , ... ] >
func (p *parser) dataType() string {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind != tokIdent {
		p.expected("a type", "", "types are names such as string, int, bigint, double, boolean, timestamp, date, decimal(10,2)")
	}
	p.advance()
	name := strings.ToLower(t.text)
	switch name {
	case "array":
		p.expectOp("<", "after ARRAY")
		elem := p.dataType()
		p.expectOp(">", "to close ARRAY<...>")
		return "array<" + elem + ">"
	case "map":
		p.expectOp("<", "after MAP")
		k := p.dataType()
		p.expectOp(",", "between the key and value types of MAP<...>")
		v := p.dataType()
		p.expectOp(">", "to close MAP<...>")
		return "map<" + k + "," + v + ">"
	case "struct":
		p.expectOp("<", "after STRUCT")
		var fields []string
		for !p.atOp(">") {
			if len(fields) > 0 {
				p.expectOp(",", "between STRUCT fields")
			}
			fname := p.anyIdent("a field name", "in STRUCT<...>")
			p.acceptOp(":")
			f := quoteIdent(fname) + ":" + p.dataType()
			if p.acceptSeq("NOT", "NULL") {
				f += " not null"
			}
			if p.accept("COMMENT") {
				f += " comment " + quoteString(p.stringLit("a comment string", "after COMMENT"))
			}
			fields = append(fields, f)
		}
		p.advance()
		return "struct<" + strings.Join(fields, ",") + ">"
	}
	if p.atOp("(") {
		open := p.advance()
		var args []string
		for {
			n := p.tok()
			if n.kind != tokNumber {
				p.expected("a number", "in the parameters of "+name, "")
			}
			p.advance()
			args = append(args, n.text)
			if !p.acceptOp(",") {
				break
			}
		}
		p.closeParen(open, "the type parameters")
		name += "(" + strings.Join(args, ",") + ")"
	}
	return name
}
