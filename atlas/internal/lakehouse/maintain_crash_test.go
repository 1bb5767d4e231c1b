package lakehouse

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
)

// The test binary turns into a maintenance crash child when
// maintCrashEnv names a directory: it streams batches into gold.events
// there, from the batch after the last committed one up to
// maintCrashBatches, running a forced Maintain every 10 batches, printing
// "step <action>" just before each maintenance commit and "done" at the end.
const (
	maintCrashEnv     = "ATLAS_MAINT_CRASH_DIR"
	maintCrashBatches = 60
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(maintCrashEnv); dir != "" {
		if err := maintCrashChild(dir); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("done")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashProps make every maintenance action due within a few batches:
// a small snapshot bound, manifest merging from 3, a short metadata log
// (so every commit deletes an old metadata file) and no orphan age.
var crashProps = map[string]string{
	PropMaxSnapshots:                     "4",
	table.ManifestMinMergeCountKey:       "3",
	table.MetadataPreviousVersionsMaxKey: "2",
	PropOrphansOlderThanMs:               "0",
	PropCompactMinInputFiles:             "2",
}

func maintCrashChild(dir string) error {
	ctx := context.Background()
	lh, err := Open(ctx, Config{URI: SQLiteURI(dir + "/catalog.db"), Warehouse: "file://" + dir + "/wh"})
	if err != nil {
		return err
	}
	defer lh.Close()
	tb, err := lh.CreateTable(ctx, "lakehouse.gold.events", testSchema, CreateOptions{IfNotExists: true, Properties: crashProps})
	if err != nil {
		return err
	}
	last, ok, err := tb.LastCommittedBatch(ctx, "crash")
	if err != nil {
		return err
	}
	from := int64(0)
	if ok {
		from = last + 1
	}
	hook := func(step string) {
		fmt.Println("step", step)
		time.Sleep(20 * time.Millisecond) // the parent kills here
	}
	for b := from; b < maintCrashBatches; b++ {
		if b%10 == 9 {
			if _, err := tb.Maintain(ctx, MaintainOptions{Force: true, hook: hook}); err != nil {
				return err
			}
		}
		rows := genRows(b*5, 5)
		rec := buildBatch(childTB{}, testSchema, rows)
		_, err := tb.AppendBatch(ctx, []arrow.RecordBatch{rec}, Commit{QueryID: "crash", BatchID: b})
		rec.Release()
		if err != nil {
			return err
		}
		fmt.Println("batch", b)
	}
	// A clean end: one last maintenance, orphans of the kills included.
	_, err = tb.Maintain(ctx, MaintainOptions{Force: true})
	return err
}

// childTB lets the crash child use the test helpers outside a test.
type childTB struct{ testing.TB }

func (childTB) Helper() {}

// runMaintCrashChild runs the child on dir and SIGKILLs it when it prints
// "step <kill>" (never when kill is ""); it reports whether it finished.
func runMaintCrashChild(t *testing.T, dir, kill string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), maintCrashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	finished := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "done":
			finished = true
		case strings.HasPrefix(line, "error:"):
			_ = cmd.Process.Kill()
			t.Fatalf("crash child: %s\n%s", line, stderr.String())
		case kill != "" && line == "step "+kill:
			_ = cmd.Process.Kill() // SIGKILL: no deferred cleanup runs
		}
	}
	_ = cmd.Wait()
	return finished
}

// TestMaintenanceSurvivesSIGKILL kills the process in the middle of each
// maintenance action (compaction after writing its files, manifest rewrite
// after writing its manifests, expiry before its commit and file deletes;
// every commit of the stream also deletes an old metadata file), restarts
// it, and checks the table against the generated rows: every row exactly
// once, nothing lost, and after the final maintenance no orphan file left.
func TestMaintenanceSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, step := range []string{"compact", "rewrite-manifests", "expire"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			// Three kills at the step (a restart reaches it again), then
			// a run to the end.
			kills := 0
			for {
				kill := step
				if kills == 3 {
					kill = ""
				}
				if runMaintCrashChild(t, dir, kill) {
					break
				}
				if kill == "" {
					t.Fatal("the child stopped without being killed")
				}
				kills++
			}
			lh := openTest(t, dir)
			tb, err := lh.LoadTable(context.Background(), "gold.events")
			if err != nil {
				t.Fatal(err)
			}
			recs := readAll(t, tb)
			assertRows(t, recs, genRows(0, 5*maintCrashBatches))
			releaseRecords(recs)
			or, err := tb.RemoveOrphanFiles(context.Background(), time.Now(), true)
			if err != nil {
				t.Fatal(err)
			}
			if len(or.Locations) != 0 {
				t.Fatalf("%d orphan files after %d kills and the final maintenance: %v", len(or.Locations), kills, or.Locations)
			}
			t.Logf("killed %d times at %s; %d rows exactly once, no orphan (%s)", kills, step, 5*maintCrashBatches, strconv.Itoa(len(tb.Snapshots()))+" snapshots")
		})
	}
}
