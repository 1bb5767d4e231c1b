package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/enginetest"
)

// sqlSession is a session with a private lakehouse and no broker.
func sqlSession(t *testing.T) *engine.Session {
	t.Helper()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	return s
}

// The shared helpers, under the names these tests have always used.
var (
	mustSQL   = enginetest.MustSQL
	rowsOf    = enginetest.Rows
	render    = enginetest.Render
	sameLines = enginetest.SameLines
)

func TestSQLDDLAndSelect(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.silver")
	mustSQL(t, s, `CREATE TABLE lakehouse.silver.orders (
		id bigint NOT NULL, country string COMMENT 'ISO name', qty int, price double)
		USING iceberg PARTITIONED BY (country)`)
	if _, err := s.SQL("CREATE TABLE lakehouse.silver.orders (id bigint) USING iceberg"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second CREATE TABLE: %v", err)
	}
	mustSQL(t, s, "CREATE TABLE IF NOT EXISTS lakehouse.silver.orders (id bigint) USING iceberg")
	res := rowsOf(t, mustSQL(t, s, `INSERT INTO lakehouse.silver.orders VALUES
		(1, 'NL', 2, 1.5), (2, 'NL', 3, 2.0), (3, 'FR', 1, 10.0), (4, 'DE', NULL, 4.0), (5, 'FR', 5, 1.0)`))
	if res[0]["num_inserted_rows"] != int64(5) {
		t.Fatalf("insert result %v", res)
	}
	mustSQL(t, s, "INSERT INTO lakehouse.silver.orders (price, id) VALUES (7.0, 6)")

	sameLines(t, "show tables", render(rowsOf(t, mustSQL(t, s, "SHOW TABLES IN lakehouse.silver")), "namespace", "tableName", "isTemporary"),
		[]string{"namespace=silver tableName=orders isTemporary=false"})
	sameLines(t, "describe", render(rowsOf(t, mustSQL(t, s, "DESCRIBE lakehouse.silver.orders")), "col_name", "data_type", "comment"),
		[]string{"col_name=id data_type=bigint comment=<nil>", "col_name=country data_type=string comment=<nil>",
			"col_name=qty data_type=int comment=<nil>", "col_name=price data_type=double comment=<nil>",
			"col_name= data_type= comment=<nil>", "col_name=# Partitioning data_type= comment=<nil>", "col_name=Part 0 data_type=country comment=<nil>"})

	got := rowsOf(t, mustSQL(t, s, `SELECT country, count(*) AS n, sum(qty) AS q, max(price), avg(price) AS ap
		FROM lakehouse.silver.orders WHERE id < 6 GROUP BY country HAVING count(*) >= 1 ORDER BY n DESC, country LIMIT 2`))
	if len(got) != 2 {
		t.Fatalf("got %d rows, want 2: %v", len(got), got)
	}
	lines := []string{}
	for _, r := range got {
		lines = append(lines, fmt.Sprintf("%v %v %v %v %v", r["country"], r["n"], r["q"], r["max(price)"], r["ap"]))
	}
	if want := "FR 2 6 10 5.5|NL 2 5 2 1.75"; strings.Join(lines, "|") != want {
		t.Fatalf("group by rows %q, want %q", strings.Join(lines, "|"), want)
	}
	sameLines(t, "select star where", render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.silver.orders o WHERE o.qty IS NULL")), "id", "country", "qty", "price"),
		[]string{"id=4 country=DE qty=<nil> price=4", "id=6 country=<nil> qty=<nil> price=7"})
	sameLines(t, "projection", render(rowsOf(t, mustSQL(t, s, "SELECT id * 10 AS x, qty * price FROM lakehouse.silver.orders WHERE country = 'NL'")), "x", "(qty * price)"),
		[]string{"x=10 (qty * price)=3", "x=20 (qty * price)=6"})
	sameLines(t, "distinct", render(rowsOf(t, mustSQL(t, s, "SELECT DISTINCT country FROM lakehouse.silver.orders WHERE country IS NOT NULL")), "country"),
		[]string{"country=DE", "country=FR", "country=NL"})
	total := rowsOf(t, mustSQL(t, s, "SELECT count(*) AS n, sum(qty) AS q FROM lakehouse.silver.orders"))
	if len(total) != 1 || total[0]["n"] != int64(6) || total[0]["q"] != int64(11) {
		t.Fatalf("global aggregate %v", total)
	}

	// A temp view is a relation too, and SHOW TABLES lists it.
	if err := s.Table("lakehouse.silver.orders").Where("price > 3").CreateOrReplaceTempView("pricey"); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "view", render(rowsOf(t, mustSQL(t, s, "SELECT id FROM pricey ORDER BY id")), "id"), []string{"id=3", "id=4", "id=6"})
	tables := render(rowsOf(t, mustSQL(t, s, "SHOW TABLES")), "tableName", "isTemporary")
	if !strings.Contains(strings.Join(tables, ","), "tableName=pricey isTemporary=true") {
		t.Fatalf("SHOW TABLES misses the view: %v", tables)
	}
	mustSQL(t, s, "DROP TABLE lakehouse.silver.orders")
	if _, err := s.SQL("DROP TABLE lakehouse.silver.orders"); err == nil {
		t.Fatal("dropping a missing table succeeded")
	}
	mustSQL(t, s, "DROP TABLE IF EXISTS lakehouse.silver.orders")
}

func TestSQLErrorsNameLineAndColumn(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.t (id bigint, v string) USING iceberg")
	cases := []struct{ query, want string }{
		{"MERGE INTO lakehouse.silver.t t\nUSING src s ON t.id = s.id\nWHEN MATCHED UPDATE SET *", "line 3, column 14"},
		{"SELECT id,\n  nope\nFROM lakehouse.silver.t", "line 2, column 3"},
		{"SELECT v, count(*) FROM lakehouse.silver.t\nGROUP BY id", "line 1, column 8"},
		{"SELECT id FROM\n  missing_view", "line 2, column 3"},
		{"CREATE TABLE lakehouse.silver.u (id bigint,\n  v varchar2) USING iceberg", "line 2, column 3"},
		{"INSERT INTO lakehouse.silver.t VALUES (1, 'a', 2)", "2 columns"},
		{"MERGE INTO lakehouse.silver.t t USING lakehouse.silver.t s\nON t.id = s.id AND t.v > 'a'\nWHEN MATCHED THEN DELETE", "line 2, column 20"},
	}
	for _, c := range cases {
		_, err := s.SQL(c.query)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to mention %q", c.query, err, c.want)
		}
	}
}

// mergeFixture creates target t(id, name, qty) and source src(id, name, qty, op, seq).
func mergeFixture(t *testing.T, s *engine.Session) {
	t.Helper()
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.target (id bigint, name string, qty bigint) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.target VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)")
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.src (id bigint, name string, qty bigint, op string, seq int) USING iceberg")
}

// TestMergeConditionsAndSetLists checks Spark's documented semantics: the
// first WHEN clause whose condition holds applies, a matched row no clause
// applies to is left alone, SET lists touch only their columns, INSERT
// with a column list leaves the others null, NOT MATCHED clauses see only
// the source.
func TestMergeConditionsAndSetLists(t *testing.T) {
	s := sqlSession(t)
	mergeFixture(t, s)
	mustSQL(t, s, `INSERT INTO lakehouse.silver.src VALUES
		(1, 'a2', 11, 'u', 1), (2, 'b2', 0, 'd', 1), (3, 'c2', 33, 'u', 1), (5, 'e', 50, 'c', 1), (6, 'f', 60, 'd', 1)`)
	res := rowsOf(t, mustSQL(t, s, `MERGE INTO lakehouse.silver.target t
		USING lakehouse.silver.src s
		ON t.id = s.id
		WHEN MATCHED AND s.op = 'd' THEN DELETE
		WHEN MATCHED AND s.qty > t.qty + 2 THEN UPDATE SET qty = s.qty + t.qty, name = s.name
		WHEN NOT MATCHED AND s.op != 'd' THEN INSERT (id, qty) VALUES (s.id, s.qty * 2)`))
	sameLines(t, "merge result", render(res, "num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"),
		[]string{"num_affected_rows=3 num_updated_rows=1 num_deleted_rows=1 num_inserted_rows=1"})
	sameLines(t, "merged table", render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty"), []string{
		"id=1 name=a qty=10",      // matched, no clause applies (11 > 12 is false)
		"id=3 name=c2 qty=63",     // second clause
		"id=4 name=d qty=40",      // not in the source
		"id=5 name=<nil> qty=100", // inserted with a column list
	})
	// WHEN NOT MATCHED may not refer to the target.
	_, err := s.SQL("MERGE INTO lakehouse.silver.target t USING lakehouse.silver.src s ON t.id = s.id WHEN NOT MATCHED AND t.qty > 1 THEN INSERT *")
	if err == nil || !strings.Contains(err.Error(), "only refer to source columns") {
		t.Fatalf("NOT MATCHED referring to the target: %v", err)
	}
	// INSERT * needs every target column in the source.
	_, err = s.SQL("MERGE INTO lakehouse.silver.target t USING (SELECT id, qty FROM lakehouse.silver.src) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *")
	if err == nil || !strings.Contains(err.Error(), "no column name") {
		t.Fatalf("INSERT * with a missing column: %v", err)
	}
}

func TestMergeBuilderMatchesSQL(t *testing.T) {
	s := sqlSession(t)
	mergeFixture(t, s)
	mustSQL(t, s, "INSERT INTO lakehouse.silver.src VALUES (2, 'b2', 21, 'u', 1), (3, 'x', 0, 'd', 1), (7, 'g', 70, 'c', 1)")
	res, err := s.MergeInto("lakehouse.silver.target").As("t").
		Using(s.Table("lakehouse.silver.src"), "s").
		On("t.id = s.id").
		WhenMatchedDelete("s.op = 'd'").
		WhenMatchedUpdate(map[string]string{"qty": "t.qty + s.qty"}).
		WhenNotMatchedInsertAll().
		Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.NumUpdatedRows != 1 || res.NumDeletedRows != 1 || res.NumInsertedRows != 1 || res.NumAffectedRows != 3 || res.Skipped {
		t.Fatalf("result %+v", res)
	}
	sameLines(t, "merged table", render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty"), []string{
		"id=1 name=a qty=10", "id=2 name=b qty=41", "id=4 name=d qty=40", "id=7 name=g qty=70",
	})
	_, err = s.MergeInto("lakehouse.silver.target").Using(s.Table("lakehouse.silver.src"), "s").On("t.id = s.id").
		WhenMatchedUpdateAll().WhenMatchedDelete().Execute(context.Background())
	if err == nil || !strings.Contains(err.Error(), "never apply") {
		t.Fatalf("unreachable clause: %v", err)
	}
}

func TestMergeCardinalityViolationAndLatestPerKey(t *testing.T) {
	s := sqlSession(t)
	mergeFixture(t, s)
	mustSQL(t, s, "INSERT INTO lakehouse.silver.src VALUES (2, 'b1', 21, 'u', 1), (9, 'z', 90, 'c', 1), (2, 'b3', 23, 'u', 3), (2, 'b2', 22, 'u', 2), (9, 'z2', 91, 'u', 2)")
	merge := `MERGE INTO lakehouse.silver.target t USING updates s ON t.id = s.id
		WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`
	if err := s.Table("lakehouse.silver.src").CreateOrReplaceTempView("updates"); err != nil {
		t.Fatal(err)
	}
	_, err := s.SQL(merge)
	if err == nil || !strings.Contains(err.Error(), "MERGE_CARDINALITY_VIOLATION") || !strings.Contains(err.Error(), "id=2") || !strings.Contains(err.Error(), "LatestPerKey") {
		t.Fatalf("want a cardinality violation naming id=2 and the fix, got %v", err)
	}
	before := render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty")
	sameLines(t, "table after the failed merge", before, []string{"id=1 name=a qty=10", "id=2 name=b qty=20", "id=3 name=c qty=30", "id=4 name=d qty=40"})

	latest := s.Table("lakehouse.silver.src").LatestPerKey([]string{"id"}, "seq")
	sameLines(t, "latest per key", render(rowsOf(t, latest), "id", "name", "seq"), []string{"id=2 name=b3 seq=3", "id=9 name=z2 seq=2"})
	if err := latest.CreateOrReplaceTempView("updates"); err != nil {
		t.Fatal(err)
	}
	mustSQL(t, s, merge)
	sameLines(t, "merged table", render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty"), []string{
		"id=1 name=a qty=10", "id=2 name=b3 qty=23", "id=3 name=c qty=30", "id=4 name=d qty=40", "id=9 name=z2 qty=91",
	})
}

func TestLatestPerKeyTiesAndNulls(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.ch (k string, k2 int, v string, o bigint) USING iceberg")
	mustSQL(t, s, `INSERT INTO lakehouse.silver.ch VALUES
		('a', 1, 'first', 5), ('a', 1, 'tie-later', 5), ('a', 2, 'other', 1), (NULL, 1, 'n1', 1), (NULL, 1, 'n2', 2),
		('b', 1, 'null-order', NULL), ('b', 1, 'real', 0)`)
	got := s.Table("lakehouse.silver.ch").LatestPerKey([]string{"k", "k2"}, "o")
	sameLines(t, "latest", render(rowsOf(t, got), "k", "k2", "v"), []string{
		"k=a k2=1 v=tie-later", "k=a k2=2 v=other", "k=<nil> k2=1 v=n2", "k=b k2=1 v=real",
	})
	if err := s.Table("lakehouse.silver.ch").LatestPerKey([]string{"nope"}, "o").Err(); err == nil {
		t.Fatal("unknown key column accepted")
	}
}

// TestMergeRewritesOnlyFilesHoldingMatchedKeys appends three disjoint key
// ranges (three files), merges keys of one range plus a new key, and checks
// the commit replaced exactly one file.
func TestMergeRewritesOnlyFilesHoldingMatchedKeys(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.r (id bigint, v string) USING iceberg")
	for _, base := range []int{100, 200, 300} {
		var vals []string
		for i := range 5 {
			vals = append(vals, fmt.Sprintf("(%d, 'old')", base+i))
		}
		mustSQL(t, s, "INSERT INTO lakehouse.silver.r VALUES "+strings.Join(vals, ", "))
	}
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.rsrc (id bigint, v string) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.rsrc VALUES (201, 'new'), (203, 'new'), (999, 'ins')")
	res, err := s.MergeInto("lakehouse.silver.r").Using(s.Table("lakehouse.silver.rsrc"), "s").On("t.id = s.id").
		WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesScanned != 1 || res.FilesRewritten != 1 || res.NumUpdatedRows != 2 || res.NumInsertedRows != 1 {
		t.Fatalf("result %+v, want 1 file scanned and rewritten, 2 updated, 1 inserted", res)
	}
	lh, _ := s.Lakehouse(context.Background())
	tbl, err := lh.LoadTable(context.Background(), "lakehouse.silver.r")
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := tbl.CurrentSnapshot()
	if snap.Operation != "overwrite" || snap.Summary["deleted-data-files"] != "1" || snap.Summary["deleted-records"] != "5" || snap.Summary["added-records"] != "6" {
		t.Fatalf("merge snapshot %s %v", snap.Operation, snap.Summary)
	}
	if n := snap.Summary["added-delete-files"]; n != "" && n != "0" {
		t.Fatalf("merge wrote delete files: %v", snap.Summary)
	}
	var want []string
	for _, base := range []int{100, 200, 300} {
		for i := range 5 {
			v := "old"
			if base == 200 && (i == 1 || i == 3) {
				v = "new"
			}
			want = append(want, fmt.Sprintf("id=%d v=%s", base+i, v))
		}
	}
	want = append(want, "id=999 v=ins")
	sameLines(t, "table", render(rowsOf(t, s.Table("lakehouse.silver.r")), "id", "v"), want)
}

// TestSQLCallProcedures runs Iceberg's maintenance procedures through
// CALL: rewrite_data_files packs the small files of eight INSERTs into one
// and expire_snapshots leaves one snapshot; the rows (compared with what
// was inserted) never change, and bad calls fail with what to write.
func TestSQLCallProcedures(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	mustSQL(t, s, "CREATE TABLE lakehouse.gold.m (id bigint, v string) USING iceberg")
	var want []string
	for i := 0; i < 8; i++ {
		mustSQL(t, s, fmt.Sprintf("INSERT INTO lakehouse.gold.m VALUES (%d, 'v%d')", i, i))
		want = append(want, fmt.Sprintf("%d v%d", i, i))
	}
	rowsNow := func() []string {
		var out []string
		for _, r := range rowsOf(t, mustSQL(t, s, "SELECT id, v FROM lakehouse.gold.m ORDER BY id")) {
			out = append(out, fmt.Sprint(r["id"], " ", r["v"]))
		}
		return out
	}
	res := rowsOf(t, mustSQL(t, s, "CALL lakehouse.system.rewrite_data_files(table => 'gold.m')"))
	if len(res) != 1 || res[0]["rewritten_data_files_count"] != int64(8) || res[0]["added_data_files_count"] != int64(1) {
		t.Fatalf("rewrite_data_files returned %v, want 8 files rewritten into 1", res)
	}
	if got := rowsNow(); !slices.Equal(got, want) {
		t.Fatalf("after rewrite_data_files: %v, want %v", got, want)
	}
	res = rowsOf(t, mustSQL(t, s, "CALL lakehouse.system.expire_snapshots('gold.m', TIMESTAMP '2999-01-01 00:00:00', 1)"))
	if len(res) != 1 || res[0]["expired_snapshots_count"] != int64(8) {
		t.Fatalf("expire_snapshots returned %v, want 8 of the 9 snapshots expired", res)
	}
	if got := rowsNow(); !slices.Equal(got, want) {
		t.Fatalf("after expire_snapshots: %v, want %v", got, want)
	}
	for q, wantErr := range map[string]string{
		"CALL lakehouse.system.compact_all('gold.m')":                                "unknown procedure",
		"CALL lakehouse.system.rewrite_data_files(tabel => 'gold.m')":                `no argument "tabel"`,
		"CALL lakehouse.system.expire_snapshots(table => 'gold.m', older_than => 5)": "must be a timestamp",
		"CALL lakehouse.system.rewrite_data_files()":                                 "needs the table",
	} {
		if _, err := s.SQL(q); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", q, err, wantErr)
		}
	}
}
