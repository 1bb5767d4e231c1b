package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestHoldBeforeCommitKillsMidBatch: with holdBeforeCommit 1, batch 1 of a
// file-sink query writes and lists its file, then waits before commits/1
// with a "Holding batch 1" status; Stop abandons it there (offsets/1 and
// _spark_metadata/1 written, commits/1 not). The restart replays batch 1
// first, the sink skips it, and the directory holds every row once.
func TestHoldBeforeCommitKillsMidBatch(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("src", "id bigint")
	if err != nil {
		t.Fatal(err)
	}
	out, ck := filepath.Join(home, "out"), filepath.Join(home, "ck")
	start := func(opts map[string]any) *engine.StreamingQuery {
		w := ms.ToDF().WriteStream().Format("json").Option("path", out).Option("checkpointLocation", ck).Progress(false)
		for k, v := range opts {
			w = w.Option(k, v)
		}
		q, err := w.Start()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	add := func(from, n int) {
		var rows [][]any
		for i := from; i < from+n; i++ {
			rows = append(rows, []any{int64(i)})
		}
		if err := ms.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
	}
	q := start(map[string]any{"holdBeforeCommit": 1})
	add(0, 4)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	add(4, 3)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.HasPrefix(q.Status().Message, "Holding batch 1 ") {
		if time.Now().After(deadline) {
			t.Fatalf("batch 1 never held; status %+v", q.Status())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := q.Status(); !st.IsTriggerActive {
		t.Errorf("a held batch is in its trigger, status %+v", st)
	}
	has := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if !has(filepath.Join(ck, "offsets", "1")) || !has(filepath.Join(out, "_spark_metadata", "1")) || has(filepath.Join(ck, "commits", "1")) {
		t.Fatalf("held batch 1: offsets/1 %v, _spark_metadata/1 %v, commits/1 %v; want true, true, false",
			has(filepath.Join(ck, "offsets", "1")), has(filepath.Join(out, "_spark_metadata", "1")), has(filepath.Join(ck, "commits", "1")))
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := q.Exception(); err != nil {
		t.Errorf("a stopped held query ends without an exception, got %v", err)
	}
	if has(filepath.Join(ck, "commits", "1")) {
		t.Fatal("Stop committed the held batch")
	}
	if n := q.Totals().Batches; n != 1 {
		t.Errorf("the killed run reports %d batches, want 1 (batch 1 never finished)", n)
	}

	q = start(nil)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	ps := q.RecentProgress()
	if len(ps) == 0 || ps[0].BatchID != 1 {
		t.Fatalf("the restart's batches %v, want batch 1 replayed first", ps)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Read().Schema("id bigint").JSON(out).Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r["id"]))
	}
	sort.Strings(got)
	if want := "0,1,2,3,4,5,6"; strings.Join(got, ",") != want {
		t.Errorf("after the kill and the restart the sink holds %v, want each of %s once", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(out, "part-*"))
	if len(files) != 2 {
		t.Errorf("%d data files, want 2 (one per batch: the replay wrote none)", len(files))
	}
}

// TestHoldBeforeCommitRefusesBadValues: the option takes a batch id.
func TestHoldBeforeCommitRefusesBadValues(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("src", "id bigint")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"-1", "three", ""} {
		_, err := ms.ToDF().WriteStream().Format("json").Option("path", filepath.Join(home, "out")).
			Option("checkpointLocation", filepath.Join(home, "ck")).Option("holdBeforeCommit", v).Progress(false).Start()
		if err == nil || !strings.Contains(err.Error(), "holdBeforeCommit") {
			t.Errorf("holdBeforeCommit %q: err %v, want a refusal naming the option", v, err)
		}
	}
}
