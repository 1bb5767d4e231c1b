package atlas_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// The helpers of the Spark programming guide tests (sparkguide_real_test.go):
// a JSON file stream the test feeds one file per trigger, and a
// foreachBatch collector that hands back what each trigger wrote.

// guideDay is the date of the guide's 12:xx event times.
var guideDay = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// at is "12:07" (or "12:07:30") on guideDay.
func at(t *testing.T, hhmm string) time.Time {
	t.Helper()
	layout := "15:04"
	if strings.Count(hhmm, ":") == 2 {
		layout = "15:04:05"
	}
	d, err := time.Parse(layout, hhmm)
	if err != nil {
		t.Fatal(err)
	}
	return guideDay.Add(time.Duration(d.Hour())*time.Hour + time.Duration(d.Minute())*time.Minute + time.Duration(d.Second())*time.Second)
}

// feed is a directory a JSON file stream reads; each add is one new file,
// so that with maxFilesPerTrigger=1 each add is one trigger's input.
type feed struct {
	t   *testing.T
	dir string
	n   int
}

func newFeed(t *testing.T) *feed {
	dir := filepath.Join(t.TempDir(), "in")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &feed{t: t, dir: dir}
}

// add writes one file of JSON lines, atomically (hidden name, then rename).
func (f *feed) add(lines ...string) {
	f.t.Helper()
	f.n++
	tmp := filepath.Join(f.dir, fmt.Sprintf(".tmp-%03d.json", f.n))
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.dir, fmt.Sprintf("part-%03d.json", f.n))); err != nil {
		f.t.Fatal(err)
	}
}

// stream reads the feed with a schema, one file per micro-batch.
func (f *feed) stream(spark *atlas.Session, ddl string) *atlas.DataFrame {
	return spark.ReadStream().Schema(ddl).Option("maxFilesPerTrigger", 1).JSON(f.dir)
}

// collector receives every micro-batch of a query through foreachBatch and
// renders each row with format.
type collector struct {
	mu      sync.Mutex
	format  func(atlas.Row) string
	pending []string
	batches int
}

func (c *collector) fn(batch *atlas.DataFrame, _ int64) error {
	rows, err := batch.Rows(context.Background())
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches++
	for _, r := range rows {
		c.pending = append(c.pending, c.format(r))
	}
	return nil
}

// take returns, sorted, the rows written since the last take.
func (c *collector) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.pending
	c.pending = nil
	sort.Strings(out)
	return out
}

// trigger feeds one file and waits until the query processed it (and ran
// the no-data batch its watermark asks for); it returns the rows written.
func trigger(t *testing.T, q *atlas.StreamingQuery, f *feed, c *collector, lines ...string) []string {
	t.Helper()
	if len(lines) > 0 {
		f.add(lines...)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	return c.take()
}

// sameRows fails the test when got and want (both sorted) differ.
func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// hm renders a timestamp cell as "12:07".
func hm(v any) string {
	ts, ok := v.(time.Time)
	if !ok {
		return fmt.Sprintf("%v", v)
	}
	if ts.Second() != 0 {
		return ts.UTC().Format("15:04:05")
	}
	return ts.UTC().Format("15:04")
}

// windowRow renders a row (window, word, count) as "12:00-12:10 dog 1".
func windowRow(key string) func(atlas.Row) string {
	return func(r atlas.Row) string {
		w, _ := r["window"].(atlas.Row)
		return fmt.Sprintf("%s-%s %v %v", hm(w["start"]), hm(w["end"]), r[key], r["count"])
	}
}

// ev is one JSON line {"timestamp": ..., col: val}.
func ev(t *testing.T, hhmm, col, val string) string {
	return fmt.Sprintf(`{"timestamp":%q,%q:%q}`, at(t, hhmm).Format(time.RFC3339), col, val)
}
