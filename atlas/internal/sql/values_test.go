package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

func noTables(name *parser.Name) (plan.Node, error) {
	return nil, fmt.Errorf("no table %s", name)
}

// query plans and runs a SELECT without tables and renders its schema
// (name:type:nullable) and rows.
func query(t *testing.T, q string) (string, string, error) {
	t.Helper()
	st, err := parser.Parse(q)
	if err != nil {
		return "", "", err
	}
	n, err := sql.PlanSelect(st.(*parser.Select), noTables)
	if err != nil {
		return "", "", err
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		return "", "", err
	}
	var cols, rows []string
	for _, f := range schema.Fields() {
		cols = append(cols, fmt.Sprintf("%s:%s:%v", f.Name, f.Type, f.Nullable))
	}
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			var cells []string
			for j := 0; j < int(r.NumCols()); j++ {
				cells = append(cells, cell(r.Column(j), i))
			}
			rows = append(rows, strings.Join(cells, ","))
		}
		r.Release()
	}
	return strings.Join(cols, " "), strings.Join(rows, "|"), nil
}

func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	return a.ValueStr(i)
}

// TestInlineTables checks VALUES against Spark's ResolveInlineTables:
// column names (alias list, else col1..), the wider type of each column,
// nullability from the values, and the rows in order.
func TestInlineTables(t *testing.T) {
	for _, c := range []struct{ q, schema, rows string }{
		{"SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(x, y)", "x:int32:false y:utf8:false", "1,a|2,b"},
		{"SELECT col FROM VALUES (1), (2), (NULL) tab(col)", "col:int32:true", "1|2|NULL"},
		{"SELECT * FROM VALUES (1, 2L), (3, 4)", "col1:int32:false col2:int64:false", "1,2|3,4"},
		{"SELECT * FROM VALUES (1), (2.5D)", "col1:float64:false", "1|2.5"},
		{"VALUES (1, 'x'), (2, 'y')", "col1:int32:false col2:utf8:false", "1,x|2,y"},
		{"SELECT sum(a), count(*) FROM VALUES (1), (2), (3) AS t(a)", "sum(a):int64:true count(1):int64:false", "6,3"},
		{"SELECT t.col1 FROM (VALUES (7)) AS t", "col1:int32:false", "7"},
	} {
		schema, rows, err := query(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if schema != c.schema || rows != c.rows {
			t.Errorf("%s:\n got %s / %s\nwant %s / %s", c.q, schema, rows, c.schema, c.rows)
		}
	}
}

// TestInlineTableErrors: Spark's INVALID_INLINE_TABLE errors.
func TestInlineTableErrors(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT * FROM VALUES (1, 2), (3)":          "NUM_COLUMNS_MISMATCH",
		"SELECT * FROM VALUES (1), ('a')":           "INCOMPATIBLE_TYPES_IN_INLINE_TABLE",
		"SELECT * FROM VALUES (x) AS t(a)":          "CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE",
		"SELECT * FROM VALUES (1, 2) AS t(a, b, c)": "NUM_COLUMNS_MISMATCH",
	} {
		_, _, err := query(t, q)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
}
