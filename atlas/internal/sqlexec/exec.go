// Package sqlexec runs SQL statements for the engine: SELECT is planned
// (package sql) and returned as a plan; MERGE INTO, INSERT, the DDL (CREATE
// and DROP of tables and namespaces, SHOW, DESCRIBE) and CALL of Iceberg's
// procedures run at once and return their result rows as a one-batch plan.
// It reaches the engine's session only through the Session interface: the
// lakehouse, the names it resolves (temp views, memory tables, lakehouse
// tables), the exactly-once key of a write, and MERGE.
package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/merge"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/rowconv"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// Session is what statements need of the engine session that runs them.
type Session interface {
	// Lakehouse returns the session's lakehouse, opened on first use.
	Lakehouse(ctx context.Context) (*lakehouse.Lakehouse, error)
	// Table resolves a temp view, memory table or lakehouse table name to
	// the plan reading it.
	Table(ctx context.Context, name string) (plan.Node, error)
	// TempViews lists the names of the session's temp views.
	TempViews() []string
	// NextWrite returns the exactly-once key of a table write (op names
	// it): empty outside a foreachBatch callback.
	NextWrite(op string) lakehouse.Commit
	// NoteInsert records an INSERT for the foreachBatch callback running
	// now, if any (the live view's write log).
	NoteInsert(table string, inserted int64, skipped bool, d time.Duration)
	// Merge runs a MERGE INTO with the rows of source.
	Merge(ctx context.Context, spec sql.MergeSpec, source plan.Node) (merge.Result, error)
	// CheckPath refuses a file location outside the session's allowed
	// file roots.
	CheckPath(path string) error
}

// Run parses and runs one SQL statement (see Exec).
func Run(ctx context.Context, s Session, query string) (plan.Node, error) {
	stmt, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	return Exec(ctx, s, stmt)
}

// Exec runs one parsed statement and returns its result: the plan of a
// SELECT, or the result rows of any other statement, which runs at once.
// Syntax and planning errors name the line and column of the offending
// text.
func Exec(ctx context.Context, s Session, stmt parser.Statement) (plan.Node, error) {
	switch st := stmt.(type) {
	case *parser.Select:
		return sql.PlanSelect(st, relations(ctx, s))
	case *parser.Merge:
		return mergeStmt(ctx, s, st)
	case *parser.Insert:
		return insert(ctx, s, st)
	case *parser.CreateTable:
		return createTable(ctx, s, st)
	case *parser.DropTable:
		return dropTable(ctx, s, st)
	case *parser.CreateNamespace:
		return createNamespace(ctx, s, st)
	case *parser.DropNamespace:
		return dropNamespace(ctx, s, st)
	case *parser.ShowTables:
		return showTables(ctx, s, st)
	case *parser.ShowNamespaces:
		return showNamespaces(ctx, s, st)
	case *parser.Describe:
		return describe(ctx, s, st)
	case *parser.CallProcedure:
		return call(ctx, s, st)
	case *parser.SetConfig, *parser.ResetConfig:
		p := stmt.Pos()
		return nil, &sql.Error{Line: p.Line, Col: p.Col, Msg: "SET and RESET change a Spark Connect session's settings: run them as a statement of spark.sql on the Atlas server, or use spark.conf.set"}
	}
	p := stmt.Pos()
	return nil, &sql.Error{Line: p.Line, Col: p.Col, Msg: fmt.Sprintf("%T statements are not supported yet; use MERGE INTO for row-level changes", stmt)}
}

// relations resolves FROM names through Session.Table.
func relations(ctx context.Context, s Session) sql.Relations {
	return func(name *parser.Name) (plan.Node, error) {
		n, err := s.Table(ctx, sql.TableName(name))
		if err != nil {
			return nil, atName(name, sql.TableName(name), err)
		}
		return n, nil
	}
}

func errAtNode(n parser.Node, format string, args ...any) error {
	p := n.Pos()
	return sql.ErrorAt(p.Line, p.Col, format, args...)
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

// mergeStmt runs MERGE INTO through Session.Merge.
func mergeStmt(ctx context.Context, s Session, st *parser.Merge) (plan.Node, error) {
	spec := sql.MergeSpec{
		Target:      sql.TableName(st.Target.Name),
		TargetAlias: aliasOr(st.Target.Alias, st.Target.Name),
		On:          st.On,
		Clauses:     st.Clauses,
		At:          st.At,
	}
	var source plan.Node
	switch src := st.Source.(type) {
	case *parser.TableRef:
		n, err := s.Table(ctx, sql.TableName(src.Name))
		if err != nil {
			return nil, atName(src, sql.TableName(src.Name), err)
		}
		source, spec.SourceAlias = n, aliasOr(src.Alias, src.Name)
	case *parser.SubqueryRef:
		n, err := sql.PlanSelect(src.Query, relations(ctx, s))
		if err != nil {
			return nil, err
		}
		source, spec.SourceAlias = n, src.Alias
		if spec.SourceAlias == "" {
			spec.SourceAlias = "source"
		}
	default:
		p := st.Source.Pos()
		return nil, &sql.Error{Line: p.Line, Col: p.Col, Msg: "MERGE USING takes a table, a view or a parenthesised query"}
	}
	res, err := s.Merge(ctx, spec, source)
	if err != nil {
		return nil, err
	}
	return mergeResult(res), nil
}

func aliasOr(alias string, name *parser.Name) string {
	if alias != "" {
		return alias
	}
	return name.Parts[len(name.Parts)-1]
}

// rowsScan is a batch holding rows of Go values (see rowconv.AppendValue).
func rowsScan(name string, schema *arrow.Schema, rows [][]any) (plan.Node, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			if err := rowconv.AppendValue(b.Field(i), v); err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", name, schema.Field(i).Name, err)
			}
		}
	}
	rec := b.NewRecordBatch()
	return &plan.LocalScan{Name: name, Out: schema, Records: []arrow.RecordBatch{rec}}, nil
}

// emptyScan is the result of a statement without rows (DDL).
func emptyScan(name string) plan.Node {
	schema := arrow.NewSchema(nil, nil)
	return &plan.LocalScan{Name: name, Out: schema}
}

// mergeResult is the one-row result of MERGE INTO.
func mergeResult(r merge.Result) plan.Node {
	names := []string{"num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"}
	vals := []int64{r.NumAffectedRows, r.NumUpdatedRows, r.NumDeletedRows, r.NumInsertedRows}
	var meta arrow.Metadata
	if r.Skipped {
		meta = arrow.NewMetadata([]string{"atlas.note"}, []string{"skipped: this micro-batch's merge had already committed (exactly-once replay)"})
	}
	return int64Scan("merge", names, vals, &meta)
}

// int64Scan is a one-row batch of bigint columns.
func int64Scan(name string, names []string, vals []int64, meta *arrow.Metadata) plan.Node {
	fields := make([]arrow.Field, len(names))
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64}
		b := array.NewInt64Builder(expr.NewCtx(nil).Mem)
		b.Append(vals[i])
		cols[i] = b.NewArray()
		b.Release()
	}
	schema := arrow.NewSchema(fields, meta)
	rec := array.NewRecordBatch(schema, cols, 1)
	return &plan.LocalScan{Name: name, Out: schema, Records: []arrow.RecordBatch{rec}}
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
