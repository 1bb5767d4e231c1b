package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/sql"
	"github.com/atlas-lakehouse/atlas/atlas/sql/parser"
)

// SQL runs one SQL statement, as spark.sql(query), and returns its result
// as a batch DataFrame:
//
//   - SELECT (projection, WHERE, GROUP BY with count/sum/min/max/avg,
//     HAVING, DISTINCT, ORDER BY, LIMIT) over lakehouse tables
//     (lakehouse.silver.orders, read at their current snapshot), temp views
//     (DataFrame.CreateOrReplaceTempView) and memory-sink tables: the rows;
//   - MERGE INTO: one row num_affected_rows, num_updated_rows,
//     num_deleted_rows, num_inserted_rows (see Session.MergeInto for the
//     semantics; the same implementation runs both);
//   - INSERT INTO|OVERWRITE ... VALUES | SELECT: num_affected_rows,
//     num_inserted_rows;
//   - CREATE TABLE [IF NOT EXISTS] ... USING iceberg [PARTITIONED BY (...)]
//     [AS SELECT], DROP TABLE, CREATE/DROP NAMESPACE: no rows;
//   - SHOW TABLES [IN ns], SHOW NAMESPACES, DESCRIBE [TABLE] name,
//     DESCRIBE HISTORY name: their listings.
//
// Statements other than SELECT run at once. Syntax and planning errors
// name the line and column of the offending text. Inside a foreachBatch
// callback, MERGE and INSERT are exactly-once (see ForeachBatch).
func (s *Session) SQL(query string) (*DataFrame, error) {
	return s.SQLContext(context.Background(), query)
}

// SQLContext is SQL with a context bounding the statement's I/O.
func (s *Session) SQLContext(ctx context.Context, query string) (*DataFrame, error) {
	stmt, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	switch st := stmt.(type) {
	case *parser.Select:
		return s.sqlSelect(ctx, st)
	case *parser.Merge:
		return s.sqlMerge(ctx, st)
	case *parser.Insert:
		return s.sqlInsert(ctx, st)
	case *parser.CreateTable:
		return s.sqlCreateTable(ctx, st)
	case *parser.DropTable:
		return s.sqlDropTable(ctx, st)
	case *parser.CreateNamespace:
		return s.sqlCreateNamespace(ctx, st)
	case *parser.DropNamespace:
		return s.sqlDropNamespace(ctx, st)
	case *parser.ShowTables:
		return s.sqlShowTables(ctx, st)
	case *parser.ShowNamespaces:
		return s.sqlShowNamespaces(ctx, st)
	case *parser.Describe:
		return s.sqlDescribe(ctx, st)
	case *parser.CallProcedure:
		return s.sqlCall(ctx, st)
	}
	p := stmt.Pos()
	return nil, &sql.Error{Line: p.Line, Col: p.Col, Msg: fmt.Sprintf("%T statements are not supported yet; use MERGE INTO for row-level changes", stmt)}
}

// relations resolves FROM names through Session.Table's lookup.
func (s *Session) relations(ctx context.Context) sql.Relations {
	return func(name *parser.Name) (plan.Node, error) {
		df, err := s.table(ctx, sql.TableName(name))
		if err != nil {
			return nil, atName(name, sql.TableName(name), err)
		}
		return df.node, nil
	}
}

// atName reports err, met resolving the table or view name written at n,
// at n's line and column when the name is at fault (no such table, view
// or namespace; a malformed name; a table that already exists). Other
// errors (the catalog or the storage failing: credentials, network) are
// not about the SQL text: they name the table but carry no position.
func atName(n parser.Node, name string, err error) error {
	if isNameError(name, err) {
		return errAtNode(n, "%v", err)
	}
	return fmt.Errorf("table %s: %w", name, err)
}

func isNameError(name string, err error) bool {
	if errors.Is(err, lakehouse.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) || errors.Is(err, lakehouse.ErrTableExists) {
		return true
	}
	if !strings.Contains(name, ".") {
		return true // Session.table: no temp view or memory table of that name
	}
	_, _, perr := lakehouse.ParseIdent(name)
	return perr != nil
}

func (s *Session) sqlSelect(ctx context.Context, st *parser.Select) (*DataFrame, error) {
	n, err := sql.PlanSelect(st, s.relations(ctx))
	if err != nil {
		return nil, err
	}
	return &DataFrame{s: s, node: n}, nil
}

func (s *Session) sqlMerge(ctx context.Context, st *parser.Merge) (*DataFrame, error) {
	spec := sql.MergeSpec{
		Target:      sql.TableName(st.Target.Name),
		TargetAlias: aliasOr(st.Target.Alias, st.Target.Name),
		On:          st.On,
		Clauses:     st.Clauses,
		At:          st.At,
	}
	var source *DataFrame
	switch src := st.Source.(type) {
	case *parser.TableRef:
		df, err := s.table(ctx, sql.TableName(src.Name))
		if err != nil {
			return nil, atName(src, sql.TableName(src.Name), err)
		}
		source, spec.SourceAlias = df, aliasOr(src.Alias, src.Name)
	case *parser.SubqueryRef:
		n, err := sql.PlanSelect(src.Query, s.relations(ctx))
		if err != nil {
			return nil, err
		}
		source, spec.SourceAlias = &DataFrame{s: s, node: n}, src.Alias
		if spec.SourceAlias == "" {
			spec.SourceAlias = "source"
		}
	default:
		p := st.Source.Pos()
		return nil, &sql.Error{Line: p.Line, Col: p.Col, Msg: "MERGE USING takes a table, a view or a parenthesised query"}
	}
	res, err := s.merge(ctx, spec, source)
	if err != nil {
		return nil, err
	}
	return s.mergeResultFrame(res), nil
}

func aliasOr(alias string, name *parser.Name) string {
	if alias != "" {
		return alias
	}
	return name.Parts[len(name.Parts)-1]
}

// rowsFrame is a batch DataFrame holding rows of Go values (see appendValue).
func (s *Session) rowsFrame(name string, schema *arrow.Schema, rows [][]any) (*DataFrame, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			if err := appendValue(b.Field(i), v); err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", name, schema.Field(i).Name, err)
			}
		}
	}
	rec := b.NewRecordBatch()
	return &DataFrame{s: s, node: &plan.LocalScan{Name: name, Out: schema, Records: []arrow.RecordBatch{rec}}}, nil
}

// emptyFrame is the result of a statement without rows (DDL).
func (s *Session) emptyFrame(name string) *DataFrame {
	schema := arrow.NewSchema(nil, nil)
	return &DataFrame{s: s, node: &plan.LocalScan{Name: name, Out: schema}}
}
