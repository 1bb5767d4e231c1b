package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// notebookScenario is one scenario notebook and how to check what it did.
type notebookScenario struct {
	// name is the notebook's directory under notebooks/.
	name string
	// produced is how many records the Setup cell writes to the topic.
	produced int64
	// checkpoint is the query's checkpoint under $ATLAS_HOME/checkpoints,
	// the same as `atlas run`'s, so that the CLI and the notebook continue
	// one query.
	checkpoint string
	// smallBatches is the --set for the interrupted run: micro-batches
	// small enough that the query still runs when the interrupt lands.
	smallBatches string
	// reference computes the table the notebook must leave from the raw
	// Kafka records of the stack, reads the table itself, fails the test
	// where they differ (row by row), and returns the reference's row count.
	reference func(t *testing.T, st *privateStack) (rows int)
	// table is the table the Verify cell reads.
	table string
	// charts names the charts the Write cell's saved frame must draw
	// (their titles), charts that fit the query.
	charts []string
	// monitor runs the checks of the cross-cell monitoring cells, if the
	// notebook has them.
	monitor func(t *testing.T, st *privateStack, cells []executedCell)
	// durable is set for a notebook whose Write cell (tag write-query)
	// starts a query that outlives it and a later cell (tag watch) waits
	// on: that cell draws the charts and prints the totals, and it is the
	// one interrupted (which stops watching, not the query).
	durable bool
}

// progressTag is the tag of the cell that waits on the query: it draws
// the progress charts and prints the totals line.
func (sc notebookScenario) progressTag() string {
	if sc.durable {
		return "watch"
	}
	return "write-query"
}

// notebookScenarios are the notebooks under notebooks/.
var notebookScenarios = []notebookScenario{
	{
		name:         "streaming_windows-events",
		produced:     200_000,
		checkpoint:   "event_windows",
		smallBatches: "maxOffsetsPerTrigger=1_000",
		reference:    eventWindowsReference,
		table:        "lakehouse.gold.event_windows",
		charts:       []string{"rows / second (log scale)", "trigger duration (ms)", "event time (UTC)", "state rows / late rows dropped"},
		monitor:      checkMonitoringCells,
	},
	{
		name:         "cdc_streaming-online_retail",
		produced:     50_000,
		checkpoint:   "online_retail_cdc",
		smallBatches: "maxOffsetsPerTrigger=500",
		reference:    cdcReference,
		table:        "lakehouse.silver.online_retail_cdc",
		charts:       []string{"rows / second (log scale)", "trigger duration (ms)", "rows written per batch", "files rewritten / write time (ms)"},
		durable:      true,
	},
}

// progressCharts is how many charts a saved progress frame holds: rates,
// batch duration, and two that fit the query (event time vs watermark and
// state for a windowed query, the table writes for a foreachBatch MERGE).
const progressCharts = 4

// TestNotebooks executes each scenario notebook headless through the
// installed "atlas" kernel, each run on its own stack (private ATLAS_HOME and
// broker port): Run All on a fresh stack must pass every cell, leave the
// progress charts in the saved Write output (and draw them in headless
// Chromium) and leave tables equal, row by row, to references computed
// from the raw Kafka records (the harness reads them after the run; the
// Verify cell must print their row count and no duplicate key); the
// events notebook's monitoring cells must show a running query's status,
// progress, live charts and memory-sink counts equal to the raw records';
// then, on another fresh stack, the Write cell is
// interrupted mid-stream through the kernel, must stop within 5 s, and
// re-running the notebook must continue from the checkpoint to the same
// reference, with no duplicate rows. Runs only with ATLAS_NOTEBOOK_TEST=1
// (make notebook-test); executed notebooks and screenshots go to
// $ATLAS_NOTEBOOK_ARTIFACTS.
func TestNotebooks(t *testing.T) {
	h := newNotebookHarness(t)
	for _, sc := range notebookScenarios {
		t.Run(sc.name+"/run-all", func(t *testing.T) { h.runAll(t, sc) })
		t.Run(sc.name+"/interrupt", func(t *testing.T) { h.interruptWrite(t, sc) })
		if sc.durable {
			t.Run(sc.name+"/restarts", func(t *testing.T) { h.durableRestarts(t, sc) })
		}
	}
}

// runAll executes the notebook top to bottom on a fresh stack.
func (h *notebookHarness) runAll(t *testing.T, sc notebookScenario) {
	st := newPrivateStack(t)
	dir := h.artifactDir(t, sc.name+"-run-all")
	out := filepath.Join(dir, "notebook.out.ipynb")
	log := filepath.Join(dir, "run_notebook.log")
	if _, code := h.python(t, st, log, "run_notebook.py", h.notebook(sc), "--out", out); code != 0 {
		t.Fatalf("run_notebook.py exit %d (1: a cell failed, 2: the run broke):\n%s", code, tailOf(log))
	}
	checkRunAll(t, out, log)
	cells := readExecuted(t, out)
	checkPrivateBroker(t, cells, st)
	write := taggedCell(t, cells, sc.progressTag())
	checkProgressCharts(t, write, sc.charts)
	if n := rowsRead(t, write); n != sc.produced {
		t.Errorf("the Write cell read %d records, the Setup cell produced %d", n, sc.produced)
	}
	h.checkVerify(t, sc, st, cells)
	if sc.durable {
		checkDurableRunAll(t, cells)
	}
	if sc.monitor != nil {
		sc.monitor(t, st, cells)
	}

	shot := filepath.Join(dir, "notebook.png")
	blog := filepath.Join(dir, "browser_test.log")
	if _, code := h.python(t, st, blog, "browser_test.py", out, "--screenshot", shot, "--min-charts", strconv.Itoa(progressCharts)); code != 0 {
		t.Errorf("browser_test.py exit %d (1: a chart did not draw):\n%s", code, tailOf(blog))
	}
}

// interruptWrite interrupts the Write cell mid-stream, then re-runs the
// notebook's Write and Verify cells in the same kernel.
func (h *notebookHarness) interruptWrite(t *testing.T, sc notebookScenario) {
	st := newPrivateStack(t)
	dir := h.artifactDir(t, sc.name+"-interrupt")
	out := filepath.Join(dir, "notebook.out.ipynb")
	log := filepath.Join(dir, "interrupt_test.log")
	args := []string{h.notebook(sc), "--cell-tag", sc.progressTag(), "--max-seconds", "5", "--set", sc.smallBatches, "--out", out}
	if sc.durable {
		args = append(args, "--set", durableFastTrigger)
	}
	stdout, code := h.python(t, st, log, "interrupt_test.py", args...)
	var res struct {
		Error       *string  `json:"error"`
		ReplyStatus string   `json:"reply_status"`
		FirstOutput *float64 `json:"first_output_s"`
		Stop        *float64 `json:"interrupt_to_reply_s"`
		After       string   `json:"output_after_interrupt"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("interrupt_test.py exit %d (%v):\n%s", code, err, tailOf(log))
	}
	if res.Stop == nil || *res.Stop > 5 || res.ReplyStatus != "ok" {
		t.Fatalf("the interrupted cell replied %q after %v s, want ok within 5 s", res.ReplyStatus, res.Stop)
	}
	t.Logf("the Write cell's first output came %.2f s after it started; interrupted then, it stopped in %.3f s",
		deref(res.FirstOutput), *res.Stop)
	cells := readExecuted(t, out)
	checkPrivateBroker(t, cells, st)
	// The whole output of the interrupted run (res.After is only its tail).
	interrupted := taggedCell(t, cells, "interrupted")
	if sc.durable {
		h.checkDurableInterrupt(t, sc, st, cells, interrupted)
		return
	}
	if !strings.Contains(interrupted.stdout(), "interrupted: the query stopped cleanly") {
		t.Errorf("the Write cell did not report a clean stop; its output ends:\n%s", res.After)
	}
	before := rowsRead(t, interrupted)
	write := taggedCell(t, cells, "write-query")
	after := rowsRead(t, write)
	if before <= 0 || before >= sc.produced {
		t.Fatalf("the interrupted run read %d of %d records: the interrupt did not land mid-stream", before, sc.produced)
	}
	if after >= sc.produced || before+after < sc.produced {
		t.Fatalf("the re-run read %d records after the interrupted run's %d, of %d: it did not continue from the checkpoint",
			after, before, sc.produced)
	}
	checkProgressCharts(t, write, sc.charts)
	h.checkVerify(t, sc, st, cells)
}

// notebook returns the scenario notebook's path.
func (h *notebookHarness) notebook(sc notebookScenario) string {
	return filepath.Join(h.repo, "notebooks", sc.name, "notebook.ipynb")
}

// checkVerify compares the tables the notebook left with the reference
// computed from the raw records, checks that the Verify cell printed the
// same row count and no duplicate key, and that the query used the
// checkpoint the CLI uses too.
func (h *notebookHarness) checkVerify(t *testing.T, sc notebookScenario, st *privateStack, cells []executedCell) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(st.home, "checkpoints", sc.checkpoint, "metadata")); err != nil {
		t.Errorf("no checkpoint %q: the notebook and `atlas run` must share one query: %v", sc.checkpoint, err)
	}
	verify := taggedCell(t, cells, "verify").stdout()
	m := verifyLine.FindStringSubmatch(verify)
	if m == nil || m[2] != sc.table {
		t.Fatalf("the Verify cell printed no line \"N rows in %s, D duplicate keys\"; stdout:\n%s", sc.table, verify)
	}
	wantRows := sc.reference(t, st)
	if wantRows == 0 {
		t.Fatal("the reference is empty")
	}
	if m[1] != strconv.Itoa(wantRows) || m[3] != "0" {
		t.Errorf("the Verify cell printed %s rows and %s duplicate keys; the reference has %d rows", m[1], m[3], wantRows)
	}
}

// checkPrivateBroker checks that a cell (the Setup cell's `atlas up`)
// reported the stack's own broker and Spark Connect server.
func checkPrivateBroker(t *testing.T, cells []executedCell, st *privateStack) {
	t.Helper()
	for _, c := range cells {
		if out := c.stdout(); strings.Contains(out, st.addr) && strings.Contains(out, "sc://"+st.connect) {
			return
		}
	}
	t.Errorf("no cell reported the private broker on %s and Spark Connect on %s: the kernel did not pass ATLAS_KAFKA_ADDR and ATLAS_CONNECT_ADDR through", st.addr, st.connect)
}

// eventWindowsReference recomputes scenario 1 from the raw records with
// referenceWindows, taking the batch boundaries and watermarks from the
// query's offsets log (every batch since 0 must be there, committed).
func eventWindowsReference(t *testing.T, st *privateStack) int {
	t.Helper()
	e := st.kafka(t)
	recs := e.readTopic("events")
	batches := committedBatches(t, filepath.Join(st.home, "checkpoints", "event_windows"), recs)
	want, _, wantLate := referenceWindows(t, recs, batches)
	diffWindows(t, readWindows(t, e.session), want)
	// The Write cell keeps late events (lateRowsTable): exactly the
	// reference's late rows, once each, even across the interrupted run.
	diffLate(t, readLateRows(t, e.session), wantLate)
	return len(want)
}

// committedBatches reads the offsets log of a checkpoint as the progress
// reports referenceWindows takes: batch id, start and end offsets, watermark.
func committedBatches(t *testing.T, checkpoint string, recs map[int32][]kafkaRecord) []engine.StreamingQueryProgress {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(checkpoint, "offsets"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, e := range entries {
		if id, err := strconv.ParseInt(e.Name(), 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var out []engine.StreamingQueryProgress
	prev := json.RawMessage("{}")
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("the offsets log of %s has batch %d at position %d: purged or missing entries, the reference needs every batch", checkpoint, id, i)
		}
		if _, err := os.Stat(filepath.Join(checkpoint, "commits", strconv.FormatInt(id, 10))); err != nil {
			t.Fatalf("batch %d is not committed: %v", id, err)
		}
		data, err := os.ReadFile(filepath.Join(checkpoint, "offsets", strconv.FormatInt(id, 10)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var meta struct {
			BatchWatermarkMs int64 `json:"batchWatermarkMs"`
		}
		if len(lines) != 3 || lines[0] != "v1" || json.Unmarshal([]byte(lines[1]), &meta) != nil {
			t.Fatalf("offsets entry %d of %s is not v1, metadata, one source offset:\n%s", id, checkpoint, data)
		}
		end := json.RawMessage(lines[2])
		out = append(out, engine.StreamingQueryProgress{
			BatchID:   id,
			EventTime: map[string]string{"watermark": time.UnixMilli(meta.BatchWatermarkMs).UTC().Format("2006-01-02T15:04:05.000Z")},
			Sources:   []progress.SourceProgress{{StartOffset: prev, EndOffset: end}},
		})
		prev = end
	}
	if len(out) == 0 {
		t.Fatalf("the offsets log of %s is empty", checkpoint)
	}
	var last map[string]map[string]int64
	json.Unmarshal(prev, &last)
	for p, list := range recs {
		if got, want := last["events"][strconv.Itoa(int(p))], int64(len(list)); got != want {
			t.Errorf("the last batch ends partition %d at offset %d, the topic holds %d records there", p, got, want)
		}
	}
	return out
}

// cdcReference replays the raw change records (referenceCDC) and compares
// the table with it.
func cdcReference(t *testing.T, st *privateStack) int {
	t.Helper()
	e := st.kafka(t)
	recs := e.readCDCTopic(50_000)
	want := referenceCDC(t, recs)
	diffCDC(t, readCDCTable(t, e.session), want)
	return len(want)
}

// tailOf returns the end of a log file, for failure messages.
func tailOf(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// deref returns *f, or -1 for nil.
func deref(f *float64) float64 {
	if f == nil {
		return -1
	}
	return *f
}
