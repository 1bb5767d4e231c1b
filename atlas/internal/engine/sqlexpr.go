package engine

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// ParseExpr parses a SQL expression ("CAST(value AS STRING)",
// "quantity * price AS amount", "event = 'click'") into a Column, as
// functions.expr in PySpark. Errors give the line and column.
func ParseExpr(s string) (Column, error) { return parseExprWith(parser.Options{}, s) }

// parseExprWith is ParseExpr under a session's parser options (its time
// zone reads TIMESTAMP literals).
func parseExprWith(o parser.Options, s string) (Column, error) {
	item, err := o.ParseSelectItem(s)
	if err != nil {
		return Column{}, err
	}
	if a, ok, err := sql.Agg(item.Expr, item.Alias); ok || err != nil {
		if err != nil {
			return Column{}, err
		}
		return Column{agg: a, e: expr.Lit(nil)}, nil
	}
	e, err := sql.Expr(item.Expr)
	if err != nil {
		return Column{}, err
	}
	if item.Alias != "" {
		e = &expr.Alias{Expr: e, Name: item.Alias}
	}
	return newCol(e), nil
}

// Expr is ParseExpr for use inline; a parse error is kept in the Column
// and reported when the DataFrame runs.
func Expr(s string) Column {
	c, err := ParseExpr(s)
	if err != nil {
		return errCol(err)
	}
	return c
}
