package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// MergeBuilder states a MERGE INTO in Go, as Delta's and Iceberg's merge
// builders do; it runs the same implementation as the SQL statement:
//
//	res, err := s.MergeInto("lakehouse.silver.online_retail_cdc").As("t").
//		Using(batch, "s").
//		On("t.invoice = s.invoice AND t.stock_code = s.stock_code").
//		WhenMatchedDelete("s.op = 'd'").
//		WhenMatchedUpdateAll().
//		WhenNotMatchedInsertAll("s.op != 'd'").
//		Execute(ctx)
//
// Conditions and values are SQL expressions that may name target columns
// (t.col) and source columns (s.col). Clauses of one kind apply in the
// order given; the first whose condition holds wins, and only the last
// clause of a kind may omit its condition. The first error met is
// reported by Execute.
type MergeBuilder struct {
	s           *Session
	target      string
	targetAlias string
	source      *DataFrame
	sourceAlias string
	on          parser.Expr
	clauses     []*parser.MergeClause
	allowDup    bool
	err         error
}

// MergeInto starts a merge into the lakehouse table name.
func (s *Session) MergeInto(table string) *MergeBuilder {
	return &MergeBuilder{s: s, target: table, targetAlias: "t", sourceAlias: "s"}
}

// As sets the target's alias ("t" by default).
func (m *MergeBuilder) As(alias string) *MergeBuilder { m.targetAlias = alias; return m }

// Using sets the source rows and their alias ("s" when alias is "").
func (m *MergeBuilder) Using(source *DataFrame, alias string) *MergeBuilder {
	m.source = source
	if alias != "" {
		m.sourceAlias = alias
	}
	return m
}

// On sets the match condition: a conjunction of equalities between target
// and source columns, the merge key.
func (m *MergeBuilder) On(condition string) *MergeBuilder {
	m.on = m.parse(condition)
	return m
}

// WhenMatchedUpdateAll updates every target column from the source column
// of the same name (UPDATE SET *), for matched rows meeting the optional
// condition.
func (m *MergeBuilder) WhenMatchedUpdateAll(condition ...string) *MergeBuilder {
	return m.add(parser.WhenMatched, parser.UpdateAll, condition)
}

// WhenMatchedUpdate updates the listed target columns (UPDATE SET col =
// expr, ...), for matched rows meeting the optional condition.
func (m *MergeBuilder) WhenMatchedUpdate(set map[string]string, condition ...string) *MergeBuilder {
	c := m.add(parser.WhenMatched, parser.UpdateSet, condition)
	last := m.clauses[len(m.clauses)-1]
	for _, col := range sortedKeys(set) {
		last.Set = append(last.Set, &parser.Assignment{Column: m.column(col), Value: m.parse(set[col])})
	}
	return c
}

// WhenMatchedDelete deletes matched target rows meeting the optional condition.
func (m *MergeBuilder) WhenMatchedDelete(condition ...string) *MergeBuilder {
	return m.add(parser.WhenMatched, parser.DeleteRow, condition)
}

// WhenNotMatchedInsertAll inserts source rows without a match (INSERT *),
// when they meet the optional condition.
func (m *MergeBuilder) WhenNotMatchedInsertAll(condition ...string) *MergeBuilder {
	return m.add(parser.WhenNotMatched, parser.InsertAll, condition)
}

// WhenNotMatchedInsert inserts source rows without a match with the given
// column values (INSERT (cols) VALUES (exprs)); other columns are null.
func (m *MergeBuilder) WhenNotMatchedInsert(values map[string]string, condition ...string) *MergeBuilder {
	c := m.add(parser.WhenNotMatched, parser.InsertValues, condition)
	last := m.clauses[len(m.clauses)-1]
	for _, col := range sortedKeys(values) {
		last.Columns = append(last.Columns, m.column(col))
		last.Values = append(last.Values, m.parse(values[col]))
	}
	return c
}

// WhenNotMatchedBySourceDelete deletes target rows no source row matches,
// when they meet the optional condition (every data file is rewritten
// that holds such a row).
func (m *MergeBuilder) WhenNotMatchedBySourceDelete(condition ...string) *MergeBuilder {
	return m.add(parser.WhenNotMatchedBySource, parser.DeleteRow, condition)
}

// AllowDuplicateInserts lets this merge insert several source rows with one
// key that matched no target row, as Spark does; by default that fails
// with MERGE_DUPLICATE_INSERT (see PropMergeAllowDuplicateInserts).
func (m *MergeBuilder) AllowDuplicateInserts() *MergeBuilder { m.allowDup = true; return m }

// Execute runs the merge (see Session.SQL's MERGE INTO).
func (m *MergeBuilder) Execute(ctx context.Context) (MergeResult, error) {
	if m.err != nil {
		return MergeResult{}, fmt.Errorf("merge into %s: %w", m.target, m.err)
	}
	if m.source == nil {
		return MergeResult{}, fmt.Errorf("merge into %s: no source: call Using(df, alias)", m.target)
	}
	if m.on == nil {
		return MergeResult{}, fmt.Errorf("merge into %s: no match condition: call On(\"t.id = s.id\")", m.target)
	}
	if len(m.clauses) == 0 {
		return MergeResult{}, fmt.Errorf("merge into %s: no WHEN clause: add WhenMatchedUpdateAll(), WhenNotMatchedInsertAll()...", m.target)
	}
	open := map[parser.MergeMatch]bool{}
	for _, c := range m.clauses {
		if open[c.Match] {
			return MergeResult{}, fmt.Errorf("merge into %s: a %s clause follows one without a condition and can never apply; only the last clause of a kind may omit its condition", m.target, c.Match)
		}
		if c.Cond == nil {
			open[c.Match] = true
		}
	}
	spec := sql.MergeSpec{Target: m.target, TargetAlias: m.targetAlias, SourceAlias: m.sourceAlias, On: m.on, Clauses: m.clauses, AllowDuplicateInserts: m.allowDup}
	return m.s.merge(ctx, spec, m.source)
}

func (m *MergeBuilder) add(match parser.MergeMatch, action parser.MergeAction, condition []string) *MergeBuilder {
	c := &parser.MergeClause{Match: match, Action: action}
	if len(condition) > 1 {
		m.fail(fmt.Errorf("%s takes at most one condition, got %d", match, len(condition)))
	}
	if len(condition) == 1 && condition[0] != "" {
		c.Cond = m.parse(condition[0])
	}
	m.clauses = append(m.clauses, c)
	return m
}

func (m *MergeBuilder) parse(text string) parser.Expr {
	e, err := parser.ParseExpr(text)
	if err != nil {
		m.fail(fmt.Errorf("%q: %w", text, err))
		return &parser.Literal{Kind: parser.NullLiteral}
	}
	return e
}

func (m *MergeBuilder) column(name string) *parser.ColumnRef {
	e := m.parse(name)
	c, ok := e.(*parser.ColumnRef)
	if !ok {
		m.fail(fmt.Errorf("%q is not a column name", name))
		return &parser.ColumnRef{Parts: []string{name}}
	}
	return c
}

func (m *MergeBuilder) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
