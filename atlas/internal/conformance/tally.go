package conformance

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Outcome is what one example did.
type Outcome int

// The outcomes of an example.
const (
	Failed   Outcome = iota // refused or failed with an error
	Mismatch                // ran, but the result differs from Spark's
	Match                   // ran and matched Spark's rows, names and types
	Ran                     // ran; non-deterministic, so not compared
)

// Tally counts outcomes per group.
type Tally struct {
	groups map[string]*counts
	errors map[string]int
}

type counts struct {
	total, runs, det, match int
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{groups: map[string]*counts{}, errors: map[string]int{}}
}

// Add records the outcome of c; msg is the error, for Failed. A
// non-deterministic example counts towards "runs" only.
func (t *Tally) Add(c Case, o Outcome, msg string) {
	g := t.groups[c.Group]
	if g == nil {
		g = &counts{}
		t.groups[c.Group] = g
	}
	g.total++
	if o != Failed {
		g.runs++
	}
	if Deterministic(c.Query) {
		g.det++
	}
	if o == Match {
		g.match++
	}
	if o == Failed {
		t.errors[errorKind(msg)]++
	}
}

// Total returns the counts over all groups.
func (t *Tally) Total() (total, runs, det, match int) {
	for _, g := range t.groups {
		total += g.total
		runs += g.runs
		det += g.det
		match += g.match
	}
	return
}

// MatchRate is the percentage of deterministic examples that match.
func (t *Tally) MatchRate() float64 {
	_, _, det, match := t.Total()
	return pct(match, det)
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// Print writes the per-group and total table, then the most common errors.
func (t *Tally) Print(w io.Writer, topErrors int) {
	names := make([]string, 0, len(t.groups))
	for n := range t.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-12s %6s %6s %7s %6s %6s %7s\n", "group", "tests", "runs", "runs%", "det", "match", "match%")
	for _, n := range names {
		g := t.groups[n]
		fmt.Fprintf(w, "%-12s %6d %6d %6.1f%% %6d %6d %6.1f%%\n", n, g.total, g.runs, pct(g.runs, g.total), g.det, g.match, pct(g.match, g.det))
	}
	total, runs, det, match := t.Total()
	fmt.Fprintf(w, "%-12s %6d %6d %6.1f%% %6d %6d %6.1f%%\n", "TOTAL", total, runs, pct(runs, total), det, match, pct(match, det))
	if topErrors <= 0 {
		return
	}
	type kv struct {
		k string
		n int
	}
	var errs []kv
	for k, n := range t.errors {
		errs = append(errs, kv{k, n})
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].n > errs[j].n || errs[i].n == errs[j].n && errs[i].k < errs[j].k })
	fmt.Fprintf(w, "most common errors:\n")
	for i, e := range errs {
		if i == topErrors {
			break
		}
		fmt.Fprintf(w, "%5d  %s\n", e.n, e.k)
	}
}

var (
	quotedText = regexp.MustCompile(`"[^"]*"|'[^']*'|\x60[^\x60]*\x60`)
	numbers    = regexp.MustCompile(`\b\d+\b`)
)

// errorKind shortens an error message to what it says is missing, so that
// messages differing only in names and positions count together.
func errorKind(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg = strings.TrimPrefix(msg, "sql: ")
	if i := strings.Index(msg, "; supported:"); i > 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, "Atlas implements"); i > 0 {
		msg = msg[:i]
	}
	msg = numbers.ReplaceAllString(msg, "N")
	if len(msg) > 110 {
		msg = msg[:110]
	}
	return msg
}
