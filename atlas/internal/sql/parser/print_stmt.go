package parser

import (
	"strings"
)

// sqlWriter accumulates SQL text for statements.
type sqlWriter struct {
	strings.Builder
}

func (w *sqlWriter) s(ss ...string) *sqlWriter {
	for _, s := range ss {
		w.WriteString(s)
	}
	return w
}

func (w *sqlWriter) exprs(es []Expr) {
	for i, e := range es {
		if i > 0 {
			w.s(", ")
		}
		w.s(e.SQL())
	}
}

func (w *sqlWriter) columns(cs []*ColumnRef) {
	for i, c := range cs {
		if i > 0 {
			w.s(", ")
		}
		w.s(c.SQL())
	}
}

func (w *sqlWriter) properties(ps []*Property) {
	w.s("(")
	for i, p := range ps {
		if i > 0 {
			w.s(", ")
		}
		w.s(quoteString(p.Key), " = ", quoteString(p.Value))
	}
	w.s(")")
}

func (w *sqlWriter) assignments(as []*Assignment) {
	for i, a := range as {
		if i > 0 {
			w.s(", ")
		}
		w.s(a.Column.SQL(), " = ", a.Value.SQL())
	}
}

// String renders the statement as SQL.
func (s *CreateTable) String() string {
	var w sqlWriter
	w.s("CREATE ")
	if s.OrReplace {
		w.s("OR REPLACE ")
	}
	w.s("TABLE ")
	if s.IfNotExists {
		w.s("IF NOT EXISTS ")
	}
	w.s(s.Name.String())
	if len(s.Columns) > 0 {
		w.s(" (")
		for i, c := range s.Columns {
			if i > 0 {
				w.s(", ")
			}
			w.s(quoteIdent(c.Name), " ", c.Type)
			if c.NotNull {
				w.s(" NOT NULL")
			}
			if c.Comment != "" {
				w.s(" COMMENT ", quoteString(c.Comment))
			}
		}
		w.s(")")
	}
	if s.Provider != "" {
		w.s(" USING ", quoteIdent(s.Provider))
	}
	if len(s.Partitioning) > 0 {
		w.s(" PARTITIONED BY (")
		for i, f := range s.Partitioning {
			if i > 0 {
				w.s(", ")
			}
			w.s(f.String())
		}
		w.s(")")
	}
	if s.Comment != "" {
		w.s(" COMMENT ", quoteString(s.Comment))
	}
	if s.Location != "" {
		w.s(" LOCATION ", quoteString(s.Location))
	}
	if len(s.Properties) > 0 {
		w.s(" TBLPROPERTIES ")
		w.properties(s.Properties)
	}
	if s.AsSelect != nil {
		w.s(" AS ", s.AsSelect.String())
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *DropTable) String() string {
	var w sqlWriter
	w.s("DROP TABLE ")
	if s.IfExists {
		w.s("IF EXISTS ")
	}
	w.s(s.Name.String())
	if s.Purge {
		w.s(" PURGE")
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *CreateNamespace) String() string {
	var w sqlWriter
	w.s("CREATE NAMESPACE ")
	if s.IfNotExists {
		w.s("IF NOT EXISTS ")
	}
	w.s(s.Name.String())
	if s.Comment != "" {
		w.s(" COMMENT ", quoteString(s.Comment))
	}
	if s.Location != "" {
		w.s(" LOCATION ", quoteString(s.Location))
	}
	if len(s.Properties) > 0 {
		w.s(" WITH DBPROPERTIES ")
		w.properties(s.Properties)
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *DropNamespace) String() string {
	var w sqlWriter
	w.s("DROP NAMESPACE ")
	if s.IfExists {
		w.s("IF EXISTS ")
	}
	w.s(s.Name.String())
	if s.Cascade {
		w.s(" CASCADE")
	}
	return w.String()
}

// String renders the relation as SQL.
func (r *TableRef) String() string {
	s := r.Name.String()
	if r.Version != nil {
		s += " VERSION AS OF " + r.Version.SQL()
	}
	if r.Timestamp != nil {
		s += " TIMESTAMP AS OF " + r.Timestamp.SQL()
	}
	if r.Alias != "" {
		s += " AS " + quoteIdent(r.Alias)
	}
	return s
}

// String renders the relation as SQL.
func (r *SubqueryRef) String() string {
	s := "(" + r.Query.String() + ")"
	if r.Alias != "" {
		s += " AS " + quoteIdent(r.Alias)
	}
	return s
}

// String renders the join as SQL.
func (r *Join) String() string {
	var w sqlWriter
	if r.Comma {
		// FROM a, b JOIN c ON ...: the comma binds more loosely than
		// JOIN, and a parenthesised join is not a relation the parser
		// reads, so the comma is printed back.
		w.s(r.Left.String(), ", ", r.Right.String())
		return w.String()
	}
	w.s(r.Left.String(), " ", string(r.Type), " JOIN ", r.Right.String())
	switch {
	case r.On != nil:
		w.s(" ON ", r.On.SQL())
	case len(r.Using) > 0:
		w.s(" USING (")
		for i, u := range r.Using {
			if i > 0 {
				w.s(", ")
			}
			w.s(quoteIdent(u))
		}
		w.s(")")
	}
	return w.String()
}

// String renders the query as SQL.
func (s *Select) String() string {
	var w sqlWriter
	for i, c := range s.With {
		if i == 0 {
			w.s("WITH ")
		} else {
			w.s(", ")
		}
		w.s(quoteIdent(c.Name), " AS (", c.Query.String(), ")")
	}
	if len(s.With) > 0 {
		w.s(" ")
	}
	w.s("SELECT ")
	if s.Distinct {
		w.s("DISTINCT ")
	}
	for i, it := range s.Items {
		if i > 0 {
			w.s(", ")
		}
		w.s(it.Expr.SQL())
		if it.Alias != "" {
			w.s(" AS ", quoteIdent(it.Alias))
		}
	}
	if s.From != nil {
		w.s(" FROM ", s.From.String())
	}
	if s.Where != nil {
		w.s(" WHERE ", s.Where.SQL())
	}
	if len(s.GroupBy) > 0 {
		w.s(" GROUP BY ")
		w.exprs(s.GroupBy)
	}
	if s.Having != nil {
		w.s(" HAVING ", s.Having.SQL())
	}
	for _, op := range s.SetOps {
		w.s(" UNION ")
		if op.All {
			w.s("ALL ")
		}
		q := op.Query.String()
		if len(op.Query.SetOps) > 0 || len(op.Query.OrderBy) > 0 || op.Query.Limit != nil || len(op.Query.With) > 0 {
			q = "(" + q + ")"
		}
		w.s(q)
	}
	if len(s.OrderBy) > 0 {
		w.s(" ORDER BY ")
		for i, o := range s.OrderBy {
			if i > 0 {
				w.s(", ")
			}
			w.s(o.Expr.SQL())
			if o.Desc {
				w.s(" DESC")
			}
			switch o.Nulls {
			case NullsFirst:
				w.s(" NULLS FIRST")
			case NullsLast:
				w.s(" NULLS LAST")
			}
		}
	}
	if s.Limit != nil {
		w.s(" LIMIT ", s.Limit.SQL())
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *Merge) String() string {
	var w sqlWriter
	w.s("MERGE INTO ", s.Target.String(), " USING ", s.Source.String(), " ON ", s.On.SQL())
	for _, c := range s.Clauses {
		w.s(" ", c.String())
	}
	return w.String()
}

// String renders the clause as SQL.
func (c *MergeClause) String() string {
	var w sqlWriter
	w.s(c.Match.String())
	if c.Cond != nil {
		w.s(" AND ", c.Cond.SQL())
	}
	w.s(" THEN ")
	switch c.Action {
	case UpdateAll:
		w.s("UPDATE SET *")
	case UpdateSet:
		w.s("UPDATE SET ")
		w.assignments(c.Set)
	case DeleteRow:
		w.s("DELETE")
	case InsertAll:
		w.s("INSERT *")
	case InsertValues:
		w.s("INSERT (")
		w.columns(c.Columns)
		w.s(") VALUES (")
		w.exprs(c.Values)
		w.s(")")
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *ShowTables) String() string { return showString("TABLES", s.Namespace, s.Pattern) }

// String renders the statement as SQL.
func (s *ShowNamespaces) String() string { return showString("NAMESPACES", s.Parent, s.Pattern) }

// showString renders SHOW what [IN in] [LIKE 'pattern'].
func showString(what string, in *Name, pattern string) string {
	var w sqlWriter
	w.s("SHOW ", what)
	if in != nil {
		w.s(" IN ", in.String())
	}
	if pattern != "" {
		w.s(" LIKE ", quoteString(pattern))
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *Describe) String() string {
	var w sqlWriter
	w.s("DESCRIBE ")
	switch {
	case s.Kind == DescribeHistory:
		w.s("HISTORY ")
	case s.Extended:
		w.s("TABLE EXTENDED ")
	default:
		w.s("TABLE ")
	}
	w.s(s.Name.String())
	return w.String()
}

// String renders the statement as SQL.
func (s *Insert) String() string {
	var w sqlWriter
	if s.Overwrite {
		w.s("INSERT OVERWRITE TABLE ")
	} else {
		w.s("INSERT INTO ")
	}
	w.s(s.Table.String())
	if len(s.Columns) > 0 {
		w.s(" (")
		w.columns(s.Columns)
		w.s(")")
	}
	if s.Query != nil {
		w.s(" ", s.Query.String())
		return w.String()
	}
	w.s(" VALUES ")
	for i, row := range s.Rows {
		if i > 0 {
			w.s(", ")
		}
		w.s("(")
		w.exprs(row)
		w.s(")")
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *Delete) String() string {
	var w sqlWriter
	w.s("DELETE FROM ", s.Table.String())
	if s.Where != nil {
		w.s(" WHERE ", s.Where.SQL())
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *Update) String() string {
	var w sqlWriter
	w.s("UPDATE ", s.Table.String(), " SET ")
	w.assignments(s.Set)
	if s.Where != nil {
		w.s(" WHERE ", s.Where.SQL())
	}
	return w.String()
}

// String renders the statement as SQL.
func (s *CallProcedure) String() string {
	var w sqlWriter
	w.s("CALL ", s.Procedure.String(), "(")
	for i, a := range s.Args {
		if i > 0 {
			w.s(", ")
		}
		if a.Name != "" {
			w.s(quoteIdent(a.Name), " => ")
		}
		w.s(a.Value.SQL())
	}
	w.s(")")
	return w.String()
}

// String renders the inline table as SQL.
func (r *ValuesRef) String() string {
	var w sqlWriter
	w.s("VALUES ")
	for i, row := range r.Rows {
		if i > 0 {
			w.s(", ")
		}
		w.s("(")
		for j, e := range row {
			if j > 0 {
				w.s(", ")
			}
			w.s(e.SQL())
		}
		w.s(")")
	}
	if r.Alias != "" {
		w.s(" AS ", quoteIdent(r.Alias))
		if len(r.Columns) > 0 {
			w.s("(")
			for i, c := range r.Columns {
				if i > 0 {
					w.s(", ")
				}
				w.s(quoteIdent(c))
			}
			w.s(")")
		}
	}
	return w.String()
}
