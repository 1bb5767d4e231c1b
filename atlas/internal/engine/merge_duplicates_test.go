package engine_test

import (
	"context"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// Two source rows inserting one new key fail like the cardinality
// violation (Spark would insert both, leaving the table with the key
// twice); the table property or the builder option allows it.
func TestMergeDuplicateInsertsFailUnlessAllowed(t *testing.T) {
	ctx := context.Background()
	s := sqlSession(t)
	mergeFixture(t, s)
	mustSQL(t, s, "INSERT INTO lakehouse.silver.src VALUES (9, 'z', 90, 'c', 1), (5, 'e', 50, 'c', 1), (9, 'z2', 91, 'u', 2)")
	merge := `MERGE INTO lakehouse.silver.target t USING lakehouse.silver.src s ON t.id = s.id
		WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`
	original := []string{"id=1 name=a qty=10", "id=2 name=b qty=20", "id=3 name=c qty=30", "id=4 name=d qty=40"}

	_, err := s.SQL(merge)
	if err == nil {
		t.Fatal("a merge inserting id=9 twice succeeded")
	}
	for _, want := range []string{"MERGE_DUPLICATE_INSERT", "id=9", "2 rows", `LatestPerKey([]string{"id"}`, engine.PropMergeAllowDuplicateInserts, "AllowDuplicateInserts()"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error misses %q: %v", want, err)
		}
	}
	sameLines(t, "table after the refused merge", render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty"), original)

	// An insert condition that keeps one of the two rows is fine.
	mustSQL(t, s, `MERGE INTO lakehouse.silver.target t USING lakehouse.silver.src s ON t.id = s.id
		WHEN NOT MATCHED AND s.op = 'c' THEN INSERT *`)
	sameLines(t, "conditional insert", render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty"),
		append([]string{"id=5 name=e qty=50", "id=9 name=z qty=90"}, original...))

	// Allowed for one merge through the builder: every copy is inserted, as Spark does.
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.fresh (id bigint, name string, qty bigint) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.fresh VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)")
	res, err := s.MergeInto("lakehouse.silver.fresh").Using(s.Table("lakehouse.silver.src"), "s").On("t.id = s.id").
		WhenNotMatchedInsertAll().AllowDuplicateInserts().Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.NumInsertedRows != 3 {
		t.Fatalf("inserted %d rows, want 3", res.NumInsertedRows)
	}
	sameLines(t, "allowed by the builder", render(rowsOf(t, s.Table("lakehouse.silver.fresh")), "id", "name", "qty"),
		append([]string{"id=5 name=e qty=50", "id=9 name=z qty=90", "id=9 name=z2 qty=91"}, original...))

	// Allowed by the table property, in SQL.
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.log (id bigint, name string, qty bigint) USING iceberg TBLPROPERTIES ('"+engine.PropMergeAllowDuplicateInserts+"' = 'true')")
	mustSQL(t, s, `MERGE INTO lakehouse.silver.log t USING lakehouse.silver.src s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *`)
	sameLines(t, "allowed by the table property", render(rowsOf(t, s.Table("lakehouse.silver.log")), "id", "name", "qty"),
		[]string{"id=5 name=e qty=50", "id=9 name=z qty=90", "id=9 name=z2 qty=91"})
}

// In an insert-only merge a source key held twice that matches a target
// row is matched for both rows: neither is inserted.
func TestMergeInsertOnlySkipsEveryRowOfAMatchedKey(t *testing.T) {
	s := sqlSession(t)
	mergeFixture(t, s)
	mustSQL(t, s, "INSERT INTO lakehouse.silver.src VALUES (2, 'b1', 21, 'u', 1), (2, 'b2', 22, 'u', 2), (7, 'g', 70, 'c', 1)")
	res := rowsOf(t, mustSQL(t, s, `MERGE INTO lakehouse.silver.target t USING lakehouse.silver.src s ON t.id = s.id
		WHEN NOT MATCHED THEN INSERT *`))
	if res[0]["num_inserted_rows"] != int64(1) {
		t.Fatalf("merge result %v, want 1 inserted row", res)
	}
	sameLines(t, "merged table", render(rowsOf(t, s.Table("lakehouse.silver.target")), "id", "name", "qty"),
		[]string{"id=1 name=a qty=10", "id=2 name=b qty=20", "id=3 name=c qty=30", "id=4 name=d qty=40", "id=7 name=g qty=70"})
}
