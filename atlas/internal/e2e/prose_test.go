package e2e_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The notebooks' prose states facts about their own outputs ("1 or 2 in
// about 12% of the windows", "13,112 bytes"). These helpers read the prose
// back, so a test compares each stated fact with the reference it computes
// from the raw records: prose that drifts from the data fails.

// source returns the cell's source text.
func (c executedCell) source() string { return multiline(c.Source) }

// markdownCell returns the source of the only markdown cell that starts
// with heading (such as "## Check yourself").
func markdownCell(t *testing.T, cells []executedCell, heading string) string {
	t.Helper()
	var found []string
	for _, c := range cells {
		if src := c.source(); c.CellType == "markdown" && strings.HasPrefix(src, heading) {
			found = append(found, src)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d markdown cells start with %q, want 1", len(found), heading)
	}
	return found[0]
}

// proseNumber returns the number the prose prints where pattern's one
// group is, commas allowed ("13,112").
func proseNumber(t *testing.T, prose, pattern string) float64 {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(prose)
	if m == nil {
		t.Fatalf("the prose no longer says %q:\n%s", pattern, prose)
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	if err != nil {
		t.Fatalf("the prose's number %q: %v", m[1], err)
	}
	return f
}

// proseSays fails unless the prose has every one of want and none of
// wrong (a claim the code contradicts).
func proseSays(t *testing.T, what, prose string, want, wrong []string) {
	t.Helper()
	norm := strings.Join(strings.Fields(prose), " ")
	for _, w := range want {
		if !strings.Contains(norm, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, prose)
		}
	}
	for _, w := range wrong {
		if strings.Contains(norm, w) {
			t.Errorf("%s says %q, which the code contradicts:\n%s", what, w, prose)
		}
	}
}

// codeCell returns the source of the only code cell tagged tag.
func codeCell(t *testing.T, cells []executedCell, tag string) string {
	t.Helper()
	return taggedCell(t, cells, tag).source()
}

// codeSources returns the sources of every code cell.
func codeSources(cells []executedCell) []string {
	var out []string
	for _, c := range cells {
		if c.CellType == "code" {
			out = append(out, c.source())
		}
	}
	return out
}
