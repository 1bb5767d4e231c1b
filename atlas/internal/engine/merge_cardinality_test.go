package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// Spark checks MERGE's cardinality (one source row per matched target row)
// only when a MATCHED clause could update: RewriteMergeIntoTable's
// shouldCheckCardinality (Spark 3.4 through 4.x) skips it when there is no
// MATCHED clause or the only one is an unconditional DELETE, since the row
// is deleted whichever source row matched it. Atlas refused such a delete
// of a key the source holds twice with MERGE_CARDINALITY_VIOLATION. Both
// write modes; the expected rows are worked out by hand.
func TestMergeUnconditionalDeleteSkipsTheCardinalityCheck(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.c")
	for _, mode := range []string{"copy-on-write", "merge-on-read"} {
		tbl := "lakehouse.c." + strings.ReplaceAll(mode, "-", "_")
		mustSQL(t, s, fmt.Sprintf("CREATE TABLE %s (k int, v string) USING iceberg TBLPROPERTIES ('write.merge.mode' = '%s')", tbl, mode))
		mustSQL(t, s, "INSERT INTO "+tbl+" VALUES (1, 'a'), (2, 'b'), (3, 'c')")
		src := "(SELECT 1 AS k, 'x' AS v UNION ALL SELECT 1, 'y' UNION ALL SELECT 3, 'z' UNION ALL SELECT 9, 'new')"
		res := rowsOf(t, mustSQL(t, s, "MERGE INTO "+tbl+" t USING "+src+" s ON t.k = s.k WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *"))
		if res[0]["num_deleted_rows"] != int64(2) || res[0]["num_inserted_rows"] != int64(1) {
			t.Fatalf("%s: merge result %v, want 2 deleted (k=1, k=3) and 1 inserted (k=9)", mode, res)
		}
		sameLines(t, mode, render(rowsOf(t, mustSQL(t, s, "SELECT * FROM "+tbl)), "k", "v"), []string{"k=2 v=b", "k=9 v=new"})
		// A conditional DELETE, or an UPDATE, still needs one source row per target row.
		for _, clause := range []string{"WHEN MATCHED AND s.v = 'x' THEN DELETE", "WHEN MATCHED THEN UPDATE SET v = s.v"} {
			_, err := s.SQL("MERGE INTO " + tbl + " t USING (SELECT 2 AS k, 'x' AS v UNION ALL SELECT 2, 'y') s ON t.k = s.k " + clause)
			if err == nil || !strings.Contains(err.Error(), "MERGE_CARDINALITY_VIOLATION") {
				t.Fatalf("%s, %s: got %v, want MERGE_CARDINALITY_VIOLATION", mode, clause, err)
			}
		}
	}
}
