package engine_test

import (
	"strings"
	"testing"
)

// Spark 3.0+ (and 4.x) writes to tables with the ANSI store assignment
// policy, spark.sql.storeAssignmentPolicy=ANSI by default (SQL reference,
// "ANSI Compliance"): a value a column cannot hold fails the INSERT or MERGE
// with CAST_OVERFLOW_IN_TABLE_INSERT (Spark's QueryExecutionErrorsSuite,
// "CAST_OVERFLOW_IN_TABLE_INSERT: overflow during table insertion"), and
// the rows of VALUES take their common type (1 and 2.5 are both kept as
// written). These tests check the stored numbers against hand-written ones.

func TestSQLInsertValuesRowsTakeTheirCommonType(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.w")
	mustSQL(t, s, "CREATE TABLE lakehouse.w.prices (id int, price double, qty bigint) USING iceberg")
	// The first row's literals are ints; the second row's are a double and a
	// bigint. Typing the column by the first row stored 2.5 as 2 and
	// 3000000000 as -1294967296.
	mustSQL(t, s, "INSERT INTO lakehouse.w.prices VALUES (1, 10, 5), (2, 2.5, 3000000000), (3, NULL, 9223372036854775807)")
	sameLines(t, "stored rows", render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.w.prices")), "id", "price", "qty"),
		[]string{"id=1 price=10 qty=5", "id=2 price=2.5 qty=3000000000", "id=3 price=<nil> qty=9223372036854775807"})
}

func TestSQLInsertOverflowFailsInsteadOfWrapping(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.w")
	mustSQL(t, s, "CREATE TABLE lakehouse.w.small (i int, b bigint) USING iceberg")
	mustSQL(t, s, "CREATE TABLE lakehouse.w.wide (i bigint, b double) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.w.wide VALUES (3000000000, 1), (1, 1e19)")
	for _, q := range []string{
		"INSERT INTO lakehouse.w.small VALUES (1, 1), (3000000000, 2)",     // 3000000000 as an int was -1294967296
		"INSERT INTO lakehouse.w.small (i) SELECT i FROM lakehouse.w.wide", // the same from a query
		"INSERT INTO lakehouse.w.small (b) SELECT b FROM lakehouse.w.wide", // 1e19 as a bigint was -9223372036854775808
		"INSERT INTO lakehouse.w.small (i) VALUES (CAST('NaN' AS double))", // Spark's ANSI cast: NaN overflows an int
		"INSERT INTO lakehouse.w.small (i) VALUES (-2147483649)",           // one below the int range
	} {
		_, err := s.SQL(q)
		if err == nil || !strings.Contains(err.Error(), "CAST_OVERFLOW_IN_TABLE_INSERT") {
			t.Fatalf("%s: got %v, want CAST_OVERFLOW_IN_TABLE_INSERT", q, err)
		}
	}
	// Nothing was written by the failed statements; values in range are, a
	// fraction truncated as Spark's cast truncates it.
	mustSQL(t, s, "INSERT INTO lakehouse.w.small VALUES (2147483647, 9.2e18), (-2147483648, 2.9)")
	sameLines(t, "stored rows", render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.w.small")), "i", "b"),
		[]string{"i=2147483647 b=9200000000000000000", "i=-2147483648 b=2"})
}

// In MERGE, ON t.k = s.k compares the keys in their wider type (Spark's
// type coercion of the equality), so a bigint source key 5000000000 does
// not match the int target key 705032704 (5000000000 wrapped to 32 bits),
// nor 1.5 the key 1; and SET writes through store assignment, so an
// overflowing value fails the MERGE and leaves the table as it was.
func TestSQLMergeKeysCompareInTheWiderTypeAndSetOverflowFails(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.w")
	mustSQL(t, s, "CREATE TABLE lakehouse.w.target (k int, v string) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.w.target VALUES (1, 'one'), (705032704, 'wrapped')")
	mustSQL(t, s, "CREATE TABLE lakehouse.w.big (k bigint, v string) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.w.big VALUES (5000000000, 'big')")

	res := rowsOf(t, mustSQL(t, s, "MERGE INTO lakehouse.w.target t USING lakehouse.w.big s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v"))
	if res[0]["num_updated_rows"] != int64(0) {
		t.Fatalf("merge of key 5000000000: %v, want no row updated", res)
	}
	res = rowsOf(t, mustSQL(t, s, "MERGE INTO lakehouse.w.target t USING (SELECT 1.5 AS k, 'fraction' AS v) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v"))
	if res[0]["num_updated_rows"] != int64(0) {
		t.Fatalf("merge of key 1.5: %v, want no row updated", res)
	}
	res = rowsOf(t, mustSQL(t, s, "MERGE INTO lakehouse.w.target t USING (SELECT 1.0 AS k, 'exact' AS v) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v"))
	if res[0]["num_updated_rows"] != int64(1) {
		t.Fatalf("merge of key 1.0: %v, want one row updated", res)
	}
	_, err := s.SQL("MERGE INTO lakehouse.w.target t USING (SELECT 1 AS k, 5000000000 AS n) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET k = s.n")
	if err == nil || !strings.Contains(err.Error(), "CAST_OVERFLOW_IN_TABLE_INSERT") {
		t.Fatalf("SET k = 5000000000 into an int: got %v, want CAST_OVERFLOW_IN_TABLE_INSERT", err)
	}
	_, err = s.SQL("MERGE INTO lakehouse.w.target t USING lakehouse.w.big s ON t.k = s.k WHEN NOT MATCHED THEN INSERT *")
	if err == nil || !strings.Contains(err.Error(), "CAST_OVERFLOW_IN_TABLE_INSERT") {
		t.Fatalf("INSERT * of k = 5000000000 into an int: got %v, want CAST_OVERFLOW_IN_TABLE_INSERT", err)
	}
	sameLines(t, "target rows", render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.w.target")), "k", "v"),
		[]string{"k=1 v=exact", "k=705032704 v=wrapped"})
}

// ANSI store assignment does not write a string to a number or boolean
// column (Spark's Cast.canANSIStoreAssign; the write fails with
// INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST): INSERT ... VALUES ('abc')
// into an int stored NULL without a word. Numbers into a string column
// are fine, and an explicit CAST says what the user means.
func TestSQLInsertStringIntoNumberColumnIsRefused(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.w")
	mustSQL(t, s, "CREATE TABLE lakehouse.w.typed (n int, f double, b boolean, s string) USING iceberg")
	for _, q := range []string{
		"INSERT INTO lakehouse.w.typed (n) VALUES ('abc')",
		"INSERT INTO lakehouse.w.typed (f) VALUES ('1.5')",
		"INSERT INTO lakehouse.w.typed (b) VALUES ('yes')",
		"MERGE INTO lakehouse.w.typed t USING (SELECT 'x' AS s, '7' AS n) u ON t.s = u.s WHEN NOT MATCHED THEN INSERT (s, n) VALUES (u.s, u.n)",
	} {
		if _, err := s.SQL(q); err == nil || !strings.Contains(err.Error(), "CANNOT_SAFELY_CAST") {
			t.Fatalf("%s: got %v, want CANNOT_SAFELY_CAST", q, err)
		}
	}
	mustSQL(t, s, "INSERT INTO lakehouse.w.typed VALUES (CAST(' 7 ' AS int), CAST('1.5' AS double), CAST('yes' AS boolean), 42)")
	sameLines(t, "stored rows", render(rowsOf(t, mustSQL(t, s, "SELECT * FROM lakehouse.w.typed")), "n", "f", "b", "s"),
		[]string{"n=7 f=1.5 b=true s=42"})
}
