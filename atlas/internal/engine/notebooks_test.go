package engine_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	atlas "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
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
	// Kafka records of the stack, fails the test where the table differs,
	// and returns the reference's fingerprint (as the notebook's
	// fingerprint function computes it) and row count.
	reference func(t *testing.T, st *privateStack) (fingerprint string, rows int)
}

// notebookScenarios are the notebooks under notebooks/.
var notebookScenarios = []notebookScenario{
	{
		name:         "streaming_windows-events",
		produced:     200_000,
		checkpoint:   "event_windows",
		smallBatches: "maxOffsetsPerTrigger=1_000",
		reference:    eventWindowsReference,
	},
	{
		name:         "cdc_streaming-online_retail",
		produced:     50_000,
		checkpoint:   "online_retail_cdc",
		smallBatches: "maxOffsetsPerTrigger=500",
		reference:    cdcReference,
	},
}

// progressCharts is how many charts a saved progress frame holds at least:
// rates, batch duration, event time vs watermark, state and late rows.
const progressCharts = 4

// TestNotebooks executes each scenario notebook headless through the
// installed "atlas" kernel, each run on its own stack (private ATLAS_HOME and
// broker port): Run All on a fresh stack must pass every cell, leave the
// progress charts in the saved Write output (and draw them in headless
// Chromium) and print a Verify fingerprint equal to the reference computed
// from the raw Kafka records; then, on another fresh stack, the Write cell is
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
	cells := readExecuted(t, out)
	checkPrivateBroker(t, cells, st)
	write := taggedCell(t, cells, "write-query")
	checkProgressCharts(t, write, progressCharts)
	if n := rowsRead(t, write); n != sc.produced {
		t.Errorf("the Write cell read %d records, the Setup cell produced %d", n, sc.produced)
	}
	h.checkVerify(t, sc, st, cells)

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
	stdout, code := h.python(t, st, log, "interrupt_test.py", h.notebook(sc), "--cell-tag", "write-query",
		"--max-seconds", "5", "--set", sc.smallBatches, "--out", out)
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
	checkProgressCharts(t, write, progressCharts)
	h.checkVerify(t, sc, st, cells)
}

// notebook returns the scenario notebook's path.
func (h *notebookHarness) notebook(sc notebookScenario) string {
	return filepath.Join(h.repo, "notebooks", sc.name, "notebook.ipynb")
}

// checkVerify compares the Verify cell's fingerprint with the reference's,
// and checks the query used the checkpoint the CLI uses too.
func (h *notebookHarness) checkVerify(t *testing.T, sc notebookScenario, st *privateStack, cells []executedCell) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(st.home, "checkpoints", sc.checkpoint, "metadata")); err != nil {
		t.Errorf("no checkpoint %q: the notebook and `atlas run` must share one query: %v", sc.checkpoint, err)
	}
	got, gotRows := printedFingerprint(t, taggedCell(t, cells, "verify"))
	want, wantRows := sc.reference(t, st)
	if wantRows == 0 {
		t.Fatal("the reference is empty")
	}
	if got != want || gotRows != wantRows {
		t.Errorf("the Verify cell printed %s (%d rows), the reference is %s (%d rows)", got, gotRows, want, wantRows)
	}
}

// checkPrivateBroker checks that a cell reported the stack's own broker.
func checkPrivateBroker(t *testing.T, cells []executedCell, st *privateStack) {
	t.Helper()
	for _, c := range cells {
		if strings.Contains(c.stdout(), "on "+st.addr) {
			return
		}
	}
	t.Errorf("no cell reported the private broker on %s: the kernel did not pass ATLAS_KAFKA_ADDR through", st.addr)
}

// eventWindowsReference recomputes scenario 1 from the raw records with
// referenceWindows, taking the batch boundaries and watermarks from the
// query's offsets log (every batch since 0 must be there, committed).
func eventWindowsReference(t *testing.T, st *privateStack) (string, int) {
	t.Helper()
	e := st.kafka(t)
	recs := e.readTopic("events")
	batches := committedBatches(t, filepath.Join(st.home, "checkpoints", "event_windows"), recs)
	want, _, wantLate := referenceWindows(t, recs, batches)
	diffWindows(t, readWindows(t, e.session), want)
	// The Write cell keeps late events (lateRowsTable): exactly the
	// reference's late rows, once each, even across the interrupted run.
	diffLate(t, readLateRows(t, e.session), wantLate)
	var lines []string
	for k, n := range want {
		lines = append(lines, fmt.Sprintf("%s,%s,%s,%d", k.event, utc(k.start), utc(k.start.Add(5*time.Minute)), n))
	}
	return fingerprintOf(lines), len(lines)
}

// committedBatches reads the offsets log of a checkpoint as the progress
// reports referenceWindows takes: batch id, start and end offsets, watermark.
func committedBatches(t *testing.T, checkpoint string, recs map[int32][]kafkaRecord) []atlas.StreamingQueryProgress {
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
	var out []atlas.StreamingQueryProgress
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
		out = append(out, atlas.StreamingQueryProgress{
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

// cdcReference replays the raw change records (referenceCDC), compares the
// table with it, and fingerprints the live lines.
func cdcReference(t *testing.T, st *privateStack) (string, int) {
	t.Helper()
	e := st.kafka(t)
	recs := e.readCDCTopic(50_000)
	diffCDC(t, readCDCTable(t, e.session), referenceCDC(t, recs))
	live := replayCDC(t, recs)
	var lines []string
	for _, ch := range live {
		ts := changeTime(t, ch)
		customer := ""
		if ch.CustomerID != nil {
			customer = fmt.Sprint(*ch.CustomerID)
		}
		lines = append(lines, strings.Join([]string{ch.Invoice, ch.StockCode, fmt.Sprint(ch.Quantity), fmt.Sprint(ch.Price),
			customer, ch.Country, utc(ts)}, ","))
	}
	return fingerprintOf(lines), len(lines)
}

// fingerprintOf is the notebooks' fingerprint of rows already in their
// canonical text form: SHA-256 of the sorted lines joined by newlines.
func fingerprintOf(lines []string) string {
	sort.Strings(lines)
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(strings.Join(lines, "\n"))))
}

// utc formats a time as the notebooks' fingerprint does.
func utc(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

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
