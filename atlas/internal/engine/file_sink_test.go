package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestFileSinkQueryCrashBeforeLog writes a stream to Format("json"), then
// simulates a crash of batch 1 after its file was written and before its
// sink log and commit log entries: the file stays, but Atlas's batch reader
// (through _spark_metadata) does not see it; the restarted query replays
// batch 1, and the directory then reads as exactly the rows added.
func TestFileSinkQueryCrashBeforeLog(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("src", "id bigint, name string")
	if err != nil {
		t.Fatal(err)
	}
	out, ck := filepath.Join(home, "out"), filepath.Join(home, "ck")
	var want []string
	add := func(from, n int) { // one AddRows: the rows arrive together, in one batch
		var rows [][]any
		for i := from; i < from+n; i++ {
			rows = append(rows, []any{int64(i), fmt.Sprintf("n%d", i)})
			want = append(want, fmt.Sprintf("%d:n%d", i, i))
		}
		if err := ms.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
	}
	start := func() *engine.StreamingQuery {
		q, err := ms.ToDF().WriteStream().Format("json").Option("path", out).Option("checkpointLocation", ck).
			Progress(false).Start()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	read := func() []string {
		rows, err := s.Read().Schema("id bigint, name string").JSON(out).Rows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%d:%s", r["id"], r["name"]))
		}
		sort.Strings(got)
		return got
	}
	q := start()
	add(0, 5)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	add(5, 3)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	// The crash: batch 1's file is there, its log entries are not.
	for _, f := range []string{filepath.Join(out, "_spark_metadata", "1"), filepath.Join(ck, "commits", "1")} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(want)
	if got := read(); strings.Join(got, ",") != strings.Join(want[:5], ",") {
		t.Fatalf("after the crash the reader saw %v, want only batch 0's 5 rows", got)
	}
	files, _ := filepath.Glob(filepath.Join(out, "part-*.json"))
	if len(files) != 2 {
		t.Fatalf("%d data files, want 2 (batch 1's uncommitted file stays)", len(files))
	}
	q = start()
	add(8, 2)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	if got := read(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("after the restart the reader saw %v, want %v", got, want)
	}

	// Another query (a new checkpoint) into the same directory would skip
	// its first batches: refused at Start.
	_, err = ms.ToDF().WriteStream().Format("json").Option("path", out).
		Option("checkpointLocation", filepath.Join(home, "ck2")).Progress(false).Start()
	if err == nil || !strings.Contains(err.Error(), "already holds a file sink log") {
		t.Fatalf("a second query into the directory: %v, want a refusal", err)
	}
}
