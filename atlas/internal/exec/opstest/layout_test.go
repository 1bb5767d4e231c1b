package opstest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// stateDirs lists a checkpoint's state directories (state/<id>/<kind>).
func stateDirs(t *testing.T, ck string) []string {
	t.Helper()
	var out []string
	ids, err := os.ReadDir(filepath.Join(ck, "state"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		kinds, err := os.ReadDir(filepath.Join(ck, "state", id.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kinds {
			out = append(out, id.Name()+"/"+k.Name())
		}
	}
	sort.Strings(out)
	return out
}

// TestStateLayout: stateful operators are numbered from the root down, as
// Spark's operator ids, and the layouts Atlas wrote before operators were
// numbered stay where they were (a deduplication alone at 1/dedupe), so
// their checkpoints resume.
func TestStateLayout(t *testing.T) {
	read := func(s *engine.Session, dir string) *engine.DataFrame {
		return s.ReadStream().Schema("k string, ts timestamp").Option("maxFilesPerTrigger", 1).JSON(filepath.Join(dir, "a")).
			WithWatermark("ts", "2 minutes")
	}
	for _, c := range []struct {
		name string
		df   func(*engine.DataFrame) *engine.DataFrame
		want []string
	}{
		{"aggregation", func(d *engine.DataFrame) *engine.DataFrame {
			return d.GroupBy(engine.Window(engine.Col("ts"), "1 minute")).Count()
		}, []string{"0/aggregate"}},
		{"deduplication alone (kept at its old place)", func(d *engine.DataFrame) *engine.DataFrame { return d.DropDuplicates("k", "ts") }, []string{"1/dedupe"}},
		{"deduplication then aggregation", func(d *engine.DataFrame) *engine.DataFrame {
			return d.DropDuplicates("k", "ts").GroupBy(engine.Window(engine.Col("ts"), "1 minute")).Count()
		}, []string{"0/aggregate", "1/dedupe"}},
		{"aggregation then deduplication", func(d *engine.DataFrame) *engine.DataFrame {
			return d.GroupBy(engine.Window(engine.Col("ts"), "1 minute"), engine.Col("k")).Count().DropDuplicates("count")
		}, []string{"0/dedupe", "1/aggregate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, filepath.Join(dir, "a"), "k", "ts", windowedFiles(rand.New(rand.NewPCG(1, 2)), 0)[:3])
			s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, dir).GetOrCreate()
			t.Cleanup(s.Stop)
			ck := filepath.Join(dir, "ck")
			for run := 0; run < 2; run++ { // the second run resumes from the first's state
				q, err := c.df(read(s, dir)).WriteStream().OutputMode("append").Trigger(engine.AvailableNow()).Progress(false).
					Option("checkpointLocation", ck).ForeachBatch(func(*engine.DataFrame, int64) error { return nil }).Start()
				if err != nil {
					t.Fatal(err)
				}
				if err := q.AwaitTermination(); err != nil {
					t.Fatal(err)
				}
			}
			if got := stateDirs(t, ck); strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Fatalf("state directories %v, want %v", got, c.want)
			}
		})
	}
}
