package engine_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Spark's NaN semantics (SQL reference 3.5/4.x, "NaN Semantics"): NaN =
// NaN is true; NaN is larger than any other value, so it sorts last
// ascending and first descending; all NaNs form one group; NaN is a normal
// join key. And 0.0 and -0.0 are one grouping and join key (SPARK-26021,
// Spark 3.0's migration guide). Atlas followed IEEE and arrow: NaN sorted
// beside the nulls, x = NaN matched nothing, NaN > 1e308 was false, and
// -0.0 and 0.0 made two groups and did not join. Expected rows by hand.
func TestFloatNaNAndNegativeZeroAsSpark(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.f")
	mustSQL(t, s, "CREATE TABLE lakehouse.f.v (id int, x double) USING iceberg")
	mustSQL(t, s, `INSERT INTO lakehouse.f.v VALUES (1, CAST('NaN' AS double)), (2, 1.0), (3, -0.0), (4, 0.0),
		(5, CAST('NaN' AS double)), (6, NULL), (7, CAST('-Infinity' AS double)), (8, CAST('Infinity' AS double))`)
	ids := func(q string) string {
		t.Helper()
		var out []string
		for _, r := range rowsOf(t, mustSQL(t, s, q)) {
			out = append(out, fmt.Sprint(r["id"]))
		}
		return strings.Join(out, ",")
	}
	for q, want := range map[string]string{
		"SELECT id, x FROM lakehouse.f.v ORDER BY x, id":                           "6,7,3,4,2,8,1,5", // NULL first, NaN last; -0.0 ties 0.0
		"SELECT id, x FROM lakehouse.f.v ORDER BY x DESC, id":                      "1,5,8,2,3,4,7,6", // NaN first, NULL last
		"SELECT id FROM lakehouse.f.v WHERE x = CAST('NaN' AS double) ORDER BY id": "1,5",
		"SELECT id FROM lakehouse.f.v WHERE x > 1e308 ORDER BY id":                 "1,5,8",
		"SELECT id FROM lakehouse.f.v WHERE x <> 0 ORDER BY id":                    "1,2,5,7,8",
		"SELECT id FROM lakehouse.f.v WHERE x = 0 ORDER BY id":                     "3,4",
	} {
		if got := ids(q); got != want {
			t.Errorf("%s: ids %s, want %s", q, got, want)
		}
	}
	groups := map[string]int64{}
	for _, r := range rowsOf(t, mustSQL(t, s, "SELECT x, count(*) AS n FROM lakehouse.f.v GROUP BY x")) {
		x, _ := r["x"].(float64)
		key := fmt.Sprint(r["x"])
		if r["x"] != nil && x == 0 && math.Signbit(x) {
			key = "-0" // the group must carry the normalized 0.0
		}
		groups[key] = r["n"].(int64)
	}
	if want := map[string]int64{"NaN": 2, "0": 2, "1": 1, "-Inf": 1, "+Inf": 1, "<nil>": 1}; fmt.Sprint(groups) != fmt.Sprint(want) {
		t.Errorf("GROUP BY x: %v, want %v", groups, want)
	}
	if n := len(rowsOf(t, mustSQL(t, s, "SELECT DISTINCT x FROM lakehouse.f.v"))); n != 6 {
		t.Errorf("DISTINCT x: %d rows, want 6 (NaN, 0.0, 1, -Inf, +Inf, NULL)", n)
	}
	sameLines(t, "self join on x", render(rowsOf(t, mustSQL(t, s, `SELECT a.id AS l, b.id AS r FROM lakehouse.f.v a JOIN lakehouse.f.v b
		ON a.x = b.x WHERE a.id < b.id`)), "l", "r"), []string{"l=1 r=5", "l=3 r=4"})
}
