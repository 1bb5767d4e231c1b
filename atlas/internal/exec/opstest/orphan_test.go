package opstest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// crashAfterSourcePlanned turns a finished run's directory into what a
// run killed while planning batch k leaves: batches 0..k-1 committed, the
// file sources' seen-files logs holding batch k's files (a source logs
// them before the offsets log records the batch, as Spark's
// FileStreamSource does), and nothing of batch k or later in the offsets
// log, the commit log, the state or the output.
func crashAfterSourcePlanned(t *testing.T, dir string, k int64) {
	t.Helper()
	ck := filepath.Join(dir, "ck")
	from := func(min int64) func(string, os.DirEntry, error) error {
		return func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n, err := strconv.ParseInt(strings.TrimSuffix(d.Name(), ".compact"), 10, 64)
			if err == nil && n >= min {
				return os.Remove(p)
			}
			return nil
		}
	}
	for _, sub := range []string{"ck/offsets", "ck/commits", "ck/state", "out"} {
		if err := filepath.WalkDir(filepath.Join(dir, sub), from(k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.WalkDir(filepath.Join(ck, "sources"), from(k+1)); err != nil {
		t.Fatal(err)
	}
}

// TestResumeAfterCrashWhilePlanning: a run killed after its file sources
// logged batch k's files but before the offsets log recorded batch k
// resumes with batch k as it was planned (its files, no more), so every
// later batch reads the files and judges late rows as a run that never
// stopped: the output is the reference. Before, the resumed run read
// batch k's and batch k+1's files in one batch, whose late rows were then
// judged by an older watermark and counted (TestCompositionsSIGKILL/chained
// saw "10:00-10:05 k0 events=13, want 12").
func TestResumeAfterCrashWhilePlanning(t *testing.T) {
	for _, c := range combos {
		for _, k := range []int64{9, 10, 11, 12} { // after the seen-files log's compaction at 9
			t.Run(c.mode+"/"+strconv.FormatInt(k, 10), func(t *testing.T) {
				dir := t.TempDir()
				want := c.inputs(t, dir, rand.New(rand.NewPCG(7, uint64(len(c.mode)))))
				for run := 0; run < 2; run++ {
					s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, dir).GetOrCreate()
					q, err := start(s, c.mode, dir)
					if err != nil {
						t.Fatal(err)
					}
					err = q.AwaitTermination()
					s.Stop()
					if err != nil {
						t.Fatal(err)
					}
					if run == 0 {
						crashAfterSourcePlanned(t, dir, k)
					}
				}
				diff(t, output(t, dir), want)
			})
		}
	}
}
