package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// recordingWriter records every call; it declines epochs in skip and
// fails Process on the value fail.
type recordingWriter struct {
	mu    sync.Mutex
	calls []string
	skip  map[int64]bool
	fail  int64
}

func (w *recordingWriter) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, s)
}

func (w *recordingWriter) Open(partitionID, epochID int64) (bool, error) {
	w.add(fmt.Sprintf("open %d %d", partitionID, epochID))
	return !w.skip[epochID], nil
}

func (w *recordingWriter) Process(row engine.Row) error {
	v := row["v"].(int64)
	w.add(fmt.Sprintf("process %d", v))
	if v == w.fail {
		return fmt.Errorf("cannot write %d", v)
	}
	return nil
}

func (w *recordingWriter) Close(err error) error {
	w.add(fmt.Sprintf("close %v", err))
	return nil
}

// TestForeachWriterCalls: per batch, open(0, batch id), process per row,
// close(nil); a declined epoch gets open and close only; a failing row
// gets close(err) and fails the query with that error.
func TestForeachWriterCalls(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("src", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	w := &recordingWriter{skip: map[int64]bool{1: true}, fail: 99}
	q, err := ms.ToDF().WriteStream().Foreach(w).Option("checkpointLocation", filepath.Join(t.TempDir(), "ck")).
		Progress(false).Start()
	if err != nil {
		t.Fatal(err)
	}
	batches := [][]int64{{1, 2, 3}, {4, 5}, {6}}
	var want []string
	for id, b := range batches {
		var rows [][]any // one AddRows: the batch's rows arrive together
		for _, v := range b {
			rows = append(rows, []any{v})
		}
		if err := ms.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("open 0 %d", id))
		if !w.skip[int64(id)] {
			for _, v := range b {
				want = append(want, fmt.Sprintf("process %d", v))
			}
		}
		want = append(want, "close <nil>")
	}
	if err := ms.AddRows([]any{int64(7)}, []any{int64(99)}, []any{int64(8)}); err != nil {
		t.Fatal(err)
	}
	err = q.AwaitTermination()
	if err == nil || !strings.Contains(err.Error(), "cannot write 99") {
		t.Fatalf("AwaitTermination = %v, want the row's error", err)
	}
	want = append(want, "open 0 3", "process 7", "process 99", "close cannot write 99")
	w.mu.Lock()
	got := w.calls
	w.mu.Unlock()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if q.Exception() == nil {
		t.Fatal("the query must keep its exception")
	}
}
