package engine_test

import (
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// NOT follows SQL's three-valued logic (Spark's Not: NOT NULL is NULL), and
// x NOT IN (list) is NOT (x IN (list)), so a NULL in the list makes every
// non-matching row NULL (Spark SQL reference, "IN predicate"). Every NOT
// failed with "function 'invert' not found" (arrow-go registers no such
// kernel). Expected values are the truth tables written by hand.
func TestSQLNotThreeValuedLogic(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.n")
	mustSQL(t, s, "CREATE TABLE lakehouse.n.t (id int, a int, op string) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.n.t VALUES (1, 1, 'u'), (2, 3, 'd'), (3, NULL, 'u'), (4, 7, NULL)")
	sameLines(t, "NOT, NOT IN", render(rowsOf(t, mustSQL(t, s, `SELECT id, NOT (a > 2) AS n, a NOT IN (1, 3) AS ni, a NOT IN (1, NULL) AS nn
		FROM lakehouse.n.t`)), "id", "n", "ni", "nn"), []string{
		"id=1 n=true ni=false nn=false",
		"id=2 n=false ni=false nn=<nil>",
		"id=3 n=<nil> ni=<nil> nn=<nil>",
		"id=4 n=false ni=true nn=<nil>",
	})
	// WHERE keeps only rows whose condition is true: NULL is dropped too.
	sameLines(t, "WHERE NOT", render(rowsOf(t, mustSQL(t, s, "SELECT id FROM lakehouse.n.t WHERE NOT (op = 'd')")), "id"),
		[]string{"id=1", "id=3"})
	df := s.Table("lakehouse.n.t").Where(engine.Not(engine.Col("a").Gt(engine.Lit(2))))
	sameLines(t, "Not(col)", render(rowsOf(t, df), "id"), []string{"id=1"})

	// The same in a MERGE condition.
	mustSQL(t, s, `MERGE INTO lakehouse.n.t t USING (SELECT 1 AS id, 'x' AS op UNION ALL SELECT 2, 'd') s ON t.id = s.id
		WHEN MATCHED AND NOT (s.op = 'd') THEN UPDATE SET op = s.op`)
	sameLines(t, "after MERGE", render(rowsOf(t, mustSQL(t, s, "SELECT id, op FROM lakehouse.n.t")), "id", "op"),
		[]string{"id=1 op=x", "id=2 op=d", "id=3 op=u", "id=4 op=<nil>"})
}
