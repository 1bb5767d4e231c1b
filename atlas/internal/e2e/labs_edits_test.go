package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	readJSONLines(t, filepath.Join(dir, "editors.jsonl"), func(m map[string]any) {
		key := fmt.Sprintf("%s|%v", utcOf(t, m["window_start"]), m["wiki"])
		got[key] = int64(m["editors_exact"].(float64))
		if approx := int64(m["editors_approx"].(float64)); !hllClose(approx, len(editors[key])) {
			t.Errorf("editors %s: approx_count_distinct %d, exact %d: beyond HyperLogLog++'s error", key, approx, len(editors[key]))
		}
	})
	exact := map[string]int64{}
	for k, set := range editors {
		exact[k] = int64(len(set))
	}
	diffCounts(t, "editors", got, exact)

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
