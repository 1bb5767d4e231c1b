package sql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// rowsOf runs a query and renders its rows, each as its values joined by
// spaces, and its column names.
func rowsOf(t *testing.T, query string) (string, []string, error) {
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
	var names, out []string
	for _, f := range schema.Fields() {
		names = append(names, f.Name)
	}
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			var vals []string
			for c := 0; c < int(r.NumCols()); c++ {
				vals = append(vals, r.Column(c).ValueStr(i))
			}
			out = append(out, strings.Join(vals, " "))
		}
		r.Release()
	}
	return strings.Join(names, ","), out, nil
}

// TestOrderByDroppedColumn: ORDER BY may name a column of the FROM clause
// that the select list leaves out, as in Spark (ResolveMissingReferences);
// the result has the select list's columns only, in the key's order. It
// was refused as an unknown column. With DISTINCT Spark refuses it too.
func TestOrderByDroppedColumn(t *testing.T) {
	const rows = "VALUES (1, 30, 'x'), (2, 10, 'y'), (3, 20, 'x'), (4, 5, 'y'), (5, 25, 'x') AS t(a, b, c)"
	cases := []struct{ query, cols, want string }{
		// b: 30 10 20 5 25 for a = 1..5; b % 7: 2 3 6 5 4
		{"SELECT a FROM " + rows + " ORDER BY b", "a", "4|2|3|5|1"},
		{"SELECT a + 1 AS x FROM " + rows + " ORDER BY b DESC LIMIT 2", "x", "2|6"},
		{"SELECT a FROM " + rows + " WHERE a > 1 ORDER BY b DESC LIMIT 3", "a", "5|3|2"},
		{"SELECT c, a FROM " + rows + " ORDER BY c, b DESC", "c,a", "x 1|x 5|x 3|y 2|y 4"},
		{"SELECT a FROM " + rows + " ORDER BY a * -1", "a", "5|4|3|2|1"},
		{"SELECT a FROM " + rows + " ORDER BY b % 7, a", "a", "1|2|5|4|3"},
	}
	for _, c := range cases {
		cols, got, err := rowsOf(t, c.query)
		if err != nil || cols != c.cols || strings.Join(got, "|") != c.want {
			t.Errorf("%s:\n got %s %v (%v)\nwant %s %s", c.query, cols, got, err, c.cols, c.want)
		}
	}
	if _, _, err := rowsOf(t, "SELECT DISTINCT a FROM "+rows+" ORDER BY b"); err == nil || !strings.Contains(err.Error(), "UNRESOLVED_COLUMN") {
		t.Errorf("DISTINCT with a dropped ORDER BY column: %v, want UNRESOLVED_COLUMN", err)
	}
	if _, _, err := rowsOf(t, "SELECT a FROM "+rows+" ORDER BY nope"); err == nil || !strings.Contains(err.Error(), "UNRESOLVED_COLUMN") {
		t.Errorf("unknown ORDER BY column: %v, want UNRESOLVED_COLUMN", err)
	}
}
