package engine_test

import "testing"

// upper and lower map case as Java's String.toUpperCase/toLowerCase (Spark
// 3.5's UTF8String for non-ASCII text) and ICU's UCharacter (Spark 4.0's
// default, spark.sql.icu.caseMappings.enabled=true): both apply Unicode's
// special casings, so 'ß' upper-cases to "SS", a final capital sigma
// lower-cases to 'ς' and 'İ' to "i̇" (i and U+0307). Go's per-rune
// strings.ToUpper kept 'ß', which makes upper() a wrong grouping key for
// German text. Expected strings are Unicode's SpecialCasing.txt rules,
// written by hand.
func TestSQLUpperLowerUseUnicodeSpecialCasing(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.u")
	mustSQL(t, s, "CREATE TABLE lakehouse.u.names (id int, name string) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.u.names VALUES (1, 'Straße'), (2, 'STRASSE'), (3, 'ΟΔΟΣ'), (4, 'İstanbul'), (5, 'plain ascii'), (6, NULL)")
	sameLines(t, "upper/lower", render(rowsOf(t, mustSQL(t, s, "SELECT id, upper(name) AS u, lower(name) AS l FROM lakehouse.u.names")), "id", "u", "l"), []string{
		"id=1 u=STRASSE l=straße",
		"id=2 u=STRASSE l=strasse",
		"id=3 u=ΟΔΟΣ l=οδος",
		"id=4 u=İSTANBUL l=i\u0307stanbul",
		"id=5 u=PLAIN ASCII l=plain ascii",
		"id=6 u=<nil> l=<nil>",
	})
	sameLines(t, "grouped by upper", render(rowsOf(t, mustSQL(t, s, "SELECT upper(name) AS u, count(*) AS n FROM lakehouse.u.names WHERE id <= 2 GROUP BY upper(name)")), "u", "n"),
		[]string{"u=STRASSE n=2"})
}
