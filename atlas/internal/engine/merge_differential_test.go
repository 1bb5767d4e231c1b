package engine_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestMergeModesAgreeWithReference runs the same random MERGE batches
// (deletes, conditional updates, inserts, and WHEN NOT MATCHED BY SOURCE
// deletes) into a merge-on-read and a copy-on-write table, with
// rewrite_data_files and expire_snapshots in between, and compares both
// tables after every statement with a reference map that applies Spark's
// MERGE semantics (SQL reference, "MERGE INTO": the first WHEN clause whose
// condition holds acts; unmatched source rows are inserted; target rows no
// source row matches meet the NOT MATCHED BY SOURCE clauses) in plain Go.
func TestMergeModesAgreeWithReference(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.d")
	for _, mode := range []string{"merge-on-read", "copy-on-write"} {
		name := strings.ReplaceAll(mode, "-", "_")
		mustSQL(t, s, fmt.Sprintf("CREATE TABLE lakehouse.d.%s (k bigint, v bigint, tag string) USING iceberg TBLPROPERTIES ('write.merge.mode' = '%s')", name, mode))
	}
	mustSQL(t, s, "CREATE TABLE lakehouse.d.src (k bigint, v bigint, op string) USING iceberg")
	type row struct {
		v   int64
		tag string
	}
	ref := map[int64]row{}
	r := rand.New(rand.NewPCG(7, 11))
	check := func(step string) {
		t.Helper()
		var want []string
		for k, x := range ref {
			want = append(want, fmt.Sprintf("k=%d v=%d tag=%s", k, x.v, x.tag))
		}
		sort.Strings(want)
		for _, tbl := range []string{"merge_on_read", "copy_on_write"} {
			got := render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.d."+tbl)), "k", "v", "tag")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s, table %s: %d rows, want %d\n got  %v\n want %v", step, tbl, len(got), len(want), got, want)
			}
		}
	}
	for round := range 12 {
		// A batch of distinct keys (MERGE_CARDINALITY_VIOLATION otherwise).
		keys := r.Perm(40)[:5+r.IntN(10)]
		var vals []string
		type change struct {
			v  int64
			op string
		}
		src := map[int64]change{}
		for _, k := range keys {
			c := change{v: int64(r.IntN(100)), op: []string{"u", "u", "d", "x"}[r.IntN(4)]}
			src[int64(k)] = c
			vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", k, c.v, c.op))
		}
		mustSQL(t, s, "INSERT OVERWRITE lakehouse.d.src VALUES "+strings.Join(vals, ", "))
		bySource := round%3 == 2
		stmt := `MERGE INTO lakehouse.d.%s t USING lakehouse.d.src s ON t.k = s.k
			WHEN MATCHED AND s.op = 'd' THEN DELETE
			WHEN MATCHED AND s.v > t.v THEN UPDATE SET v = s.v, tag = concat('up', s.op)
			WHEN MATCHED THEN UPDATE SET tag = 'seen'
			WHEN NOT MATCHED AND s.op <> 'd' THEN INSERT (k, v, tag) VALUES (s.k, s.v, 'new')`
		if bySource {
			stmt += ` WHEN NOT MATCHED BY SOURCE AND t.v < 30 THEN DELETE`
		}
		for _, tbl := range []string{"merge_on_read", "copy_on_write"} {
			mustSQL(t, s, fmt.Sprintf(stmt, tbl))
		}
		// The reference, clause by clause.
		next := map[int64]row{}
		for k, x := range ref {
			c, matched := src[k]
			switch {
			case !matched && bySource && x.v < 30:
				// deleted by source
			case !matched:
				next[k] = x
			case c.op == "d":
			case c.v > x.v:
				next[k] = row{v: c.v, tag: "up" + c.op}
			default:
				next[k] = row{v: x.v, tag: "seen"}
			}
		}
		for k, c := range src {
			if _, matched := ref[k]; !matched && c.op != "d" {
				next[k] = row{v: c.v, tag: "new"}
			}
		}
		ref = next
		check(fmt.Sprintf("round %d merge", round))
		switch round % 4 {
		case 1:
			for _, tbl := range []string{"merge_on_read", "copy_on_write"} {
				mustSQL(t, s, fmt.Sprintf("CALL lakehouse.system.rewrite_data_files(table => 'd.%s')", tbl))
			}
			check(fmt.Sprintf("round %d rewrite_data_files", round))
		case 3:
			for _, tbl := range []string{"merge_on_read", "copy_on_write"} {
				mustSQL(t, s, fmt.Sprintf("CALL lakehouse.system.expire_snapshots(table => 'd.%s', older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)", tbl))
			}
			check(fmt.Sprintf("round %d expire_snapshots", round))
		}
	}
}
