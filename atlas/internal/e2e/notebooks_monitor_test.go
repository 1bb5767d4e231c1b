package e2e_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// monitorQuery is the query the events notebook's monitoring cells start
// in one cell and watch, query and stop from the next ones.
const monitorQuery = "event_counts"

// showRow matches a data row of DataFrame.Show's HTML table (in a
// notebook Show displays HTML) with a string and a number column.
var showRow = regexp.MustCompile(`<tr><td>([^<]+)</td><td class="num">(\d+)</td></tr>`)

// checkMonitoringCells checks the cross-cell cells of the events notebook:
// the query one cell started is active in the next ones (status, Active),
// a later cell attaches the live charts to it and leaves it running, its
// last progress is Spark's JSON, the memory sink's counts per event type
// equal the counts of the raw Kafka records, and the last cell stops it.
func checkMonitoringCells(t *testing.T, st *privateStack, cells []executedCell) {
	t.Helper()
	if out := taggedCell(t, cells, "monitor-start").stdout(); !strings.Contains(out, "started "+monitorQuery+" (id ") {
		t.Errorf("the start cell printed:\n%s", out)
	}
	status := taggedCell(t, cells, "monitor-status").stdout()
	var st0 progress.QueryStatus
	line, _, _ := strings.Cut(strings.TrimPrefix(status, "status: "), "\n")
	if err := json.Unmarshal([]byte(line), &st0); err != nil || st0.Message == "" || !strings.Contains(status, "active: "+monitorQuery+" ") {
		t.Errorf("the status cell (a later process) did not see the running query (%v):\n%s", err, status)
	}
	watch := taggedCell(t, cells, "monitor-watch")
	// Counts per event type: state, no watermark, so no event-time panel.
	checkProgressCharts(t, watch, []string{"rows / second (log scale)", "trigger duration (ms)", "state rows / late rows dropped"})
	// Dated and in the past tense: a later cell stops the query, and the
	// saved frame must stay true.
	if frames := watch.html(); len(frames) == 1 && (strings.Contains(frames[0], "still running") ||
		!regexp.MustCompile(`running at \d\d:\d\d:\d\d UTC, when this cell stopped watching`).MatchString(frames[0])) {
		t.Errorf("the watch cell's final frame does not say when it stopped watching the running query")
	}
	var p progress.StreamingQueryProgress
	out := taggedCell(t, cells, "monitor-progress").stdout()
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Name != monitorQuery || p.ID == "" || len(p.Sources) != 1 || len(p.StateOperators) != 1 {
		t.Errorf("the progress cell printed no progress JSON of %s (%v):\n%s", monitorQuery, err, out)
	}
	// The reference: every record's event type, counted from the raw topic.
	want := map[string]int64{}
	for _, list := range st.kafka(t).readTopic("events") {
		for _, r := range list {
			var ev struct {
				Event *string `json:"event"`
			}
			if json.Unmarshal(r.value, &ev) != nil || ev.Event == nil {
				t.Fatalf("record %d/%d is not an event: %q", r.partition, r.offset, r.value)
			}
			want[*ev.Event]++
		}
	}
	got := map[string]int64{}
	for _, m := range showRow.FindAllStringSubmatch(strings.Join(taggedCell(t, cells, "monitor-sql").html(), ""), -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		got[m[1]] = n
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Errorf("the memory sink shows %v, the raw records hold %v", got, want)
	}
	for ev, n := range want {
		if got[ev] != n {
			t.Errorf("event %s: the memory sink counts %d, the raw records %d", ev, got[ev], n)
		}
	}
	if out := taggedCell(t, cells, "monitor-stop").stdout(); !strings.Contains(out, "stopped "+monitorQuery+"; still active: false") {
		t.Errorf("the stop cell printed:\n%s", out)
	}
}
