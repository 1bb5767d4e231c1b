package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
)

// The CDC notebook's durable query: started by the Write cell on the
// server (ForeachBatchSQL, a processing-time trigger), watched by a later
// cell (tag watch), stopped by the last (tag stop-query).

// durableFastTrigger is the --set that makes the durable query trigger
// often enough for small micro-batches to finish in a test's time.
const durableFastTrigger = `triggerInterval="100 milliseconds"`

// startedLine is what the Write cell prints when it started the query.
var startedLine = regexp.MustCompile(`started query online_retail_cdc \(id (\S+), run (\S+)\) on the Atlas server`)

// watchedRun is the watch cell's totals suffix: the run it watched.
var watchedRun = regexp.MustCompile(`\(this run of the query, id (\S+), run (\S+)\)`)

// commitsLine is what commitsCell prints.
var commitsLine = regexp.MustCompile(`(?m)^COMMITS (\d+) (\d+)$`)

// commitsCell reads the pipeline's last committed batch id in its
// checkpoint (the server's, on this machine) twice, until it grows (at
// most 30 s): it prints both. It asks nothing of the session, which a
// new kernel may not share: a query that runs on with no cell attached
// commits on.
const commitsCell = `%%
commits := func() int {
	ents, _ := os.ReadDir(filepath.Join(spark.CheckpointDir(queryName), "commits"))
	last := -1
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > last {
			last = n
		}
	}
	return last
}
first := commits()
last := first
for deadline := time.Now().Add(30 * time.Second); last == first && time.Now().Before(deadline); {
	time.Sleep(300 * time.Millisecond)
	last = commits()
}
fmt.Printf("COMMITS %d %d\n", first, last)`

// lostGoCell starts a Go foreachBatch query and ends without waiting on
// it, as a cell that forgot AwaitTermination does.
const lostGoCell = `%%
q, err := parseChanges(cdcStream()).WriteStream().QueryName("lost_go").
	ForeachBatch(func(batch *atlas.DataFrame, id int64) error { return nil }).
	Option("checkpointLocation", spark.CheckpointDir("lost_go")).
	Trigger(atlas.ProcessingTime("1 second")).Progress(false).Start()
if err != nil {
	log.Fatal(err)
}
fmt.Println("started", q.Name(), "and returned without waiting")`

// lostGoProbe asks, in a later cell, for the query lostGoCell left.
const lostGoProbe = `%%
_, err := spark.Streams().Get("lost_go")
fmt.Println("LOST:", err)`

// checkDurableRunAll checks what the durable notebook's own cells print
// on Run All: the Write cell started the query and returned, the Go
// foreachBatch run merged every change, the watch cell caught up, both
// spellings left the same rows and the last cell stopped the query.
func checkDurableRunAll(t *testing.T, cells []executedCell) {
	t.Helper()
	if out := taggedCell(t, cells, "write-query").stdout(); !startedLine.MatchString(out) || !strings.Contains(out, "keeps running after this cell") {
		t.Errorf("the Write cell did not start the durable query and return; stdout:\n%s", out)
	}
	if out := taggedCell(t, cells, "go-foreachbatch").stdout(); !strings.Contains(out, "50000 changes merged into lakehouse.silver.online_retail_cdc_go") {
		t.Errorf("the Go foreachBatch cell did not merge every change; stdout:\n%s", out)
	}
	if out := taggedCell(t, cells, "watch").stdout(); !strings.Contains(out, "caught up: every change in the topic is merged") {
		t.Errorf("the watch cell did not wait until the topic was merged; stdout:\n%s", out)
	}
	if out := taggedCell(t, cells, "verify").stdout(); !strings.Contains(out, "the SQL and the Go foreachBatch agree: true") {
		t.Errorf("the Verify cell did not find the SQL and the Go foreachBatch tables equal; stdout:\n%s", out)
	}
	if out := taggedCell(t, cells, "stop-query").stdout(); !strings.Contains(out, "stopped query online_retail_cdc after batch") {
		t.Errorf("the stop cell did not stop the query; stdout:\n%s", out)
	}
}

// checkDurableInterrupt: the interrupted watch cell stopped watching, not
// the query; the re-run watch cell saw the same run catch up, having read
// every record once; the table equals the reference.
func (h *notebookHarness) checkDurableInterrupt(t *testing.T, sc notebookScenario, st *privateStack, cells []executedCell, interrupted executedCell) {
	t.Helper()
	if !strings.Contains(interrupted.stdout(), "stopped watching: the query goes on") {
		t.Errorf("the interrupted watch cell did not say that the query goes on; stdout:\n%s", interrupted.stdout())
	}
	watch := taggedCell(t, cells, "watch")
	before, after := watchedRun.FindStringSubmatch(interrupted.stdout()), watchedRun.FindStringSubmatch(watch.stdout())
	if before == nil || after == nil || before[2] != after[2] {
		t.Fatalf("the run watched before the interrupt %v and after %v: the interrupt must not stop (or restart) the query", before, after)
	}
	if n := rowsRead(t, interrupted); n <= 0 || n >= sc.produced {
		t.Fatalf("the query had read %d of %d records when the watch was interrupted: the interrupt did not land mid-stream", n, sc.produced)
	}
	if n := rowsRead(t, watch); n != sc.produced {
		t.Fatalf("the query's run read %d records, the topic holds %d: each once", n, sc.produced)
	}
	if !strings.Contains(watch.stdout(), "caught up") {
		t.Errorf("the re-run watch cell did not catch up; stdout:\n%s", watch.stdout())
	}
	checkProgressCharts(t, watch, sc.charts)
	h.checkVerify(t, sc, st, cells)
}

// durableRestarts runs the notebook's Write cell, then, with the query
// mid-stream, restarts the kernel (the query must go on committing
// batches with no cell attached) and the Atlas server (`atlas down`,
// `atlas up`: the server must resume it from its checkpoint and go on
// committing), then runs the watch cell (the same query id; a new kernel
// may be a new server session, which takes the query over) until it
// catches up:
// the table must equal the replay of the raw Kafka records, each batch
// merged once, and `atlas run cdc` must find nothing new. On the way, a Go
// foreachBatch query whose cell ended says so in a later cell.
func (h *notebookHarness) durableRestarts(t *testing.T, sc notebookScenario) {
	st := newPrivateStack(t)
	dir := h.artifactDir(t, sc.name+"-restarts")
	out := filepath.Join(dir, "notebook.out.ipynb")
	log := filepath.Join(dir, "durable_test.log")
	stdout, code := h.python(t, st, log, "durable_test.py", h.notebook(sc), "--out", out,
		"--set", "maxOffsetsPerTrigger=200", "--set", `triggerInterval="250 milliseconds"`,
		"--step", "before:write-query",
		"--step", "cell:write-query",
		"--step", "code:lost-go:"+lostGoCell,
		"--step", "code:lost-go-probe:"+lostGoProbe,
		"--step", "restart",
		"--step", "before:write-query",
		"--step", "code:probe-kernel:"+commitsCell,
		"--step", "code:restart-server:!atlas down && atlas up",
		"--step", "code:probe-server:"+commitsCell,
		"--step", "from:watch")
	var res struct {
		Error *string `json:"error"`
		Steps []struct {
			Step    string  `json:"step"`
			Seconds float64 `json:"seconds"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("durable_test.py exit %d (%v):\n%s", code, err, tailOf(log))
	}
	for _, s := range res.Steps {
		t.Logf("step %-22s %6.1f s", s.Step, s.Seconds)
	}
	cells := readExecuted(t, out)
	started := startedLine.FindStringSubmatch(taggedCell(t, cells, "write-query").stdout())
	if started == nil {
		t.Fatalf("the Write cell did not start the query; stdout:\n%s", taggedCell(t, cells, "write-query").stdout())
	}
	id, run := started[1], started[2]
	if out := taggedCell(t, cells, "lost-go-probe").stdout(); !strings.Contains(out, "terminated with an exception") || !strings.Contains(out, "went away") {
		t.Errorf("the next cell's Streams().Get of a Go foreachBatch query whose cell ended: %q; want that it failed because its client went away", out)
	}
	commits := func(tag string) (int, int) {
		m := commitsLine.FindStringSubmatch(taggedCell(t, cells, tag).stdout())
		if m == nil {
			t.Fatalf("the %s cell printed no COMMITS line; stdout:\n%s", tag, taggedCell(t, cells, tag).stdout())
		}
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		return a, b
	}
	if a, b := commits("probe-kernel"); a < 0 || b <= a {
		t.Fatalf("after the kernel restart, before any cell touched the query, its commits went from %d to %d: it did not run on", a, b)
	}
	if a, b := commits("probe-server"); b <= a {
		t.Fatalf("after the server restart, before any cell touched the query, its commits went from %d to %d: the server did not resume it", a, b)
	}
	watch := taggedCell(t, cells, "watch")
	m := watchedRun.FindStringSubmatch(watch.stdout())
	if m == nil || m[1] != id || m[2] == run {
		t.Fatalf("the watch cell watched %v; want query %s in a later run than the Write cell's %s; stdout:\n%s", m, id, run, watch.stdout())
	}
	if n := rowsRead(t, watch); n <= 0 || n >= sc.produced {
		t.Fatalf("the watched run read %d of %d records: the restarts did not land mid-stream", n, sc.produced)
	}
	h.checkVerify(t, sc, st, cells)
	e := st.kafka(t)
	checkMergedOnce(t, e, id)
	if n, totals := runCLICDC(t, e); n != 0 || totals.Batches != 0 {
		t.Fatalf("atlas run cdc after the notebook read %d records in %d merges; want nothing new", n, totals.Batches)
	}
	diffCDC(t, readCDCTable(t, e.session), referenceCDC(t, e.readCDCTopic(sc.produced)))
}

// checkMergedOnce checks that every MERGE snapshot of query id in the
// silver table carries a distinct batch id: no batch merged twice across
// the restarts.
func checkMergedOnce(t *testing.T, e *env, id string) {
	t.Helper()
	lh, err := e.session.Lakehouse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := lh.LoadTable(context.Background(), scenarios.SilverTable)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, sn := range tbl.Snapshots() {
		if sn.QueryID() != id {
			continue
		}
		b, _ := sn.BatchID()
		if seen[b] {
			t.Fatalf("batch %d of query %s committed twice", b, id)
		}
		seen[b] = true
	}
	if len(seen) < 2 {
		t.Fatalf("only %d snapshots of %s carry the query id %s", len(seen), scenarios.SilverTable, id)
	}
}

// TestCDCNotebookRunsTheCLIStatements: the CDC notebook's server-side
// foreachBatch runs scenarios.MergeLatestChanges character for character
// (the checkpoint refuses other statements, so `atlas run cdc` and the
// notebook could not continue each other otherwise).
func TestCDCNotebookRunsTheCLIStatements(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "notebooks", "cdc_streaming-online_retail", "notebook.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile("(?s)const mergeLatestChanges = `([^`]*)`")
	view := regexp.MustCompile(`const batchView = "([^"]*)"`)
	var stmts, views []string
	for _, c := range nb.Cells {
		src := multiline(c.Source)
		for _, m := range decl.FindAllStringSubmatch(src, -1) {
			stmts = append(stmts, m[1])
		}
		for _, m := range view.FindAllStringSubmatch(src, -1) {
			views = append(views, m[1])
		}
	}
	if len(stmts) != 1 || stmts[0] != scenarios.MergeLatestChanges {
		t.Fatalf("the notebook declares mergeLatestChanges %d times as %q; want once, as scenarios.MergeLatestChanges:\n%s", len(stmts), stmts, scenarios.MergeLatestChanges)
	}
	if len(views) != 1 || views[0] != scenarios.CDCBatchView {
		t.Fatalf("the notebook's batchView %q, want %q once", views, scenarios.CDCBatchView)
	}
}
