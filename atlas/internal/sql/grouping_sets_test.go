package sql_test

import (
	"strings"
	"testing"
)

// TestCubeAndRollup checks GROUP BY CUBE and ROLLUP against the grouping
// sets written out by hand: omitted keys are NULL, grouping(k) is 1 for
// them, grouping_id() counts the first key as the highest bit.
func TestCubeAndRollup(t *testing.T) {
	const rows = "FROM VALUES ('a', 'x', 1), ('a', 'y', 2), ('b', 'x', 4) AS t(g, h, v)"
	for _, c := range []struct{ q, schema, rows string }{
		{"SELECT g, h, grouping_id(), sum(v) " + rows + " GROUP BY CUBE(g, h) ORDER BY grouping_id(), g, h",
			"g:utf8:true h:utf8:true grouping_id():int64:false sum(v):int64:true",
			"a,x,0,1|a,y,0,2|b,x,0,4|a,NULL,1,3|b,NULL,1,4|NULL,x,2,5|NULL,y,2,2|NULL,NULL,3,7"},
		{"SELECT g, h, grouping(g), grouping(h), count(*) " + rows + " GROUP BY ROLLUP(g, h) ORDER BY grouping(h), grouping(g), g, h",
			"g:utf8:true h:utf8:true grouping(g):int8:false grouping(h):int8:false count(1):int64:false",
			"a,x,0,0,1|a,y,0,0,1|b,x,0,0,1|a,NULL,0,1,2|b,NULL,0,1,1|NULL,NULL,1,1,3"},
		// A plain key stays in every set.
		{"SELECT g, h, sum(v) " + rows + " GROUP BY g, ROLLUP(h) ORDER BY g, h",
			"g:utf8:true h:utf8:true sum(v):int64:true", "a,NULL,3|a,x,1|a,y,2|b,NULL,4|b,x,4"},
	} {
		schema, got, err := query(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if schema != c.schema || got != c.rows {
			t.Errorf("%s\n got  %s / %s\n want %s / %s", c.q, schema, got, c.schema, c.rows)
		}
	}
	for q, want := range map[string]string{
		"SELECT grouping(g), count(*) " + rows + " GROUP BY g":       "UNSUPPORTED_GROUPING_EXPRESSION",
		"SELECT grouping(v), count(*) " + rows + " GROUP BY CUBE(g)": "GROUPING_COLUMN_MISMATCH",
		"SELECT count(*) " + rows + " GROUP BY CUBE(g), ROLLUP(h)":   "more than one CUBE or ROLLUP",
	} {
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", q, err, want)
		}
	}
}
