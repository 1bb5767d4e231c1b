package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// lab03Edits is how many edits lab 3's Setup cell replays into the topic.
const lab03Edits = 20_000

// checkLab03 recomputes lab 3's three results from the raw Kafka records
// (encoding/json decoding, Go maps) and compares them with the JSON lines
// the Write cell saved: edits per wiki, bot and minute; exact distinct
// editors per wiki over 10-minute windows sliding every minute, with the
// HyperLogLog++ estimate within its error; edits per title.
func checkLab03(t *testing.T, st *privateStack, cells []executedCell) {
	checkLiveView(t, cells, "write")
	if !strings.Contains(taggedCell(t, cells, "write").stdout(), "the three queries read the whole sample") {
		t.Fatalf("the Write cell did not finish:\n%s", taggedCell(t, cells, "write").stdout())
	}
	e := st.kafka(t)
	perWiki := map[string]int64{}
	editors := map[string]map[string]bool{}
	titles := map[string]int64{}
	n := 0
	for _, recs := range e.readTopic("wiki_edits") {
		for _, r := range recs {
			n++
			var ed produce.Edit
			if err := json.Unmarshal(r.value, &ed); err != nil {
				t.Fatalf("record %d: %v", r.offset, err)
			}
			ts := time.Unix(ed.Timestamp, 0).UTC()
			minute := ts.Truncate(time.Minute)
			perWiki[fmt.Sprintf("%s|%s|%v", minute.Format(time.RFC3339), ed.Wiki, ed.Bot)]++
			for k := 0; k < 10; k++ {
				key := minute.Add(-time.Duration(k)*time.Minute).Format(time.RFC3339) + "|" + ed.Wiki
				if editors[key] == nil {
					editors[key] = map[string]bool{}
				}
				editors[key][ed.User] = true
			}
			titles[ed.Title]++
		}
	}
	if n != lab03Edits {
		t.Fatalf("the topic holds %d edits, the Setup cell replays %d", n, lab03Edits)
	}
	dir := filepath.Join(st.home, "lab03")
	got := map[string]int64{}
	readJSONLines(t, filepath.Join(dir, "per_wiki.jsonl"), func(m map[string]any) {
		got[fmt.Sprintf("%s|%v|%v", utcOf(t, m["window_start"]), m["wiki"], m["bot"])] = int64(m["count"].(float64))
	})
	diffCounts(t, "per_wiki", got, perWiki)

	got = map[string]int64{}
	approx := map[string]int64{}
	readJSONLines(t, filepath.Join(dir, "editors.jsonl"), func(m map[string]any) {
		key := fmt.Sprintf("%s|%v", utcOf(t, m["window_start"]), m["wiki"])
		got[key] = int64(m["editors_exact"].(float64))
		approx[key] = int64(m["editors_approx"].(float64))
		if approx := int64(m["editors_approx"].(float64)); !hllClose(approx, len(editors[key])) {
			t.Errorf("editors %s: approx_count_distinct %d, exact %d: beyond HyperLogLog++'s error", key, approx, len(editors[key]))
		}
	})
	exact := map[string]int64{}
	for k, set := range editors {
		exact[k] = int64(len(set))
	}
	diffCounts(t, "editors", got, exact)
	checkLab03Busiest(t, cells, exact, approx)

	got = map[string]int64{}
	readJSONLines(t, filepath.Join(dir, "titles.jsonl"), func(m map[string]any) {
		got[m["title"].(string)] = int64(m["count"].(float64))
	})
	diffCounts(t, "titles", got, titles)
}

// readJSONLines calls fn with every line of a JSON lines file.
func readJSONLines(t *testing.T, path string, fn func(map[string]any)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		fn(m)
	}
}

// utcOf normalizes a JSON timestamp to RFC 3339 in UTC.
func utcOf(t *testing.T, v any) string {
	t.Helper()
	s, _ := v.(string)
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %v: %v", v, err)
	}
	return ts.UTC().Format(time.RFC3339)
}

// diffCounts reports the keys whose counts differ, a few at most.
func diffCounts(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	bad := 0
	for k, w := range want {
		if got[k] != w {
			if bad++; bad <= 5 {
				t.Errorf("%s %s: %d, the reference %d", what, k, got[k], w)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d keys, the reference %d", what, len(got), len(want))
	}
}

// checkLab03Busiest checks the results cell's second table, the one
// Check yourself's question 2 asks about: the 10 windows with the most
// distinct editors of the reference (exact counts from the raw records;
// ties by window start, then wiki), each with its HyperLogLog++ estimate as
// saved and its relative error.
func checkLab03Busiest(t *testing.T, cells []executedCell, exact, approx map[string]int64) {
	t.Helper()
	type window struct {
		start, wiki string
		n           int64
	}
	var ws []window
	for k, n := range exact {
		start, wiki, _ := strings.Cut(k, "|")
		ws = append(ws, window{start, wiki, n})
	}
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].n != ws[j].n {
			return ws[i].n > ws[j].n
		}
		if ws[i].start != ws[j].start {
			return ws[i].start < ws[j].start
		}
		return ws[i].wiki < ws[j].wiki
	})
	var tables []*sparkTable
	for _, p := range taggedCell(t, cells, "results").parts() {
		if p.table != nil {
			tables = append(tables, p.table)
		}
	}
	if len(tables) != 3 {
		t.Fatalf("the results cell shows %d tables, want 3", len(tables))
	}
	tb := tables[1]
	cs, cw, ce, ca, cr := tb.column(t, "window_start"), tb.column(t, "wiki"), tb.column(t, "editors_exact"), tb.column(t, "editors_approx"), tb.column(t, "relative_error")
	if len(tb.rows) != 10 {
		t.Fatalf("the busiest-windows table has %d rows, want 10", len(tb.rows))
	}
	for i, r := range tb.rows {
		ts, err := time.Parse("2006-01-02 15:04:05", r[cs])
		if err != nil {
			t.Fatalf("window_start %q: %v", r[cs], err)
		}
		w := ws[i]
		key := ts.UTC().Format(time.RFC3339) + "|" + r[cw]
		wantErr := math.Round(math.Abs(float64(approx[key]-w.n))/float64(w.n)*1e4) / 1e4
		gotErr, _ := strconv.ParseFloat(r[cr], 64)
		if ts.UTC().Format(time.RFC3339) != w.start || r[cw] != w.wiki || r[ce] != strconv.FormatInt(w.n, 10) ||
			r[ca] != strconv.FormatInt(approx[key], 10) || math.Abs(gotErr-wantErr) > 1e-9 {
			t.Errorf("busiest window %d: %v, the reference %s %s exact %d approx %d error %v", i+1, r, w.start, w.wiki, w.n, approx[key], wantErr)
		}
	}
	proseSays(t, "Check yourself", markdownCell(t, cells, "## Check yourself"),
		[]string{"The results cell shows the busiest windows, the 10 with the most distinct editors"}, nil)
}
