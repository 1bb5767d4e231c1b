package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// labNotebook is one teaching lab under notebooks/ and how to check it.
type labNotebook struct {
	// name is the lab's directory under notebooks/.
	name string
	// charts is how many chart containers the saved notebook draws at least.
	charts int
	// check compares the executed cells' outputs with references computed
	// here from the source's raw records.
	check func(t *testing.T, st *privateStack, cells []executedCell)
	// interrupt is the tag of a blocking cell the test interrupts through
	// the kernel (on a fresh stack) before re-running it and the cells
	// after it; "" for none.
	interrupt string
	// interruptSet are the --set constants of the interrupted run (small
	// batches, so that the cell still runs when the interrupt lands).
	interruptSet []string
	// checkInterrupted checks the interrupted run instead of check.
	checkInterrupted func(t *testing.T, st *privateStack, cells []executedCell)
}

// plainCharts is how many charts a progress frame of a query without a
// watermark and without state holds: rates and durations.
const plainCharts = 2

// labNotebooks are the labs TestLabNotebooks runs.
var labNotebooks = []labNotebook{
	// Two stateless views (console, memory), then the windowed modes.
	{name: "labs/01-first-stream-output-modes", charts: 2*plainCharts + progressCharts, check: checkLab01},
	{name: "labs/02-monitoring", charts: progressCharts, check: checkLab02,
		// Interrupting the live view stops watching, not the query: the
		// cells after it still find it running.
		interrupt: "live-view", checkInterrupted: checkLab02Interrupted},
	{name: "labs/03-edits-stream", charts: progressCharts, check: checkLab03},
	// The killed run, the restart and the reference run: plain copies.
	{name: "labs/04-kill-and-restart", charts: 3 * plainCharts, check: checkLab04, interrupt: "run",
		// Batches of 10 records (2,000 batches) and no hold to kill in:
		// only the interrupt stops the Run cell. The query must still run
		// when the cell's first output comes (about 1 s after it started):
		// with batches of 100 the 200 batches ran in under a second on CI,
		// the query ended by itself and the interrupt found nothing to stop.
		interruptSet:     []string{"maxOffsetsPerTrigger=10", "killInBatch=1_000_000"},
		checkInterrupted: checkLab04Interrupted},
	// The Load cell's copy (plain), then the accuracy chart.
	{name: "labs/05-sketches", charts: plainCharts + 1, check: checkLab05},
	{name: "labs/06-mobile-money", charts: progressCharts, check: checkLab06},
	{name: "labs/07-file-source-and-late-data", charts: progressCharts, check: checkLab07},
	// The silver query: state (dropDuplicates), no watermark.
	{name: "fraud_velocity", charts: plainCharts + 1, check: checkFraudVelocity},
}

// TestLabNotebooks executes each teaching lab through the installed kernel
// on a private stack (own ATLAS_HOME, broker and Spark Connect ports): Run
// All must pass every cell, its outputs must match references computed
// from the raw records of its source, and its live charts must draw in
// headless Chromium. Runs with ATLAS_NOTEBOOK_TEST=1 (make notebook-test).
func TestLabNotebooks(t *testing.T) {
	h := newNotebookHarness(t)
	for _, lab := range labNotebooks {
		t.Run(lab.name, func(t *testing.T) { h.runLab(t, lab) })
		if lab.interrupt != "" {
			t.Run(lab.name+"/interrupt", func(t *testing.T) { h.interruptLab(t, lab) })
		}
	}
}

// runLab runs the lab top to bottom on a fresh stack and checks it.
func (h *notebookHarness) runLab(t *testing.T, lab labNotebook) {
	st := newPrivateStack(t)
	dir := h.artifactDir(t, strings.ReplaceAll(lab.name, "/", "-"))
	out := filepath.Join(dir, "notebook.out.ipynb")
	log := filepath.Join(dir, "run_notebook.log")
	start := time.Now()
	if _, code := h.python(t, st, log, "run_notebook.py", filepath.Join(h.repo, "notebooks", lab.name, "notebook.ipynb"), "--out", out); code != 0 {
		t.Fatalf("run_notebook.py exit %d (1: a cell failed, 2: the run broke):\n%s", code, tailOf(log))
	}
	t.Logf("Run All of %s took %s (load average %s)", lab.name, time.Since(start).Round(100*time.Millisecond), loadAverage())
	checkRunAll(t, out, log)
	cells := readExecuted(t, out)
	lab.check(t, st, cells)

	shot := filepath.Join(dir, "notebook.png")
	blog := filepath.Join(dir, "browser_test.log")
	if _, code := h.python(t, st, blog, "browser_test.py", out, "--screenshot", shot, "--min-charts", strconv.Itoa(lab.charts)); code != 0 {
		t.Errorf("browser_test.py exit %d (1: a chart did not draw):\n%s", code, tailOf(blog))
	}
}

// loadAverage is the 1, 5 and 15 minute load averages, for the timing logs.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// intAfter returns the integer printed after key (as "key=12", "key: 12" or "key 12").
func intAfter(t *testing.T, text, key string) int64 {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(key) + `[=: ]\s*(-?\d+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %q in:\n%s", key, text)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// sparkTable is a table as Show displays it in a notebook (an HTML
// atlas-table): header and rows, cells unescaped.
type sparkTable struct {
	header []string
	rows   [][]string
}

// Patterns of table.HTMLTable's markup.
var (
	htmlHeaderCell = regexp.MustCompile(`<th>(.*?)</th>`)
	htmlBodyRow    = regexp.MustCompile(`(?s)<tbody>(.*?)</tbody>`)
	htmlRow        = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	htmlCell       = regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
)

// parseHTMLTable reads one atlas-table.
func parseHTMLTable(doc string) sparkTable {
	var tb sparkTable
	for _, m := range htmlHeaderCell.FindAllStringSubmatch(doc, -1) {
		tb.header = append(tb.header, html.UnescapeString(m[1]))
	}
	body := htmlBodyRow.FindStringSubmatch(doc)
	if body == nil {
		return tb
	}
	for _, r := range htmlRow.FindAllStringSubmatch(body[1], -1) {
		var row []string
		for _, c := range htmlCell.FindAllStringSubmatch(r[1], -1) {
			row = append(row, html.UnescapeString(c[1]))
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// cellPart is one output of a cell, in order: printed text or a table.
type cellPart struct {
	text  string
	table *sparkTable
}

// parts returns the cell's stdout and displayed tables in output order.
func (c executedCell) parts() []cellPart {
	var out []cellPart
	for _, o := range c.Outputs {
		if o.OutputType == "stream" && o.Name == "stdout" {
			out = append(out, cellPart{text: multiline(o.Text)})
		}
		if h, ok := o.Data["text/html"]; ok {
			if doc := multiline(h); strings.Contains(doc, `class="atlas-table"`) {
				tb := parseHTMLTable(doc)
				out = append(out, cellPart{table: &tb})
			}
		}
	}
	return out
}

// column returns the index of a header name.
func (tb sparkTable) column(t *testing.T, name string) int {
	t.Helper()
	for i, h := range tb.header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, tb.header)
	return -1
}

// interruptLab interrupts the lab's blocking cell mid-stream through the
// kernel (it must stop within 5 s, as GoNB kills it after), re-runs it and
// the cells after it, and checks the lab as after a Run All.
func (h *notebookHarness) interruptLab(t *testing.T, lab labNotebook) {
	st := newPrivateStack(t)
	dir := h.artifactDir(t, strings.ReplaceAll(lab.name, "/", "-")+"-interrupt")
	out := filepath.Join(dir, "notebook.out.ipynb")
	log := filepath.Join(dir, "interrupt_test.log")
	args := []string{filepath.Join(h.repo, "notebooks", lab.name, "notebook.ipynb"), "--cell-tag", lab.interrupt, "--max-seconds", "5", "--out", out}
	for _, kv := range lab.interruptSet {
		args = append(args, "--set", kv)
	}
	stdout, code := h.python(t, st, log, "interrupt_test.py", args...)
	var res struct {
		ReplyStatus string   `json:"reply_status"`
		Stop        *float64 `json:"interrupt_to_reply_s"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("interrupt_test.py exit %d (%v):\n%s", code, err, tailOf(log))
	}
	if res.Stop == nil || *res.Stop > 5 || res.ReplyStatus != "ok" {
		t.Fatalf("the interrupted cell replied %q after %v s, want ok within 5 s", res.ReplyStatus, res.Stop)
	}
	t.Logf("interrupted, the %q cell stopped in %.3f s", lab.interrupt, *res.Stop)
	lab.checkInterrupted(t, st, readExecuted(t, out))
}

// checkLiveView checks that the cell saved exactly one live view (updated
// in place) with the progress charts (at least rates and durations: event
// time and state only for a query that has them) and the echarts bundle
// inlined at most once (checkRunAll: once in the notebook).
func checkLiveView(t *testing.T, cells []executedCell, tag string) {
	t.Helper()
	var frames []string
	for _, h := range taggedCell(t, cells, tag).html() {
		if chartContainer.MatchString(h) {
			frames = append(frames, h)
		}
	}
	if len(frames) != 1 {
		t.Fatalf("cell %q saved %d live views, want 1 updated in place", tag, len(frames))
	}
	if n := len(chartContainer.FindAllString(frames[0], -1)); n < plainCharts {
		t.Errorf("cell %q: the live view has %d charts, want at least %d", tag, n, plainCharts)
	}
	if n := strings.Count(frames[0], echartsInlined); n > 1 {
		t.Errorf("cell %q: the live view inlines the echarts bundle %d times, want at most once", tag, n)
	}
}

// lab01RowsPerSecond is the rate source's speed in lab 1 (its constant
// rowsPerSecond): a full 2-second window holds 2*40/4 rows per district.
const lab01RowsPerSecond = 40

// lab01Districts are lab 1's districts, picked by value % 4.
var lab01Districts = []string{"Gasabo", "Huye", "Musanze", "Rubavu"}

// checkLab01 checks the console, memory, modes and invalid-combination
// cells of lab 1 against the rate source's definition: values 0..n-1,
// rowsPerSecond evenly spaced timestamps a second, district value % 4.
func checkLab01(t *testing.T, _ *privateStack, cells []executedCell) {
	for _, tag := range []string{"console", "memory", "modes"} {
		checkLiveView(t, cells, tag)
	}
	checkLab01Console(t, taggedCell(t, cells, "console"), taggedCell(t, cells, "console-later"))
	// Memory sink: every value once, 0..n-1, as many as the query read.
	mem := taggedCell(t, cells, "memory").stdout()
	rows, minV, maxV, distinct := intAfter(t, mem, "rows"), intAfter(t, mem, "min_value"), intAfter(t, mem, "max_value"), intAfter(t, mem, "distinct_values")
	read := intAfter(t, mem, "rows read by the query")
	if rows == 0 || rows != read || distinct != rows || minV != 0 || maxV != rows-1 {
		t.Errorf("memory table: rows=%d distinct=%d values %d..%d, the query read %d: want every value 0..n-1 once", rows, distinct, minV, maxV, read)
	}
	checkLab01Modes(t, taggedCell(t, cells, "modes"))
	// Invalid combinations: each refused with Spark's reason, nothing left running.
	inv := taggedCell(t, cells, "invalid").stdout()
	for _, want := range []string{
		"append output mode not supported when there are streaming aggregations",
		"complete output mode not supported when there are no streaming aggregations",
		"data source parquet does not support update output mode",
		"sorting and limit on a streaming DataFrame are supported only after an aggregation in complete output mode",
		`unknown output mode "upsert"`,
		"active queries after the refusals: 0",
	} {
		if !strings.Contains(inv, want) {
			t.Errorf("the invalid-combinations cell does not show %q:\n%s", want, inv)
		}
	}
	if strings.Contains(inv, "started?!") {
		t.Errorf("an invalid query started:\n%s", inv)
	}
}

// consoleBatch is one micro-batch as Spark's console sink prints it with
// numRows 8 and truncate false: the header between 43 dashes, show()'s
// table of the rate source with its district column (every timestamp in
// full), the footer when rows were left out, and println's empty line.
var consoleBatch = regexp.MustCompile(`-{43}\nBatch: (\d+)\n-{43}\n` +
	`(\+-+\+-+\+-+\+)\n\|\s*timestamp\s*\|\s*value\s*\|\s*district\s*\|\n\+-+\+-+\+-+\+\n` +
	`((?:\|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s*\|\s*\d+\s*\|\s*(?:Gasabo|Huye|Musanze|Rubavu)\s*\|\n)*)` +
	`\+-+\+-+\+-+\+\n(only showing top 8 rows\n)?\n`)

// checkLab01Console checks the console cell: its console block holds every
// batch the query printed, from batch 0 on, each whole and in Spark's
// format (a batch of more than 8 rows shows 8 and says so); the later cell
// shows the last two batches again with ConsoleOutput(2).
func checkLab01Console(t *testing.T, cell, later executedCell) {
	t.Helper()
	var block string
	for _, h := range cell.html() {
		if strings.Contains(h, `class="atlas-console"`) {
			block = h
		}
	}
	text := html.UnescapeString(strings.TrimSuffix(strings.TrimPrefix(block, `<pre class="atlas-console" style="margin:0">`), `</pre>`))
	if block == "" || !strings.HasPrefix(text, "----") {
		t.Fatalf("the console cell shows no console block:\n%v\nstdout:\n%s", cell.html(), cell.stdout())
	}
	rest, next := text, 0
	for rest != "" {
		m := consoleBatch.FindStringSubmatch(rest)
		if m == nil || !strings.HasPrefix(rest, m[0]) {
			t.Fatalf("console block: batch %d is not printed as Spark's console sink prints it:\n%s", next, rest)
		}
		if id, _ := strconv.Atoi(m[1]); id != next {
			t.Errorf("console block: batch %d after batch %d", id, next-1)
		}
		rows := strings.Count(m[3], "\n")
		if rows > 8 || (m[4] != "" && rows != 8) {
			t.Errorf("console block: batch %d shows %d rows (footer %q): numRows is 8", next, rows, m[4])
		}
		rest = rest[len(m[0]):]
		next++
	}
	if next < 2 {
		t.Errorf("console block: %d batches in 3 s at a 1 s trigger, want at least 2", next)
	}
	out := later.stdout()
	if n := len(consoleBatch.FindAllString(out, -1)); n != 2 || !strings.Contains(out, "console query: ") {
		t.Errorf("the later cell shows %d console batches, want the last 2:\n%s", n, out)
	}
}

// modeHeader is the line before each mode's table in the modes cell.
var modeHeader = regexp.MustCompile(`(?m)^(append|update|complete): (\d+) rows in counts_\w+ \(the query read (\d+) rows in \d+ batches; watermark (\S+)\)`)

// labWindow is one window of one district.
type labWindow struct{ start, end, district string }

// checkLab01Modes checks the three output modes' tables: append holds each
// closed window once with its final count, update every change of a
// count, complete every window once; full windows hold 20 rows a district,
// and complete's totals are the rate source's values 0..n-1 by value % 4.
func checkLab01Modes(t *testing.T, cell executedCell) {
	t.Helper()
	// Printed text and displayed tables travel on two channels, each in
	// order: the i-th mode header goes with the i-th table.
	var tables []sparkTable
	for _, part := range cell.parts() {
		if part.table != nil {
			tables = append(tables, *part.table)
		}
	}
	heads := modeHeader.FindAllStringSubmatch(cell.stdout(), -1)
	if len(heads) != 3 || len(tables) != 3 {
		t.Fatalf("the modes cell printed %d mode headers and %d tables, want 3 and 3:\n%s", len(heads), len(tables), cell.stdout())
	}
	full := int64(2 * lab01RowsPerSecond / len(lab01Districts))
	for i, hd := range heads {
		mode := hd[1]
		n, _ := strconv.Atoi(hd[2])
		read, _ := strconv.ParseInt(hd[3], 10, 64)
		wm, err := time.Parse(time.RFC3339Nano, hd[4])
		if err != nil {
			t.Fatalf("%s: watermark %q: %v", mode, hd[4], err)
		}
		tb := tables[i]
		if len(tb.rows) != n {
			t.Fatalf("%s: the table has %d rows, its header says %d", mode, len(tb.rows), n)
		}
		cs, ce, cd, cc := tb.column(t, "window_start"), tb.column(t, "window_end"), tb.column(t, "district"), tb.column(t, "count")
		counts := map[labWindow][]int64{}
		var first string
		last := ""
		perDistrict := map[string]int64{}
		for _, r := range tb.rows {
			k := labWindow{r[cs], r[ce], r[cd]}
			c, _ := strconv.ParseInt(r[cc], 10, 64)
			counts[k] = append(counts[k], c)
			if first == "" || k.start < first {
				first = k.start
			}
			if k.start > last {
				last = k.start
			}
		}
		for k, cs := range counts {
			final := cs[len(cs)-1]
			perDistrict[k.district] += final
			endT, err := time.Parse("2006-01-02 15:04:05", k.end)
			if err != nil {
				t.Fatalf("%s: window end %q: %v", mode, k.end, err)
			}
			closed := !endT.After(wm)
			switch mode {
			case "append":
				if len(cs) != 1 {
					t.Errorf("append emitted window %v %d times", k, len(cs))
				}
				if !closed {
					t.Errorf("append emitted window %v before the watermark %s passed its end", k, wm)
				}
			case "complete":
				if len(cs) != 1 {
					t.Errorf("complete holds window %v %d times", k, len(cs))
				}
			case "update":
				for j := 1; j < len(cs); j++ {
					if cs[j] <= cs[j-1] {
						t.Errorf("update emitted window %v with counts %v: a count was repeated or went down", k, cs)
					}
				}
			}
			if k.start != first && closed && final != full {
				t.Errorf("%s: closed window %v counts %d rows, a full 2-second window holds %d", mode, k, final, full)
			}
			if k.start != first && k.start != last && final != full && mode != "update" {
				t.Errorf("%s: window %v counts %d rows, a full 2-second window holds %d", mode, k, final, full)
			}
		}
		if mode == "complete" {
			// The whole result table: the values 0..read-1 by value % 4.
			for d, name := range lab01Districts {
				want := (read - int64(d) + 3) / 4
				if perDistrict[name] != want {
					t.Errorf("complete: %s counts %d rows in all windows, the rate source's values 0..%d hold %d with value %% 4 = %d",
						name, perDistrict[name], read-1, want, d)
				}
			}
		}
		if mode == "append" && len(counts) == 0 {
			t.Errorf("append emitted no window in 8 seconds")
		}
	}
}

// checkLab02Interrupted checks that interrupting the live view stopped
// watching only (the query ran on), then checks the lab.
func checkLab02Interrupted(t *testing.T, st *privateStack, cells []executedCell) {
	if out := taggedCell(t, cells, "interrupted").stdout(); !strings.Contains(out, "stopped watching: err=<nil> isActive=true") {
		t.Errorf("the interrupted live view did not leave the query running:\n%s", out)
	}
	checkLab02(t, st, cells)
}

// lab02Query is the query name lab 2 monitors.
const lab02Query = "monitor_demo"

// checkLab02 checks that every later cell of lab 2 found the query the
// start cell started (same id and run id), that the progress JSON, the
// listener and recentProgress describe its batches consistently, and that
// Stop left nothing running.
func checkLab02(t *testing.T, _ *privateStack, cells []executedCell) {
	start := taggedCell(t, cells, "start").stdout()
	m := regexp.MustCompile(`started query id=(\S+) runId=(\S+) name=(\S+)`).FindStringSubmatch(start)
	if m == nil {
		t.Fatalf("the start cell printed no ids:\n%s", start)
	}
	id, runID := m[1], m[2]
	active := taggedCell(t, cells, "active").stdout()
	if !strings.Contains(active, "1 active queries") || !strings.Contains(active, fmt.Sprintf("name=%s id=%s runId=%s isActive=true", lab02Query, id, runID)) {
		t.Errorf("the active cell did not find the running query %s:\n%s", id, active)
	}
	var p struct {
		ID           string           `json:"id"`
		RunID        string           `json:"runId"`
		Name         string           `json:"name"`
		BatchID      *int64           `json:"batchId"`
		NumInputRows *int64           `json:"numInputRows"`
		DurationMs   map[string]int64 `json:"durationMs"`
	}
	last := taggedCell(t, cells, "last-progress").stdout()
	if err := json.Unmarshal([]byte(last), &p); err != nil {
		t.Fatalf("the last-progress cell did not print one JSON object: %v\n%s", err, last)
	}
	if p.ID != id || p.RunID != runID || p.Name != lab02Query || p.BatchID == nil || p.NumInputRows == nil || p.DurationMs["triggerExecution"] <= 0 {
		t.Errorf("lastProgress is not the query's (id %s run %s): %s", id, runID, last)
	}
	// The listener heard batches of this query, in order.
	lis := taggedCell(t, cells, "listener").stdout()
	heard := intAfter(t, lis, "the listener heard")
	batches := regexp.MustCompile(`(?m)^(\d+)\s+(\S+)\s+\d+`).FindAllStringSubmatch(lis, -1)
	if heard == 0 || int64(len(batches)) != heard {
		t.Errorf("the listener heard %d events and listed %d:\n%s", heard, len(batches), lis)
	}
	prev := int64(-1)
	for _, b := range batches {
		n, _ := strconv.ParseInt(b[1], 10, 64)
		if b[2] != lab02Query || n <= prev {
			t.Errorf("listener event %v: not the query's, or out of order", b)
		}
		prev = n
	}
	checkLiveView(t, cells, "live-view")
	if !strings.Contains(taggedCell(t, cells, "live-view").stdout(), "stopped watching: err=<nil> isActive=true") {
		t.Errorf("the live view cell did not leave the query running:\n%s", taggedCell(t, cells, "live-view").stdout())
	}
	// The saved frame stays true after the Stop cell: dated, in the past tense.
	for _, h := range taggedCell(t, cells, "live-view").html() {
		if !chartContainer.MatchString(h) {
			continue // not the live view (the console tail)
		}
		if strings.Contains(h, "still running") || !regexp.MustCompile(`running at \d\d:\d\d:\d\d UTC, when this cell stopped watching`).MatchString(h) {
			t.Errorf("the live view's last frame does not say when it stopped watching (or says \"still running\")")
		}
	}
	// The prose says what the query computes: an estimate, not a collected set.
	proseSays(t, "the Start section", markdownCell(t, cells, "## Start a query and leave it running"),
		[]string{"`approx_count_distinct`: one HyperLogLog++ sketch per key and window"}, []string{"collect the distinct values"})
	if !strings.Contains(strings.Join(codeSources(cells), "\n"), `atlas.ApproxCountDistinct(atlas.Col("value")).Alias("distinct_values")`) {
		t.Errorf("no cell computes ApproxCountDistinct of value any more: fix the Start section's prose")
	}
	// recentProgress: consecutive batch ids, the BEHIND marks where they belong.
	rec := taggedCell(t, cells, "recent-progress").stdout()
	rows := regexp.MustCompile(`(?m)^(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+ms(  BEHIND)?$`).FindAllStringSubmatch(rec, -1)
	if len(rows) == 0 {
		t.Errorf("recentProgress listed no batch:\n%s", rec)
	}
	behind := 0
	for i, r := range rows {
		n, _ := strconv.ParseInt(r[1], 10, 64)
		if i > 0 {
			p, _ := strconv.ParseInt(rows[i-1][1], 10, 64)
			if n != p+1 {
				t.Errorf("recentProgress batch %d follows %d", n, p)
			}
		}
		in, _ := strconv.ParseFloat(r[3], 64)
		proc, _ := strconv.ParseFloat(r[4], 64)
		rowsIn, _ := strconv.ParseInt(r[2], 10, 64)
		if (r[5] != "") != (rowsIn > 0 && proc < in) {
			t.Errorf("recentProgress row %q: BEHIND mark wrong", r[0])
		}
		if r[5] != "" {
			behind++
		}
	}
	sum := regexp.MustCompile(`(\d+) batches in recentProgress, (\d+) of them behind the input`).FindStringSubmatch(rec)
	if sum == nil || sum[1] != strconv.Itoa(len(rows)) || sum[2] != strconv.Itoa(behind) {
		t.Errorf("recentProgress summary does not match its %d rows (%d behind):\n%s", len(rows), behind, rec)
	}
	if !strings.Contains(taggedCell(t, cells, "stop").stdout(), "isActive=false exception=<nil> active queries=0") {
		t.Errorf("the stop cell left the query running:\n%s", taggedCell(t, cells, "stop").stdout())
	}
}

// lab04Topic, lab04Records are the topic lab 4's Setup cell fills and how
// many records it writes.
const (
	lab04Topic   = "lab04_events"
	lab04Records = 20_000
)

// lab04KillInBatch and lab04BatchRecords are lab 4's constants killInBatch
// and maxOffsetsPerTrigger (a batch reads at most that many records).
const (
	lab04KillInBatch  = 3
	lab04BatchRecords = 1_000
)

// checkLab04 checks lab 4's kill, restart and proof cells, then compares
// both Parquet outputs (the killed-and-restarted one and the uninterrupted
// one) with the raw Kafka records: each record once, decoded.
func checkLab04(t *testing.T, st *privateStack, cells []executedCell) {
	batches := checkLab04Killed(t, taggedCell(t, cells, "run"), "<nil>")
	checkLab04MidBatch(t, cells, batches)
	checkLab04Outputs(t, st, cells)
}

// Lines of lab 4's Run and Restart cells.
var (
	lab04Landed    = regexp.MustCompile(`the kill landed in batch (\d+): offsets/\d+ written=(\w+), _spark_metadata/\d+ written=(\w+), commits/\d+ written=(\w+)`)
	lab04KilledOff = regexp.MustCompile(`batch (\d+): start offsets (map\[[^\]]*\]), end offsets (map\[[^\]]*\])`)
	lab04Restarted = regexp.MustCompile(`restarted: (\d+) batches, (\d+) records read \(err: <nil>\)`)
	lab04FirstOff  = regexp.MustCompile(`first batch of the restart: (\d+), end offsets (map\[[^\]]*\])`)
	lab04Offset    = regexp.MustCompile(`(\d+):(\d+)`)
)

// checkLab04MidBatch checks that the kill landed inside batch killInBatch,
// with what the server reports, not only what the notebook says: the
// killed run committed exactly the batches before it (the server's count
// of finished batches); at the kill the checkpoint had offsets/3 and the
// sink's _spark_metadata/3 but no commits/3; the restart's first batch, as
// the server's progress reports it, is batch 3 again (a committed batch 3
// would have made it 4) with the end offsets logged before the kill; the
// restart read exactly the records the killed run had not committed (the
// replayed batch's once more, nothing else); and the proof cell found each
// of the killed batch's records once in the table.
func checkLab04MidBatch(t *testing.T, cells []executedCell, committedBatches int) {
	t.Helper()
	run := taggedCell(t, cells, "run").stdout()
	m := lab04Landed.FindStringSubmatch(run)
	if m == nil {
		t.Fatalf("the Run cell does not say where the kill landed:\n%s", run)
	}
	if m[1] != strconv.Itoa(lab04KillInBatch) || m[2] != "true" || m[3] != "true" || m[4] != "false" {
		t.Errorf("the kill landed in batch %s with offsets logged=%s, sink log written=%s, committed=%s; want batch %d, true, true, false",
			m[1], m[2], m[3], m[4], lab04KillInBatch)
	}
	if committedBatches != lab04KillInBatch {
		t.Errorf("the killed run finished %d batches, want the %d before batch %d", committedBatches, lab04KillInBatch, lab04KillInBatch)
	}
	killedRead := intAfter(t, run, "batches in this run,")
	off := lab04KilledOff.FindStringSubmatch(run)
	if off == nil {
		t.Fatalf("the Run cell does not print the killed batch's offsets:\n%s", run)
	}
	sum := func(m string) map[string]int64 {
		out := map[string]int64{}
		for _, kv := range lab04Offset.FindAllStringSubmatch(m, -1) {
			n, _ := strconv.ParseInt(kv[2], 10, 64)
			out[kv[1]] = n
		}
		return out
	}
	start, end := sum(off[2]), sum(off[3])
	var inBatch, before int64
	for p, e := range end {
		inBatch += e - start[p]
		before += start[p]
	}
	// maxOffsetsPerTrigger splits the limit over the partitions, rounding
	// down: a batch reads at most 1,000 records.
	if inBatch <= 0 || inBatch > lab04BatchRecords {
		t.Errorf("the killed batch spans %d records (%s to %s), want 1 to %d", inBatch, off[2], off[3], lab04BatchRecords)
	}
	// The topic is read from offset 0: the committed batches read exactly
	// the records before the killed batch's start offsets.
	if killedRead != before || before < lab04KillInBatch {
		t.Errorf("the killed run committed %d records, but its killed batch starts after %d", killedRead, before)
	}
	restart := taggedCell(t, cells, "restart").stdout()
	first := lab04FirstOff.FindStringSubmatch(restart)
	r := lab04Restarted.FindStringSubmatch(restart)
	if first == nil || r == nil {
		t.Fatalf("the Restart cell does not print its totals and first batch:\n%s", restart)
	}
	if first[1] != strconv.Itoa(lab04KillInBatch) || first[2] != off[3] {
		t.Errorf("the restart began with batch %s ending at %s; want the killed batch %d replayed, ending at %s", first[1], first[2], lab04KillInBatch, off[3])
	}
	if n, _ := strconv.ParseInt(r[2], 10, 64); n != lab04Records-killedRead {
		t.Errorf("the restart read %d records, want the %d the killed run had not committed", n, lab04Records-killedRead)
	}
	want := fmt.Sprintf("4. killed batch %d: uncommitted at the kill=true, replayed with the same offsets=true, %d records, each once in the table=true", lab04KillInBatch, inBatch)
	if v := taggedCell(t, cells, "verify").stdout(); !strings.Contains(v, want) {
		t.Errorf("the verify cell does not show %q:\n%s", want, v)
	}
}

// checkLab04Interrupted checks the run where Kernel > Interrupt stopped the
// Run cell: it stopped mid-stream, then the re-run cells reach the same
// outputs.
// The run started from an empty checkpoint, so the cell's count of this
// run's batches is the last batch id the interrupt message names, plus one:
// the server's count, not the client's (which misses the batches that ran
// before its first look beyond the last 100).
func checkLab04Interrupted(t *testing.T, st *privateStack, cells []executedCell) {
	run := taggedCell(t, cells, "interrupted")
	batches := checkLab04Killed(t, run, "query stopped by interrupt")
	last := regexp.MustCompile(`query lab04_copy stopped after batch (\d+);`).FindStringSubmatch(run.stderr())
	if last == nil {
		t.Errorf("the interrupted cell did not say after which batch it stopped:\n%s", run.stderr())
	} else if n, _ := strconv.Atoi(last[1]); n+1 != batches {
		t.Errorf("the interrupted cell counted %d batches in this run, but it stopped after batch %d", batches, n)
	}
	checkLab04Outputs(t, st, cells)
}

// checkLab04Killed checks the Run cell stopped mid-stream with err and
// returns the number of batches it says ran.
func checkLab04Killed(t *testing.T, run executedCell, err string) int {
	t.Helper()
	out := run.stdout()
	killed := regexp.MustCompile(`killed: (\d+) batches in this run, (\d+) records read \(err: ` + regexp.QuoteMeta(err) + `\)`).FindStringSubmatch(out)
	if killed == nil {
		t.Fatalf("the run cell printed no kill line ending in err %q:\n%s", err, out)
	}
	if n, _ := strconv.Atoi(killed[2]); n <= 0 || n >= lab04Records {
		t.Errorf("the kill read %d of %d records: it did not land mid-stream", n, lab04Records)
	}
	batches, _ := strconv.Atoi(killed[1])
	return batches
}

// checkLab04Outputs checks the restart and proof cells and both outputs.
func checkLab04Outputs(t *testing.T, st *privateStack, cells []executedCell) {
	t.Helper()
	if !strings.Contains(taggedCell(t, cells, "restart").stdout(), "restarted:") {
		t.Errorf("the restart cell printed no restart line")
	}
	verify := taggedCell(t, cells, "verify").stdout()
	for _, want := range []string{
		fmt.Sprintf("contiguous=true, %d records in all, ends where the uninterrupted run ends=true", lab04Records),
		fmt.Sprintf("2. rows: %d, distinct (partition, offset): %d, duplicates: 0", lab04Records, lab04Records),
		fmt.Sprintf("3. same table as the uninterrupted run (%d rows): true", lab04Records),
	} {
		if !strings.Contains(verify, want) {
			t.Errorf("the verify cell does not show %q:\n%s", want, verify)
		}
	}
	e := st.kafka(t)
	raw := e.readTopic(lab04Topic)
	want := map[string]string{}
	for p, recs := range raw {
		for _, r := range recs {
			var ev struct {
				UserID string `json:"user_id"`
				Event  string `json:"event"`
				TS     string `json:"ts"`
			}
			line := "malformed"
			if json.Unmarshal(r.value, &ev) == nil {
				line = ev.UserID + "|" + ev.Event
			}
			want[fmt.Sprintf("%d|%d", p, r.offset)] = line
		}
	}
	if len(want) != lab04Records {
		t.Fatalf("the topic holds %d records, the Setup cell produces %d", len(want), lab04Records)
	}
	for _, out := range []string{"events", "events_uninterrupted"} {
		rows, err := e.session.Read().Parquet(filepath.Join(st.home, "lab04", out)).Rows(context.Background())
		if err != nil {
			t.Fatalf("read lab04/%s: %v", out, err)
		}
		got := map[string]string{}
		for _, r := range rows {
			k := fmt.Sprintf("%v|%v", r["partition"], r["offset"])
			if _, dup := got[k]; dup {
				t.Errorf("lab04/%s holds record %s twice", out, k)
			}
			line := "malformed"
			if r["user_id"] != nil || r["event"] != nil {
				line = fmt.Sprintf("%v|%v", r["user_id"], r["event"])
			}
			got[k] = line
		}
		if len(got) != len(want) {
			t.Errorf("lab04/%s holds %d records, the topic %d", out, len(got), len(want))
		}
		for k, w := range want {
			if got[k] != w && !(w == "malformed" && got[k] == "<nil>|<nil>") {
				t.Errorf("lab04/%s record %s is %q, the topic's is %q", out, k, got[k], w)
				break
			}
		}
	}
}
