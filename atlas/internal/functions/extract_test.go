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

// result runs a query over no table and returns its first column's name
// and type and the rows of every column, tab-separated, as text.
func result(t *testing.T, query string) (name, typ string, rows []string, err error) {
	t.Helper()
	st, err := sqlparser.Parse(query)
	if err != nil {
		return "", "", nil, err
	}
	n, err := sql.PlanSelect(st.(*sqlparser.Select), func(*sqlparser.Name) (plan.Node, error) { return nil, nil })
	if err != nil {
		return "", "", nil, err
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		return "", "", nil, err
	}
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			var cells []string
			for _, col := range r.Columns() {
				if d, ok := col.(*array.Decimal128); ok && d.IsValid(i) {
					cells = append(cells, expr.DecimalString(d.Value(i), d.DataType().(*arrow.Decimal128Type).Scale))
					continue
				}
				cells = append(cells, col.ValueStr(i))
			}
			rows = append(rows, strings.Join(cells, "\t"))
		}
		r.Release()
	}
	return schema.Field(0).Name, strings.ToLower(types.SQL(schema.Field(0).Type)), rows, nil
}

// TestExtract: EXTRACT(field FROM source) is date_part named as Spark
// names it, over dates, timestamps and day-time intervals. Expected values
// are Spark's documented examples and arithmetic by hand: 2019-08-12 is day
// 224 of 2019 (31+28+31+30+31+30+31+12) and in ISO week 33; the interval
// '123 23:55:59.002001' has 55 minutes; a negative interval's parts keep
// its sign, as Java's integer division. (Interval literals are not yet
// named with their fields as Spark names them, INTERVAL '5 03:07' DAY TO
// MINUTE, so the interval cases check values and types only.)
func TestExtract(t *testing.T) {
	cases := []struct{ query, name, typ, val string }{
		{"SELECT extract(YEAR FROM TIMESTAMP '2019-08-12 01:00:00.123456')",
			"extract(YEAR FROM TIMESTAMP '2019-08-12 01:00:00.123456')", "int", "2019"},
		{"SELECT extract(week FROM timestamp'2019-08-12 01:00:00.123456')",
			"extract(week FROM TIMESTAMP '2019-08-12 01:00:00.123456')", "int", "33"},
		{"SELECT extract(doy FROM DATE'2019-08-12')", "extract(doy FROM DATE '2019-08-12')", "int", "224"},
		{"SELECT extract(SECONDS FROM timestamp'2019-10-01 00:00:01.000001')",
			"extract(SECONDS FROM TIMESTAMP '2019-10-01 00:00:01.000001')", "decimal(8,6)", "1.000001"},
		{"SELECT extract(Y FROM DATE'2019-08-12')", "extract(Y FROM DATE '2019-08-12')", "int", "2019"},
		{"SELECT extract(QUARTER FROM DATE'2019-08-12')", "extract(QUARTER FROM DATE '2019-08-12')", "int", "3"},
		{"SELECT extract(DAYOFWEEK FROM DATE'2019-08-12')", "extract(DAYOFWEEK FROM DATE '2019-08-12')", "int", "2"}, // a Monday; Sunday is 1
		{"SELECT extract(DOW_ISO FROM DATE'2019-08-11')", "extract(DOW_ISO FROM DATE '2019-08-11')", "int", "7"},
		{"SELECT extract(YEAROFWEEK FROM DATE'2019-12-30')", "extract(YEAROFWEEK FROM DATE '2019-12-30')", "int", "2020"},
		{"SELECT extract(HOUR FROM CAST(NULL AS TIMESTAMP))", "extract(HOUR FROM CAST(NULL AS TIMESTAMP))", "int", "(null)"},
		{"SELECT extract(MINUTE FROM INTERVAL '123 23:55:59.002001' DAY TO SECOND)",
			"", "tinyint", "55"},
		{"SELECT extract(HOUR FROM INTERVAL '123 23:55:59.002001' DAY TO SECOND)",
			"", "tinyint", "23"},
		{"SELECT extract(DAY FROM INTERVAL '123 23:55:59.002001' DAY TO SECOND)",
			"", "int", "123"},
		{"SELECT date_part('seconds', interval 5 hours 30 seconds 1 milliseconds 1 microseconds)", "", "decimal(8,6)", "30.001001"},
		{"SELECT datepart('days', interval 5 days 3 hours 7 minutes)", "", "int", "5"},
		{"SELECT extract(HOUR FROM INTERVAL '-1 02:03:04' DAY TO SECOND)", "", "tinyint", "-2"},
		{"SELECT extract(SECOND FROM INTERVAL '-1 02:03:04.5' DAY TO SECOND)", "", "decimal(8,6)", "-4.500000"},
	}
	for _, c := range cases {
		name, typ, rows, err := result(t, c.query)
		if err != nil || typ != c.typ || strings.Join(rows, ",") != c.val || (c.name != "" && name != c.name) {
			t.Errorf("%s: %q %s %v (%v), want %q %s %s", c.query, name, typ, rows, err, c.name, c.typ, c.val)
		}
	}
	for _, q := range []string{
		"SELECT extract(YEAR FROM INTERVAL '1 02:03:04' DAY TO SECOND)",
		"SELECT extract(NOPE FROM DATE '2019-08-12')",
	} {
		if _, _, _, err := result(t, q); err == nil || !strings.Contains(err.Error(), "INVALID_EXTRACT_FIELD") {
			t.Errorf("%s: %v, want INVALID_EXTRACT_FIELD", q, err)
		}
	}
}
