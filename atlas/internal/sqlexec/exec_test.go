package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/merge"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/rowconv"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// fakeSession is a Session over a private lakehouse that records what the
// statements asked of it.
type fakeSession struct {
	lh     *lakehouse.Lakehouse
	views  map[string]plan.Node
	commit lakehouse.Commit // what NextWrite returns

	mu     sync.Mutex
	ops    []string // NextWrite's ops
	notes  []string // NoteInsert's calls
	merged []sql.MergeSpec
	result merge.Result // what Merge returns
}

func newFake(t *testing.T) *fakeSession {
	t.Helper()
	dir := t.TempDir()
	lh, err := lakehouse.Open(context.Background(), lakehouse.Config{
		URI:       lakehouse.SQLiteURI(filepath.Join(dir, "catalog.db")),
		Warehouse: "file://" + filepath.ToSlash(filepath.Join(dir, "wh")),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lh.Close() })
	return &fakeSession{lh: lh, views: map[string]plan.Node{}}
}

func (f *fakeSession) Lakehouse(context.Context) (*lakehouse.Lakehouse, error) { return f.lh, nil }

func (f *fakeSession) CheckPath(string) error { return nil }

func (f *fakeSession) Table(ctx context.Context, name string) (plan.Node, error) {
	if n, ok := f.views[name]; ok {
		return n, nil
	}
	if !strings.Contains(name, ".") {
		return nil, fmt.Errorf("no temp view named %q", name)
	}
	tbl, err := f.lh.LoadTable(ctx, name)
	if err != nil {
		return nil, err
	}
	recs, err := tbl.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	return &plan.LocalScan{Name: name, Out: tbl.Schema(), Records: recs}, nil
}

func (f *fakeSession) TempViews() []string {
	var out []string
	for v := range f.views {
		out = append(out, v)
	}
	return out
}

func (f *fakeSession) NextWrite(op string) lakehouse.Commit {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, op)
	return f.commit
}

func (f *fakeSession) NoteInsert(table string, inserted int64, skipped bool, _ time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, fmt.Sprintf("%s %d %v", table, inserted, skipped))
}

func (f *fakeSession) Merge(_ context.Context, spec sql.MergeSpec, source plan.Node) (merge.Result, error) {
	f.merged = append(f.merged, spec)
	if source == nil {
		return merge.Result{}, errors.New("no source")
	}
	return f.result, nil
}

// lines runs query and renders its rows as "col=value" lines, in order.
func lines(t *testing.T, s Session, query string) []string {
	t.Helper()
	n, err := Run(context.Background(), s, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, r := range rowconv.ToRows(schema, recs) {
		var parts []string
		for _, f := range schema.Fields() {
			parts = append(parts, fmt.Sprintf("%s=%v", f.Name, r[f.Name]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	for _, r := range recs {
		r.Release()
	}
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// DDL, INSERT, SHOW and SELECT run through the Session interface alone:
// every write asks NextWrite for its key and INSERT notes its count; an
// INSERT keyed like one that committed is skipped.
func TestStatementsThroughSession(t *testing.T) {
	f := newFake(t)
	lines(t, f, "CREATE NAMESPACE lakehouse.silver")
	lines(t, f, "CREATE TABLE lakehouse.silver.t (id bigint, v string) USING iceberg")
	same(t, "insert", lines(t, f, "INSERT INTO lakehouse.silver.t VALUES (1, 'a'), (2, 'b')"),
		[]string{"num_affected_rows=2 num_inserted_rows=2"})
	f.commit = lakehouse.Commit{QueryID: "q", BatchID: 4}
	same(t, "insert in a batch", lines(t, f, "INSERT INTO lakehouse.silver.t (v, id) VALUES ('c', 3)"),
		[]string{"num_affected_rows=1 num_inserted_rows=1"})
	same(t, "replayed insert", lines(t, f, "INSERT INTO lakehouse.silver.t (v, id) VALUES ('c', 3)"),
		[]string{"num_affected_rows=0 num_inserted_rows=0"})
	same(t, "NextWrite ops", f.ops, []string{"insert", "insert", "insert"})
	same(t, "NoteInsert calls", f.notes, []string{"lakehouse.silver.t 2 false", "lakehouse.silver.t 1 false", "lakehouse.silver.t 0 true"})

	f.views["zeta"], f.views["alpha"] = &plan.LocalScan{Name: "zeta"}, &plan.LocalScan{Name: "alpha"}
	same(t, "show tables", lines(t, f, "SHOW TABLES"), []string{
		"namespace=silver tableName=t isTemporary=false",
		"namespace= tableName=alpha isTemporary=true",
		"namespace= tableName=zeta isTemporary=true",
	})
	same(t, "select", lines(t, f, "SELECT id, v FROM lakehouse.silver.t ORDER BY id"),
		[]string{"id=1 v=a", "id=2 v=b", "id=3 v=c"})
	same(t, "describe", lines(t, f, "DESCRIBE lakehouse.silver.t"),
		[]string{"col_name=id data_type=bigint comment=<nil>", "col_name=v data_type=string comment=<nil>"})
	lines(t, f, "DROP TABLE lakehouse.silver.t")
	if _, err := Run(context.Background(), f, "SELECT id FROM lakehouse.silver.t"); err == nil {
		t.Fatal("select from a dropped table succeeded")
	}
}

// MERGE INTO hands Session.Merge the statement's target, aliases and
// source, and returns its counts as Spark's one-row result.
func TestMergeThroughSession(t *testing.T) {
	f := newFake(t)
	f.views["updates"] = &plan.LocalScan{Name: "updates"}
	f.result = merge.Result{NumAffectedRows: 6, NumUpdatedRows: 3, NumDeletedRows: 1, NumInsertedRows: 2}
	same(t, "merge", lines(t, f, "MERGE INTO lakehouse.silver.t AS tgt USING updates ON tgt.id = updates.id WHEN MATCHED THEN DELETE"),
		[]string{"num_affected_rows=6 num_updated_rows=3 num_deleted_rows=1 num_inserted_rows=2"})
	if len(f.merged) != 1 || f.merged[0].Target != "lakehouse.silver.t" || f.merged[0].TargetAlias != "tgt" || f.merged[0].SourceAlias != "updates" {
		t.Fatalf("merge specs %+v", f.merged)
	}
	if _, err := Run(context.Background(), f, "MERGE INTO lakehouse.silver.t t USING\n  nope s ON t.id = s.id WHEN MATCHED THEN DELETE"); err == nil || !strings.Contains(err.Error(), "line 2, column 3") {
		t.Fatalf("merge from a missing view: %v, want its position", err)
	}
}

// A statement Atlas does not run, and an unknown procedure, fail with the
// position of the statement.
func TestUnsupportedStatements(t *testing.T) {
	f := newFake(t)
	for _, q := range []string{"UPDATE lakehouse.silver.t SET v = 'x'", "CALL lakehouse.system.nope('t')"} {
		_, err := Run(context.Background(), f, q)
		var serr *sql.Error
		if !errors.As(err, &serr) || serr.Line != 1 || serr.Col != 1 {
			t.Errorf("%s: %v, want a sql.Error at line 1, column 1", q, err)
		}
	}
}
