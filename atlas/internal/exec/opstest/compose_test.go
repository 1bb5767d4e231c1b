// Package opstest tests the operator executor's compositions of stateful
// operators (Spark 3.4+): chained window aggregations, dropDuplicates
// without a watermark then a watermark and an aggregation, a streaming
// union with watermarks on both sides or one on the union, a stream-static
// join then an aggregation, a stream-stream join of two aggregations, an
// aggregation and a deduplication after a stream-stream join. Each query reads JSON files (one file per source
// per micro-batch) and writes every batch through foreachBatch to a file
// named by its batch id, so that a run killed with SIGKILL and restarted
// from its checkpoint leaves exactly what an uninterrupted run leaves.
// Every result is compared with a reference computed from the raw records
// in the test, by Spark's rules, without the engine.
package opstest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// The test binary turns into a query child when childEnv names a
// combination: it runs that query over dirEnv's inputs from its
// checkpoint to the end of the files, printing "batch N" after each batch.
const (
	childEnv = "ATLAS_OPSTEST_CHILD"
	dirEnv   = "ATLAS_OPSTEST_DIR"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		if err := runChild(mode, os.Getenv(dirEnv)); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("done")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var base = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// event is one input row: a key and an event time, and for a stream
// that is deduplicated, an id.
type event struct {
	k  string
	ts time.Time
	id string
}

// writeFiles writes one JSON file per batch into dir (modification times
// in batch order), each line {"<key>": k, "<time>": ts}.
func writeFiles(t *testing.T, dir, key, tcol string, files [][]event) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		var b strings.Builder
		for _, e := range f {
			id := ""
			if e.id != "" {
				id = fmt.Sprintf("%q: %q, ", "id", e.id)
			}
			fmt.Fprintf(&b, "{%s%q: %q, %q: %q}\n", id, key, e.k, tcol, e.ts.Format(time.RFC3339))
		}
		p := filepath.Join(dir, fmt.Sprintf("f%03d.json", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Unix(1_700_000_000+int64(i), 0)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

// query builds a combination's DataFrame over dir's inputs.
func query(s *engine.Session, mode, dir string) *engine.DataFrame {
	read := func(sub, schema string) *engine.DataFrame {
		return s.ReadStream().Schema(schema).Option("maxFilesPerTrigger", 1).JSON(filepath.Join(dir, sub))
	}
	switch mode {
	case "chained":
		perMinute := read("a", "k string, ts timestamp").WithWatermark("ts", "2 minutes").
			GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count()
		return perMinute.GroupBy(engine.Window(engine.WindowTime(engine.Col("window")), "5 minutes"), engine.Col("k")).
			Agg(engine.Sum(engine.Col("count")).Alias("events"), engine.Count(engine.Col("*")).Alias("minutes"))
	case "dedupagg":
		return read("a", "id string, k string, ts timestamp").DropDuplicates("id").WithWatermark("ts", "2 minutes").
			GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count()
	case "dedupwm":
		return read("a", "id string, k string, ts timestamp").WithWatermark("ts", "2 minutes").DropDuplicates("id", "ts").
			GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count()
	case "unionwm":
		a, b := read("a", "k string, ts timestamp"), read("b", "k string, ts timestamp")
		return a.Union(b).WithWatermark("ts", "2 minutes").GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count()
	case "staticagg":
		regions := s.Read().Schema("k string, region string").JSON(filepath.Join(dir, "static"))
		return read("a", "k string, ts timestamp").WithWatermark("ts", "2 minutes").Join(regions, "k", "inner").
			GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("region")).Count()
	case "aggjoin":
		perMinute := func(sub, count string) *engine.DataFrame {
			return read(sub, "k string, ts timestamp").WithWatermark("ts", "2 minutes").
				GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count().
				Select(engine.Col("window"), engine.Col("k"), engine.Col("count").Alias(count))
		}
		return perMinute("a", "a_count").Join(perMinute("b", "b_count"), []string{"window", "k"}, "inner")
	case "union":
		a := read("a", "k string, ts timestamp").WithWatermark("ts", "2 minutes")
		b := read("b", "k string, ts timestamp").WithWatermark("ts", "4 minutes")
		return a.Union(b).GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count()
	case "joinagg", "joindedup", "leftouter":
		imp := read("imp", "adId string, impressionTime timestamp").WithWatermark("impressionTime", "30 minutes")
		clk := read("clk", "clickAdId string, clickTime timestamp").WithWatermark("clickTime", "30 minutes")
		cond := engine.Col("clickAdId").Eq(engine.Col("adId")).
			And(engine.Col("clickTime").Geq(engine.Col("impressionTime"))).
			And(engine.Col("clickTime").Leq(engine.Col("impressionTime").Plus(engine.Lit(time.Hour))))
		if mode == "leftouter" {
			return imp.Join(clk, cond, "left_outer").Select("adId", "clickAdId")
		}
		joined := imp.Join(clk, cond, "inner")
		if mode == "joinagg" {
			return joined.GroupBy(engine.Window(engine.Col("clickTime"), "15 minutes")).Count()
		}
		return joined.DropDuplicates("adId").Select("adId")
	}
	panic("unknown combination " + mode)
}

// render is one output row as a line.
func render(mode string, r engine.Row) string {
	switch mode {
	case "joindedup":
		return fmt.Sprint(r["adId"])
	case "leftouter":
		return fmt.Sprint(r["adId"], " ", r["clickAdId"])
	}
	w := r["window"].(engine.Row)
	win := w["start"].(time.Time).UTC().Format("15:04") + "-" + w["end"].(time.Time).UTC().Format("15:04")
	switch mode {
	case "chained":
		return fmt.Sprintf("%s %v events=%v minutes=%v", win, r["k"], r["events"], r["minutes"])
	case "union", "unionwm", "dedupagg", "dedupwm":
		return fmt.Sprintf("%s %v %v", win, r["k"], r["count"])
	case "staticagg":
		return fmt.Sprintf("%s %v %v", win, r["region"], r["count"])
	case "aggjoin":
		return fmt.Sprintf("%s %v a=%v b=%v", win, r["k"], r["a_count"], r["b_count"])
	}
	return fmt.Sprintf("%s %v", win, r["count"])
}

// start starts a combination on dir, writing batch N's rows to
// dir/out/N (replaced whole: a replayed batch rewrites its own file).
func start(s *engine.Session, mode, dir string) (*engine.StreamingQuery, error) {
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	return query(s, mode, dir).WriteStream().OutputMode("append").Trigger(engine.AvailableNow()).Progress(false).
		Option("checkpointLocation", filepath.Join(dir, "ck")).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(context.Background())
			if err != nil {
				return err
			}
			var lines []string
			for _, r := range rows {
				lines = append(lines, render(mode, r)+"\n")
			}
			sort.Strings(lines)
			tmp := filepath.Join(out, fmt.Sprintf(".%d.tmp", id))
			if err := os.WriteFile(tmp, []byte(strings.Join(lines, "")), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, filepath.Join(out, fmt.Sprint(id)))
		}).Start()
}

func runChild(mode, dir string) error {
	s := engine.Builder().AppName("opstest-child").Config(engine.ConfHome, dir).GetOrCreate()
	defer s.Stop()
	q, err := start(s, mode, dir)
	if err != nil {
		return err
	}
	last := int64(-1)
	for q.IsActive() {
		if p := q.LastProgress(); p != nil && p.BatchID != last {
			last = p.BatchID
			fmt.Println("batch", last)
		}
		time.Sleep(time.Millisecond)
	}
	return q.AwaitTermination()
}

// output is every line the batches wrote, sorted; a line written by two
// batches is reported (a window emitted twice).
func output(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	var all []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "out", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l == "" {
				continue
			}
			if b, ok := seen[l]; ok {
				t.Errorf("%q written by batches %s and %s", l, b, e.Name())
			}
			seen[l] = e.Name()
			all = append(all, l)
		}
	}
	sort.Strings(all)
	return all
}

func diff(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	g, w := map[string]bool{}, map[string]bool{}
	for _, x := range got {
		g[x] = true
	}
	for _, x := range want {
		w[x] = true
	}
	var extra, missing []string
	for _, x := range got {
		if !w[x] {
			extra = append(extra, x)
		}
	}
	for _, x := range want {
		if !g[x] {
			missing = append(missing, x)
		}
	}
	t.Fatalf("%d rows, want %d; unexpected %v; missing %v", len(got), len(want), head(extra), head(missing))
}

func head(xs []string) []string {
	if len(xs) > 8 {
		return append(xs[:8:8], fmt.Sprintf("... %d more", len(xs)-8))
	}
	return xs
}

// combo is one combination: its inputs and its reference.
type combo struct {
	mode   string
	inputs func(t *testing.T, dir string, rng *rand.Rand) []string // writes the files, returns the reference
	ops    []string                                                // the stateOperators names, bottom up
	dirs   []string                                                // the state directories, ids from the root down
}

var combos = []combo{
	{"chained", chainedInputs, []string{"stateStoreSave", "stateStoreSave"}, []string{"0/aggregate", "1/aggregate"}},
	{"dedupagg", dedupInputs, []string{"dedupe", "stateStoreSave"}, []string{"0/aggregate", "1/dedupe"}},
	{"dedupwm", dedupWatermarkInputs, []string{"dedupe", "stateStoreSave"}, []string{"0/aggregate", "1/dedupe"}},
	{"union", unionInputs, []string{"stateStoreSave"}, []string{"0/aggregate"}},
	{"unionwm", unionWatermarkInputs, []string{"stateStoreSave"}, []string{"0/aggregate"}},
	{"staticagg", staticInputs, []string{"stateStoreSave"}, []string{"0/aggregate"}},
	{"aggjoin", aggJoinInputs, []string{"stateStoreSave", "stateStoreSave", "symmetricHashJoin"}, []string{"0/join", "1/aggregate", "2/aggregate"}},
	{"joinagg", joinInputs("joinagg"), []string{"symmetricHashJoin", "stateStoreSave"}, []string{"0/aggregate", "1/join"}},
	{"joindedup", joinInputs("joindedup"), []string{"symmetricHashJoin", "dedupe"}, []string{"0/dedupe", "1/join"}},
}

// TestCompositions runs each combination to the end in one process and
// compares its output and its stateOperators with the reference.
func TestCompositions(t *testing.T) {
	for _, c := range combos {
		t.Run(c.mode, func(t *testing.T) {
			dir := t.TempDir()
			want := c.inputs(t, dir, rand.New(rand.NewPCG(7, uint64(len(c.mode)))))
			s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, dir).GetOrCreate()
			t.Cleanup(s.Stop)
			q, err := start(s, c.mode, dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.AwaitTermination(); err != nil {
				t.Fatal(err)
			}
			if len(want) < 5 {
				t.Fatalf("the reference has %d rows: the inputs test nothing", len(want))
			}
			diff(t, output(t, dir), want)
			t.Logf("%d rows as the reference", len(want))
			ps := q.RecentProgress()
			if len(ps) == 0 {
				t.Fatal("no progress")
			}
			var names []string
			for _, op := range ps[len(ps)-1].StateOperators {
				names = append(names, op.OperatorName)
			}
			if fmt.Sprint(names) != fmt.Sprint(c.ops) {
				t.Errorf("stateOperators %v, want one per stateful operator %v", names, c.ops)
			}
			if got := stateDirs(t, filepath.Join(dir, "ck")); fmt.Sprint(got) != fmt.Sprint(c.dirs) {
				t.Errorf("state directories %v, want %v", got, c.dirs)
			}
		})
	}
}

// TestCompositionsSIGKILL kills each combination's query with SIGKILL at
// random moments, restarts it from its checkpoint each time, and compares
// the final output with the reference: nothing lost, nothing doubled.
func TestCompositionsSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns several processes")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill-time seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, c := range combos {
		t.Run(c.mode, func(t *testing.T) {
			dir := t.TempDir()
			want := c.inputs(t, dir, rand.New(rand.NewPCG(7, uint64(len(c.mode)))))
			kills := 0
			// Kill after batches 0-2, 3-5 and 6-8 have committed, 0-20 ms
			// into the next one (reading, in the sink, writing state or
			// the commit log). A quick query can finish before the first
			// kill lands: it then starts over, up to 3 times.
			for attempt := 0; kills == 0 && attempt < 3; attempt++ {
				if attempt > 0 {
					for _, sub := range []string{"ck", "out"} {
						if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
							t.Fatal(err)
						}
					}
				}
				for i := 0; i < 3; i++ {
					if runKilled(t, c.mode, dir, int64(3*i+rng.IntN(3)), time.Duration(rng.IntN(20))*time.Millisecond) {
						break
					}
					kills++
				}
			}
			if !runKilled(t, c.mode, dir, -1, 0) {
				t.Fatal("the last child did not finish")
			}
			t.Logf("%s: killed %d times, then finished", c.mode, kills)
			if kills == 0 {
				t.Fatal("the first child finished before it could be killed: make the run longer")
			}
			diff(t, output(t, dir), want)
		})
	}
}

// runKilled runs a child and SIGKILLs it killAfter after it reports batch
// killAt (killAt < 0: lets it finish); it reports whether it finished.
func runKilled(t *testing.T, mode, dir string, killAt int64, killAfter time.Duration) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, dirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, out)
	}()
	armed, finished := false, false
	for line := range lines {
		switch {
		case line == "done":
			finished = true
		case strings.HasPrefix(line, "error:"):
			cmd.Process.Kill()
			t.Fatalf("child %s: %s\n%s", mode, line, stderr.String())
		case strings.HasPrefix(line, "batch ") && !armed && killAt >= 0:
			var n int64
			if _, err := fmt.Sscan(strings.TrimPrefix(line, "batch "), &n); err != nil || n < killAt {
				continue
			}
			armed = true
			time.AfterFunc(killAfter, func() { cmd.Process.Kill() }) // SIGKILL: no deferred cleanup runs
		}
	}
	cmd.Wait()
	return finished
}
