package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Compare checks Atlas's result against Spark's: the column names, the
// column types and the rows (in order when the query has an ORDER BY, as
// multisets otherwise). It returns "" when they match, else what differs.
func Compare(c Case, schema *arrow.Schema, recs []arrow.RecordBatch, loc *time.Location) string {
	if schema.NumFields() != len(c.Columns) {
		return fmt.Sprintf("%d columns %v, Spark has %d %v", schema.NumFields(), names(schema), len(c.Columns), specNames(c.Columns))
	}
	for i, f := range schema.Fields() {
		want := c.Columns[i]
		if f.Name != want.Name {
			return fmt.Sprintf("column %d is named %q, Spark names it %q", i+1, f.Name, want.Name)
		}
		if got := ArrowTypeString(f.Type); got != want.Type {
			return fmt.Sprintf("column %q is %s, Spark's is %s", f.Name, got, want.Type)
		}
	}
	// The corpus's rows lost their leading and trailing blanks, and a row
	// that printed as nothing (one empty string) is not there at all.
	got := trimmed(HiveRows(recs, loc))
	want := trimmed(c.Result)
	if !Ordered(c.Query) {
		got, want = sorted(got), sorted(want)
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("rows %s, Spark's %s", clip(got), clip(want))
	}
	return ""
}

func names(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

func specNames(cs []Column) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func trimmed(rows []string) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

func sorted(rows []string) []string {
	out := slices.Clone(rows)
	slices.Sort(out)
	return out
}

func clip(rows []string) string {
	s := "[" + strings.Join(rows, " | ") + "]"
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
