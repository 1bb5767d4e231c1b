package atlas

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// mergeSourceView is the temp view a MergeBuilder's source is published
// as; one per session, replaced by the next merge.
const mergeSourceView = "__atlas_merge_source"

// MergeResult is what a MERGE changed, from the statement's result row.
type MergeResult struct {
	NumAffectedRows int64 // updated + deleted + inserted
	NumUpdatedRows  int64
	NumDeletedRows  int64
	NumInsertedRows int64
}

// MergeBuilder states a MERGE INTO in Go, as Delta's and Iceberg's merge
// builders do, and runs it as the SQL statement it spells (so a merge in
// a foreachBatch function is exactly-once like spark.SQL's):
//
//	res, err := spark.MergeInto("lakehouse.silver.online_retail_cdc").As("t").
//		Using(batch, "s").
//		On("t.invoice = s.invoice AND t.stock_code = s.stock_code").
//		WhenMatchedDelete("s.op = 'd'").
//		WhenMatchedUpdateAll().
//		WhenNotMatchedInsertAll("s.op != 'd'").
//		Execute(ctx)
//
// Conditions and values are SQL expressions over target (t.col) and
// source (s.col) columns; the server parses them and reports errors.
type MergeBuilder struct {
	s           *Session
	target      string
	targetAlias string
	source      *DataFrame
	sourceAlias string
	on          string
	clauses     []string
	err         error
}

// MergeInto starts a merge into the table name.
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

// On sets the match condition.
func (m *MergeBuilder) On(condition string) *MergeBuilder { m.on = condition; return m }

func (m *MergeBuilder) clause(when, action string, condition []string) *MergeBuilder {
	switch {
	case len(condition) > 1:
		m.fail(fmt.Errorf("%s takes at most one condition, got %d", when, len(condition)))
	case len(condition) == 1 && condition[0] != "":
		when += " AND " + condition[0]
	}
	m.clauses = append(m.clauses, when+" THEN "+action)
	return m
}

// WhenMatchedUpdateAll updates every column of matched rows from the source.
func (m *MergeBuilder) WhenMatchedUpdateAll(condition ...string) *MergeBuilder {
	return m.clause("WHEN MATCHED", "UPDATE SET *", condition)
}

// WhenMatchedUpdate sets the given target columns to SQL expressions.
func (m *MergeBuilder) WhenMatchedUpdate(set map[string]string, condition ...string) *MergeBuilder {
	var parts []string
	for _, col := range sortedKeys(set) {
		parts = append(parts, col+" = "+set[col])
	}
	return m.clause("WHEN MATCHED", "UPDATE SET "+strings.Join(parts, ", "), condition)
}

// WhenMatchedDelete deletes matched rows.
func (m *MergeBuilder) WhenMatchedDelete(condition ...string) *MergeBuilder {
	return m.clause("WHEN MATCHED", "DELETE", condition)
}

// WhenNotMatchedInsertAll inserts unmatched source rows as they are.
func (m *MergeBuilder) WhenNotMatchedInsertAll(condition ...string) *MergeBuilder {
	return m.clause("WHEN NOT MATCHED", "INSERT *", condition)
}

// WhenNotMatchedInsert inserts unmatched source rows with the given
// column values (SQL expressions).
func (m *MergeBuilder) WhenNotMatchedInsert(values map[string]string, condition ...string) *MergeBuilder {
	cols := sortedKeys(values)
	vals := make([]string, len(cols))
	for i, c := range cols {
		vals[i] = values[c]
	}
	return m.clause("WHEN NOT MATCHED", "INSERT ("+strings.Join(cols, ", ")+") VALUES ("+strings.Join(vals, ", ")+")", condition)
}

// WhenNotMatchedBySourceDelete deletes target rows no source row matches.
func (m *MergeBuilder) WhenNotMatchedBySourceDelete(condition ...string) *MergeBuilder {
	return m.clause("WHEN NOT MATCHED BY SOURCE", "DELETE", condition)
}

func (m *MergeBuilder) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// SQL returns the MERGE statement Execute runs.
func (m *MergeBuilder) SQL() string {
	return fmt.Sprintf("MERGE INTO %s %s\nUSING %s %s\nON %s\n%s", m.target, m.targetAlias,
		mergeSourceView, m.sourceAlias, m.on, strings.Join(m.clauses, "\n"))
}

// Execute publishes the source as a temp view and runs the MERGE.
func (m *MergeBuilder) Execute(ctx context.Context) (MergeResult, error) {
	switch {
	case m.err != nil:
		return MergeResult{}, fmt.Errorf("merge into %s: %w", m.target, m.err)
	case m.source == nil:
		return MergeResult{}, fmt.Errorf("merge into %s: no source: call Using(df, alias)", m.target)
	case m.on == "":
		return MergeResult{}, fmt.Errorf("merge into %s: no match condition: call On(\"t.id = s.id\")", m.target)
	case len(m.clauses) == 0:
		return MergeResult{}, fmt.Errorf("merge into %s: no WHEN clause: add WhenMatchedUpdateAll(), WhenNotMatchedInsertAll()...", m.target)
	}
	m.s.mergeMu.Lock()
	defer m.s.mergeMu.Unlock()
	if err := m.source.CreateOrReplaceTempView(mergeSourceView); err != nil {
		return MergeResult{}, fmt.Errorf("merge into %s: source: %w", m.target, err)
	}
	res, err := m.s.SQLContext(ctx, m.SQL())
	if err != nil {
		return MergeResult{}, fmt.Errorf("merge into %s: %w", m.target, err)
	}
	rows, err := res.Rows(ctx)
	if err != nil {
		return MergeResult{}, fmt.Errorf("merge into %s: result: %w", m.target, err)
	}
	if len(rows) != 1 {
		return MergeResult{}, errors.New("merge into " + m.target + ": the server returned no result row")
	}
	n := func(c string) int64 { v, _ := rows[0][c].(int64); return v }
	return MergeResult{NumAffectedRows: n("num_affected_rows"), NumUpdatedRows: n("num_updated_rows"),
		NumDeletedRows: n("num_deleted_rows"), NumInsertedRows: n("num_inserted_rows")}, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
