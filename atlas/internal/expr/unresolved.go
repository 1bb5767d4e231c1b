package expr

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// maxProposals is how many columns Spark proposes for an unknown one.
const maxProposals = 5

// UnresolvedColumn is Spark's UNRESOLVED_COLUMN error for the column name
// (its parts) over the input schema s: WITH_SUGGESTION proposes the five
// input columns nearest to it by Levenshtein distance, as Spark's
// StringUtils.orderSuggestedIdentifiersBySimilarity orders them;
// WITHOUT_SUGGESTION when s has no column.
func UnresolvedColumn(parts []string, s *arrow.Schema) *sparkerr.Error {
	name := QuoteID(parts...)
	if s == nil || s.NumFields() == 0 {
		return sparkerr.WithParams("UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", map[string]string{"objectName": name},
			"A column, variable, or function parameter with name %s cannot be resolved.", name)
	}
	base := strings.Join(parts, ".")
	type cand struct {
		id   string
		dist int
	}
	cands := make([]cand, s.NumFields())
	for i, f := range s.Fields() {
		id := QuoteID(f.Name)
		if q := Qualifier(f); q != "" && len(parts) > 1 {
			id = QuoteID(q, f.Name)
		}
		cands[i] = cand{id, levenshtein(id, base)}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	ids := make([]string, 0, maxProposals)
	for _, c := range cands[:min(len(cands), maxProposals)] {
		ids = append(ids, c.id)
	}
	proposal := strings.Join(ids, ", ")
	return sparkerr.WithParams("UNRESOLVED_COLUMN.WITH_SUGGESTION", map[string]string{"objectName": name, "proposal": proposal},
		"A column, variable, or function parameter with name %s cannot be resolved. Did you mean one of the following? [%s].", name, proposal)
}

// QuoteID is Spark's toSQLId: each part in backticks (a backtick in a
// part doubled), joined by dots.
func QuoteID(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(q, ".")
}

// levenshtein is the edit distance of a and b, by runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
