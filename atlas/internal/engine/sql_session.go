package engine

import (
	"context"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/merge"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sqlexec"
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
	stmt, err := s.ParserOptions().Parse(query)
	if err != nil {
		return nil, err
	}
	n, err := sqlexec.Exec(s.castContext(ctx), sqlSession{s}, stmt)
	if err != nil {
		return nil, err
	}
	return &DataFrame{s: s, node: n}, nil
}

// sqlSession is the session as package sqlexec sees it.
type sqlSession struct{ s *Session }

// Lakehouse returns the session's lakehouse.
func (q sqlSession) Lakehouse(ctx context.Context) (*lakehouse.Lakehouse, error) {
	return q.s.Lakehouse(ctx)
}

// CheckPath refuses a location outside the session's file roots.
func (q sqlSession) CheckPath(path string) error { return q.s.CheckPath(path) }

// Table resolves name as Session.Table does.
func (q sqlSession) Table(ctx context.Context, name string) (plan.Node, error) {
	df, err := q.s.table(ctx, name)
	if err != nil {
		return nil, err
	}
	return df.node, nil
}

// TempViews lists the session's temp view names.
func (q sqlSession) TempViews() []string { return q.s.TempViews() }

// NextWrite returns the exactly-once key of a write (see nextWrite).
func (q sqlSession) NextWrite(op string) lakehouse.Commit { return q.s.nextWrite(op) }

// NoteInsert records an INSERT for the live view of a foreachBatch query.
func (q sqlSession) NoteInsert(table string, inserted int64, skipped bool, d time.Duration) {
	q.s.noteWrite(BatchWrite{Op: "insert", Table: table, Inserted: inserted, Skipped: skipped, Duration: d})
}

// Merge runs a MERGE INTO from the rows of source.
func (q sqlSession) Merge(ctx context.Context, spec sql.MergeSpec, source plan.Node) (merge.Result, error) {
	return q.s.merge(ctx, spec, &DataFrame{s: q.s, node: source})
}
