package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// Environment of the notebook tests (see TestNotebooks).
const (
	// envNotebookTest set to 1 runs the notebook tests; they then fail,
	// never skip, when the kernel is missing.
	envNotebookTest = "ATLAS_NOTEBOOK_TEST"
	// envNotebookArtifacts is where executed notebooks, screenshots and logs
	// are kept (default: a temporary directory removed after the test).
	envNotebookArtifacts = "ATLAS_NOTEBOOK_ARTIFACTS"
)

// systemPython is Debian's Python, the one with jupyter_client and nbclient.
const systemPython = "/usr/bin/python3"

// kernelName is the kernel spec kernel/install.sh installs.
const kernelName = "atlas"

// notebookHarness is what every notebook test needs: the repository, the
// harness scripts and where artifacts go.
type notebookHarness struct {
	repo      string // repository root, absolute
	scripts   string // kernel/test
	artifacts string
}

// newNotebookHarness skips unless $ATLAS_NOTEBOOK_TEST=1, then fails unless
// the "atlas" kernel is installed from this checkout and leaves ATLAS_HOME to
// the caller (so a test can give each notebook a private stack).
func newNotebookHarness(t *testing.T) *notebookHarness {
	t.Helper()
	if os.Getenv(envNotebookTest) != "1" {
		t.Skipf("set %s=1 to execute the notebooks through the installed kernel (make notebook-test)", envNotebookTest)
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if repo, err = filepath.EvalSymlinks(repo); err != nil {
		t.Fatal(err)
	}
	h := &notebookHarness{repo: repo, scripts: filepath.Join(repo, "kernel", "test"), artifacts: os.Getenv(envNotebookArtifacts)}
	if h.artifacts == "" {
		h.artifacts = t.TempDir()
	} else if h.artifacts, err = filepath.Abs(h.artifacts); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(systemPython, "-c", `import json
from jupyter_client.kernelspec import KernelSpecManager
s = KernelSpecManager().get_kernel_spec("`+kernelName+`")
print(json.dumps({"dir": s.resource_dir, "env": s.env, "metadata": s.metadata}))`).CombinedOutput()
	if err != nil {
		t.Fatalf("%s=1 but the Jupyter kernel %q is not usable (install it: make kernel, or bash kernel/install.sh): %v\n%s",
			envNotebookTest, kernelName, err, out)
	}
	var spec struct {
		Dir      string            `json:"dir"`
		Env      map[string]string `json:"env"`
		Metadata map[string]any    `json:"metadata"`
	}
	if err := json.Unmarshal(out, &spec); err != nil {
		t.Fatalf("kernel spec %q: %v\n%s", kernelName, err, out)
	}
	if got, _ := spec.Metadata["atlas_repo"].(string); got != repo {
		t.Fatalf("the kernel spec %s runs the checkout %q, not this one (%s): install it from here (bash kernel/install.sh; JUPYTER_DATA_DIR=<dir> for a private one)", spec.Dir, got, repo)
	}
	if home, ok := spec.Env["ATLAS_HOME"]; ok {
		t.Fatalf("the kernel spec %s sets ATLAS_HOME=%s: every notebook would share that home; reinstall it with kernel/install.sh", spec.Dir, home)
	}
	if err := checkCellFlags(repo, spec.Env); err != nil {
		t.Fatalf("the kernel spec %s: %v: reinstall it with kernel/install.sh", spec.Dir, err)
	}
	return h
}

// checkCellFlags says whether a kernel spec's environment builds cells as
// kernel/cellflags.sh says (the tags in GOFLAGS, CGO_ENABLED), so the
// notebooks run on the cell builds that kernel/cellbuild-bench.sh measures.
func checkCellFlags(repo string, env map[string]string) error {
	path := filepath.Join(repo, "kernel", "cellflags.sh")
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cell build flags: %w", err)
	}
	get := func(name string) (string, error) {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(src)
		if m == nil {
			return "", fmt.Errorf("%s sets no %s", path, name)
		}
		return string(m[1]), nil
	}
	tags, err := get("CELL_BUILD_TAGS")
	if err != nil {
		return err
	}
	if !regexp.MustCompile(`(^|\s)-tags=` + regexp.QuoteMeta(tags) + `(,|\s|$)`).MatchString(env["GOFLAGS"]) {
		return fmt.Errorf("its GOFLAGS=%q lacks -tags=%s (%s)", env["GOFLAGS"], tags, path)
	}
	cgo, err := get("CELL_CGO_ENABLED")
	if err != nil {
		return err
	}
	if env["CGO_ENABLED"] != cgo {
		return fmt.Errorf("its CGO_ENABLED=%q is not %s (%s)", env["CGO_ENABLED"], cgo, path)
	}
	return nil
}

// artifactDir returns a fresh directory for one test's artifacts.
func (h *notebookHarness) artifactDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(h.artifacts, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// privateStack is a notebook's own Atlas home, broker port and Spark
// Connect port: the kernel started for it inherits them, so the notebook's
// Setup cell (`atlas up`) starts a daemon nobody else uses and its cells
// talk to that daemon's server.
type privateStack struct {
	home, addr, connect string
	env                 []string
}

// newPrivateStack returns a private home and two free loopback ports, and
// stops the daemon the notebook starts there when the test ends.
func newPrivateStack(t *testing.T) *privateStack {
	t.Helper()
	home := t.TempDir()
	addr, connect := freePort(t), freePort(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := stack.Down(ctx, home); err != nil {
			t.Errorf("stopping the notebook's broker in %s: %v", home, err)
		}
	})
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ATLAS_") {
			env = append(env, kv)
		}
	}
	env = append(env, "ATLAS_HOME="+home, stack.EnvKafkaAddr+"="+addr, "ATLAS_CONNECT_ADDR="+connect)
	return &privateStack{home: home, addr: addr, connect: connect, env: env}
}

// freePort returns a loopback address nobody listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// session returns a session on the stack's catalog and broker.
func (st *privateStack) session(t *testing.T) *engine.Session {
	t.Helper()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, st.home).Config(engine.ConfKafkaBrokers, st.addr).GetOrCreate()
	t.Cleanup(s.Stop)
	return s
}

// kafka returns the test env the scenario tests read raw records with.
func (st *privateStack) kafka(t *testing.T) *env {
	return &env{t: t, brokers: st.addr, home: st.home, session: st.session(t)}
}

// python runs one harness script with the stack's environment, keeps its
// output in log, and returns stdout and the exit code.
func (h *notebookHarness) python(t *testing.T, st *privateStack, log string, script string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, systemPython, append([]string{filepath.Join(h.scripts, script)}, args...)...)
	cmd.Dir = h.repo
	cmd.Env = st.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	os.WriteFile(log, append(stdout.Bytes(), stderr.Bytes()...), 0o644)
	t.Logf("%s %s: exit %d in %s (log %s)", script, strings.Join(args, " "), code, time.Since(start).Round(100*time.Millisecond), log)
	return stdout.String(), code
}

// executedCell is one cell of an executed notebook, as nbformat 4 stores it.
type executedCell struct {
	CellType string          `json:"cell_type"`
	Source   json.RawMessage `json:"source"`
	Metadata struct {
		Tags []string `json:"tags"`
	} `json:"metadata"`
	Outputs []struct {
		OutputType string                     `json:"output_type"`
		Name       string                     `json:"name"`
		Text       json.RawMessage            `json:"text"`
		Data       map[string]json.RawMessage `json:"data"`
	} `json:"outputs"`
}

// readExecuted reads an executed notebook's cells.
func readExecuted(t *testing.T, path string) []executedCell {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []executedCell `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatalf("executed notebook %s: %v", path, err)
	}
	return nb.Cells
}

// taggedCell returns the only cell tagged tag.
func taggedCell(t *testing.T, cells []executedCell, tag string) executedCell {
	t.Helper()
	var found []executedCell
	for _, c := range cells {
		for _, got := range c.Metadata.Tags {
			if got == tag {
				found = append(found, c)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d cells tagged %q, want 1", len(found), tag)
	}
	return found[0]
}

// multiline decodes nbformat's text, a string or a list of strings.
func multiline(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	json.Unmarshal(raw, &lines)
	return strings.Join(lines, "")
}

// stdout returns everything the cell printed on stdout.
func (c executedCell) stdout() string { return c.stream("stdout") }

// stderr returns everything the cell printed on stderr.
func (c executedCell) stderr() string { return c.stream("stderr") }

// stream returns everything the cell printed on the named stream.
func (c executedCell) stream(name string) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType == "stream" && o.Name == name {
			b.WriteString(multiline(o.Text))
		}
	}
	return b.String()
}

// html returns the cell's HTML displays.
func (c executedCell) html() []string {
	var out []string
	for _, o := range c.Outputs {
		if h, ok := o.Data["text/html"]; ok {
			out = append(out, multiline(h))
		}
	}
	return out
}

// chartContainer is how a progress chart starts in the HTML (kernel/test/browser_test.py looks for it).
var chartContainer = regexp.MustCompile(`class="atlas-chart"`)

// echartsInlined is a line of the echarts bundle's licence header: a
// saved notebook carries the bundle once, in its first chart output.
const echartsInlined = "Licensed to the Apache Software Foundation"

// chartTitle reads a chart's title out of its echarts option.
var chartTitle = regexp.MustCompile(`"title":\{[^}]*"text":"([^"]*)"`)

// checkProgressCharts checks that a cell's saved output is one final
// progress frame drawing the charts titled titles (the charts that fit the
// query, none flat for want of data), with the echarts bundle inlined at
// most once (checkRunAll checks it is in the notebook once).
func checkProgressCharts(t *testing.T, cell executedCell, titles []string) {
	t.Helper()
	frames := cell.html()
	if len(frames) != 1 {
		t.Fatalf("the cell saved %d HTML outputs, want 1 (the live progress, updated in place)", len(frames))
	}
	if n := len(chartContainer.FindAllString(frames[0], -1)); n != len(titles) {
		t.Errorf("the saved progress frame has %d charts, want %d", n, len(titles))
	}
	var got []string
	for _, m := range chartTitle.FindAllStringSubmatch(frames[0], -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, "|") != strings.Join(titles, "|") {
		t.Errorf("the saved progress frame draws the charts %q, want %q", got, titles)
	}
	if n := strings.Count(frames[0], echartsInlined); n > 1 {
		t.Errorf("the saved progress frame inlines the echarts bundle %d times", n)
	}
}

// verifyLine matches the line a Verify cell prints: the table's row count
// and how many keys it holds more than once.
var verifyLine = regexp.MustCompile(`(?m)^(\d+) rows in (\S+), (\d+) duplicate keys$`)

// writeTotals matches the Write cell's summary line.
var writeTotals = regexp.MustCompile(`(\d+) batches in \S+: (\d+) (?:rows|changes) read`)

// rowsRead returns how many records the Write cell's query read.
func rowsRead(t *testing.T, write executedCell) int64 {
	t.Helper()
	m := writeTotals.FindStringSubmatch(write.stdout())
	if m == nil {
		t.Fatalf("the Write cell printed no totals line; stdout:\n%s", write.stdout())
	}
	var n int64
	fmt.Sscan(m[2], &n)
	return n
}

// Bounds on a Run All (issue: a course's notebooks must stay light and quick).
const (
	// maxExecutedBytes bounds an executed notebook's size.
	maxExecutedBytes = 1_500_000
	// maxRunAllCells bounds the sum of a Run All's cell times, as
	// run_notebook.py measures them (kernel start excluded).
	maxRunAllCells = 60 * time.Second
)

// gonbSpurious is the line GoNB v0.11.4 logs at every kernel start.
var gonbSpurious = regexp.MustCompile(`(?m)main\.go:\d+\] .*Error message$`)

// cellTime matches run_notebook.py's timing line of a finished cell.
var cellTime = regexp.MustCompile(`(?m)^  cell \d+\s+([0-9.]+) s `)

// checkRunAll checks an executed notebook against the course's bounds: no
// spurious GoNB start-up line in its log; at most maxExecutedBytes; the echarts bundle inlined exactly once, in the
// first output that draws charts (later ones draw with it); and the sum of
// its cell times at most maxRunAllCells. The time bound is honest only on
// an idle machine: when the 1-minute load average exceeds 1.5 per core
// (other builds and tests on the same cores), an overrun is logged, not
// failed, and the log says so.
func checkRunAll(t *testing.T, out, runLog string) {
	t.Helper()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxExecutedBytes {
		t.Errorf("the executed notebook is %d bytes, over %d", len(data), maxExecutedBytes)
	}
	var nb struct {
		Cells []executedCell `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	bundles, firstChart, carrier := 0, -1, -1
	for i, c := range nb.Cells {
		for _, h := range c.html() {
			if firstChart < 0 && chartContainer.MatchString(h) {
				firstChart = i
			}
			if n := strings.Count(h, echartsInlined); n > 0 {
				bundles += n
				if carrier < 0 {
					carrier = i
				}
			}
		}
	}
	if firstChart >= 0 && (bundles != 1 || carrier != firstChart) {
		t.Errorf("the notebook inlines the echarts bundle %d times (first in cell %d), want once, in cell %d (its first chart)", bundles, carrier, firstChart)
	}
	logText, err := os.ReadFile(runLog)
	if err != nil {
		t.Fatal(err)
	}
	if m := gonbSpurious.Find(logText); m != nil {
		t.Errorf("the kernel printed GoNB's spurious start-up line %q (kernel/gonb-kernel.sh drops it)", m)
	}
	var sum time.Duration
	for _, m := range cellTime.FindAllStringSubmatch(string(logText), -1) {
		sec, _ := strconv.ParseFloat(m[1], 64)
		sum += time.Duration(sec * float64(time.Second))
	}
	if sum == 0 {
		t.Fatalf("no cell times in %s", runLog)
	}
	load, cores := loadPerCore()
	t.Logf("executed notebook %d bytes; cells took %s in all (load average %.1f on %d cores)", len(data), sum.Round(100*time.Millisecond), load*float64(cores), cores)
	if sum > maxRunAllCells {
		if load > 1.5 {
			t.Logf("the cells took %s, over %s, on a loaded machine (%.1f per core): the time bound is not judged", sum.Round(100*time.Millisecond), maxRunAllCells, load)
		} else {
			t.Errorf("the cells took %s, over %s, on an idle machine (load %.1f per core)", sum.Round(100*time.Millisecond), maxRunAllCells, load)
		}
	}
}

// loadPerCore is the 1-minute load average per core, and the cores.
func loadPerCore() (float64, int) {
	cores := runtime.NumCPU()
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, cores
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return f / float64(cores), cores
}
