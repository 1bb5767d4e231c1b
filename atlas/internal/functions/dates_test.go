package functions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// typed runs a query and returns its first column's type and values.
func typed(t *testing.T, query string) (string, []string, error) {
	t.Helper()
	st, err := sqlparser.Parse(query)
	if err != nil {
		return "", nil, err
	}
	n, err := sql.PlanSelect(st.(*sqlparser.Select), func(*sqlparser.Name) (plan.Node, error) { return nil, nil })
	if err != nil {
		return "", nil, err
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		return "", nil, err
	}
	var vals []string
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			if d, ok := r.Column(0).(*array.Decimal128); ok && d.IsValid(i) {
				// Spark's Hive-style text keeps a decimal's scale (0.50).
				vals = append(vals, expr.DecimalString(d.Value(i), d.DataType().(*arrow.Decimal128Type).Scale))
				continue
			}
			vals = append(vals, r.Column(0).ValueStr(i))
		}
		r.Release()
	}
	return strings.ToLower(types.SQL(schema.Field(0).Type)), vals, nil
}

// TestDatesAreDates: DATE literals are dates, CAST(string AS DATE) reads
// Spark's date forms (a time after the date is ignored), dates compare
// with dates, strings and timestamps, and min/max keep the date type.
func TestDatesAreDates(t *testing.T) {
	for _, c := range []struct{ query, typ, vals string }{
		{"SELECT DATE '2021-01-01'", "date", "2021-01-01"},
		{"SELECT CAST('2009-07-30 04:17:52' AS DATE)", "date", "2009-07-30"},
		{"SELECT CAST('2009-07-30T04:17:52' AS DATE)", "date", "2009-07-30"},
		{"SELECT CAST(' 2021-3-4 ' AS DATE)", "date", "2021-03-04"},
		{"SELECT CAST('2021-03' AS DATE)", "date", "2021-03-01"},
		{"SELECT CAST('2021' AS DATE)", "date", "2021-01-01"},
		{"SELECT try_cast('2021-02-30' AS DATE)", "date", "(null)"},
		{"SELECT try_cast('21-01-01' AS DATE)", "date", "(null)"},
		{"SELECT DATE '2021-01-01' = CAST('2021-01-01' AS DATE)", "boolean", "true"},
		{"SELECT DATE '2021-01-01' = '2021-01-01'", "boolean", "true"},
		{"SELECT DATE '2021-01-01' < TIMESTAMP '2021-01-01 00:00:01'", "boolean", "true"},
		{"SELECT d FROM VALUES (DATE '2021-01-01'), (DATE '2021-02-01') AS t(d) WHERE d >= DATE '2021-01-15'", "date", "2021-02-01"},
		{"SELECT max(d) FROM VALUES (DATE '2021-01-01'), (DATE '2021-02-01') AS t(d)", "date", "2021-02-01"},
		{"SELECT min(d) FROM VALUES (DATE '2021-01-01'), (DATE '2021-02-01') AS t(d)", "date", "2021-01-01"},
	} {
		typ, vals, err := typed(t, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if typ != c.typ || strings.Join(vals, ",") != c.vals {
			t.Errorf("%s = %s %v, Spark gives %s %s", c.query, typ, vals, c.typ, c.vals)
		}
	}
	if _, _, err := typed(t, "SELECT CAST('2021-02-30' AS DATE)"); err == nil || !strings.Contains(err.Error(), "CAST_INVALID_INPUT") {
		t.Errorf("CAST('2021-02-30' AS DATE) under ANSI: got %v, want CAST_INVALID_INPUT", err)
	}
}

// TestMinMaxKeepTheType: Spark's min and max return their input's type
// (int stays int, not bigint).
func TestMinMaxKeepTheType(t *testing.T) {
	for _, c := range []struct{ query, typ, vals string }{
		{"SELECT max(col) FROM VALUES (10), (50), (20) AS tab(col)", "int", "50"},
		{"SELECT min(col) FROM VALUES (10), (-1), (20) AS tab(col)", "int", "-1"},
		{"SELECT max(col) FROM VALUES (CAST(1 AS SMALLINT)), (CAST(3 AS SMALLINT)) AS tab(col)", "smallint", "3"},
		{"SELECT max(col) FROM VALUES (10L), (50L) AS tab(col)", "bigint", "50"},
		{"SELECT min(col) FROM VALUES (CAST(1.5 AS FLOAT)), (CAST(0.5 AS FLOAT)) AS tab(col)", "float", "0.5"},
	} {
		typ, vals, err := typed(t, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if typ != c.typ || strings.Join(vals, ",") != c.vals {
			t.Errorf("%s = %s %v, Spark gives %s %s", c.query, typ, vals, c.typ, c.vals)
		}
	}
}
