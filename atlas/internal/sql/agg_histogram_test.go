package sql_test

import "testing"

// TestHistogramNumeric checks histogram_numeric on bins merged by hand:
// the two closest bins merge into their weighted mean, x keeps the
// input's type (truncated, as Spark's toInt), nulls are skipped and no
// values give NULL.
func TestHistogramNumeric(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		// 1 2 10 12 | 30: (1,2) merge to 1.5 (height 2), then (10,12) to 11.
		{"SELECT histogram_numeric(col, 3) FROM VALUES (1D), (2D), (10D), (12D), (NULL), (30D) AS tab(col)",
			"histogram_numeric(col, 3):list<item: struct<x: float64 nullable, y: float64 nullable>, nullable>:true", `[{"x":1.5,"y":2},{"x":11,"y":2},{"x":30,"y":1}]`},
		{"SELECT histogram_numeric(col, 3) FROM VALUES (1), (2), (10), (12), (30) AS tab(col)",
			"histogram_numeric(col, 3):list<item: struct<x: int32 nullable, y: float64 nullable>, nullable>:true", `[{"x":1,"y":2},{"x":11,"y":2},{"x":30,"y":1}]`},
		// Equal values raise one bin.
		{"SELECT histogram_numeric(col, 2) FROM VALUES (4L), (4L), (4L) AS tab(col)",
			"histogram_numeric(col, 2):list<item: struct<x: int64 nullable, y: float64 nullable>, nullable>:true", `[{"x":4,"y":3}]`},
		{"SELECT histogram_numeric(col, 2) FROM VALUES (4L) AS tab(col) WHERE col > 5",
			"histogram_numeric(col, 2):list<item: struct<x: int64 nullable, y: float64 nullable>, nullable>:true", "NULL"},
	} {
		schema, rows, err := query(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if schema != c.schema || rows != c.rows {
			t.Errorf("%s\n got  %s / %s\n want %s / %s", c.q, schema, rows, c.schema, c.rows)
		}
	}
	if _, _, err := query(t, "SELECT histogram_numeric(col, 1) FROM VALUES (1) AS tab(col)"); err == nil {
		t.Error("histogram_numeric with 1 bin: no error, want VALUE_OUT_OF_RANGE")
	}
}
