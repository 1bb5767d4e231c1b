package parser

import "testing"

// TestWithinGroup checks that the ordering of an ordered-set aggregate
// is parsed into the call and printed back as SQL, and that WITHIN stays
// an ordinary alias elsewhere.
func TestWithinGroup(t *testing.T) {
	for in, want := range map[string]string{
		"percentile_cont(0.25) WITHIN GROUP (ORDER BY col)":             "percentile_cont(0.25) WITHIN GROUP (ORDER BY col)",
		"mode() within group (order by col DESC)":                       "mode() WITHIN GROUP (ORDER BY col DESC)",
		"listagg(s, ',') WITHIN GROUP (ORDER BY a, b DESC NULLS FIRST)": "listagg(s, ',') WITHIN GROUP (ORDER BY a, b DESC NULLS FIRST)",
	} {
		e := mustExpr(t, in)
		c, ok := e.(*Call)
		if !ok || len(c.WithinGroup) == 0 {
			t.Errorf("%s: got %#v, want a call with WITHIN GROUP", in, e)
			continue
		}
		if got := e.SQL(); got != want {
			t.Errorf("%s: SQL() = %s, want %s", in, got, want)
		}
	}
	st, err := Parse("SELECT count(*) within FROM t")
	if err != nil {
		t.Fatalf("WITHIN as an alias: %v", err)
	}
	if got := st.(*Select).Items[0].Alias; got != "within" {
		t.Errorf("alias = %q, want within", got)
	}
}
