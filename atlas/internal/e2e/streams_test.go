package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// eventLog records listener events as short strings, in delivery order.
type eventLog struct {
	mu     sync.Mutex
	events []string
	term   *engine.QueryTerminatedEvent
	start  *engine.QueryStartedEvent
}

func (l *eventLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, s)
}

func (l *eventLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// waitFor polls until the log holds n events (listener delivery is
// asynchronous, as Spark's) and returns them.
func (l *eventLog) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ev := l.snapshot(); len(ev) >= n {
			return ev
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("listener saw %v, want %d events", l.snapshot(), n)
	return nil
}

func (l *eventLog) listener() *engine.StreamingQueryListenerFuncs {
	return &engine.StreamingQueryListenerFuncs{
		Started: func(e *engine.QueryStartedEvent) {
			l.mu.Lock()
			l.start = e
			l.mu.Unlock()
			l.add(fmt.Sprintf("started %s %s %s", e.ID, e.RunID, e.Name))
		},
		Progress: func(e *engine.QueryProgressEvent) {
			l.add(fmt.Sprintf("progress %s batch=%d rows=%d", e.Progress.ID, e.Progress.BatchID, e.Progress.NumInputRows))
		},
		Idle: func(e *engine.QueryIdleEvent) { l.add("idle " + e.ID) },
		Terminated: func(e *engine.QueryTerminatedEvent) {
			l.mu.Lock()
			l.term = e
			l.mu.Unlock()
			l.add(fmt.Sprintf("terminated %s %s exception=%v", e.ID, e.RunID, e.Exception != nil))
		},
	}
}

// TestStreamsManagerAndListenerEvents follows one query's life through
// spark.Streams() and a listener: started (delivered before Start
// returns), one idle event (the empty first trigger; the 1-hour
// noDataProgressEventInterval allows no other), one progress event per
// batch with the rows added for it, and terminated with the exception
// that failed the query. Active, Get and AwaitAnyTermination follow it.
func TestStreamsManagerAndListenerEvents(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).
		Config(engine.ConfNoDataProgressEventInterval, "3600000").GetOrCreate()
	t.Cleanup(s.Stop)
	log := &eventLog{}
	l := log.listener()
	s.Streams().AddListener(l)
	ms, err := s.MemoryStream("events", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom: negative value")
	q, err := ms.ToDF().WriteStream().QueryName("watched").Progress(false).
		Option("checkpointLocation", filepath.Join(t.TempDir(), "ck")).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(context.Background())
			if err != nil {
				return err
			}
			for _, r := range rows {
				if r["v"].(int64) < 0 {
					return boom
				}
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if got := log.snapshot(); len(got) == 0 || got[0] != fmt.Sprintf("started %s %s watched", q.ID(), q.RunID()) {
		t.Fatalf("when Start returned the listener saw %v, want the started event first", got)
	}
	if a := s.Streams().Active(); len(a) != 1 || a[0] != q {
		t.Fatalf("Active = %v, want the query", a)
	}
	if s.Streams().Get(q.ID()) != q || s.Streams().Get("watched") != q || s.Streams().Get("other") != nil {
		t.Fatal("Get by id and by name must find the query, and nothing else")
	}
	if _, err := ms.ToDF().WriteStream().QueryName("watched").Format("memory").Start(); err == nil || !strings.Contains(err.Error(), "already active") {
		t.Fatalf("a second query named watched: %v, want a refusal", err)
	}
	log.waitFor(t, 2) // the idle event of the empty first trigger
	if ended, _ := s.Streams().AwaitAnyTerminationTimeout(20 * time.Millisecond); ended {
		t.Fatal("AwaitAnyTermination returned while the query runs")
	}
	batches := [][]int64{{1, 2, 3}, {4, 5}}
	for _, b := range batches {
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
	}
	if err := ms.AddRows([]any{int64(-1)}); err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); !errors.Is(err, boom) {
		t.Fatalf("AwaitTermination = %v, want %v", err, boom)
	}
	want := []string{
		fmt.Sprintf("started %s %s watched", q.ID(), q.RunID()),
		"idle " + q.ID(),
	}
	for i, b := range batches {
		want = append(want, fmt.Sprintf("progress %s batch=%d rows=%d", q.ID(), i, len(b)))
	}
	want = append(want, fmt.Sprintf("terminated %s %s exception=true", q.ID(), q.RunID()))
	got := log.waitFor(t, len(want))
	time.Sleep(50 * time.Millisecond) // nothing else may follow
	got = log.snapshot()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e := log.term; e.Exception == nil || !strings.Contains(*e.Exception, boom.Error()) {
		t.Fatalf("terminated event exception = %v, want %q", e.Exception, boom)
	}
	if err := s.Streams().AwaitAnyTermination(); !errors.Is(err, boom) {
		t.Fatalf("AwaitAnyTermination = %v, want %v", err, boom)
	}
	if len(s.Streams().Active()) != 0 || s.Streams().Get(q.ID()) != nil {
		t.Fatal("a terminated query is still active")
	}
	s.Streams().ResetTerminated()
	if ended, _ := s.Streams().AwaitAnyTerminationTimeout(20 * time.Millisecond); ended {
		t.Fatal("AwaitAnyTermination returned after ResetTerminated with no new termination")
	}
	s.Streams().RemoveListener(l)
	if n := len(s.Streams().ListListeners()); n != 0 {
		t.Fatalf("%d listeners after RemoveListener", n)
	}
	if js := mustJSON(t, log.start); !strings.Contains(js, `"name":"watched"`) || !strings.Contains(js, `"jobTags":[]`) {
		t.Fatalf("started event JSON %s lacks Spark's fields", js)
	}
}

// TestMemorySinkTemporaryCheckpoint: without checkpointLocation a memory
// query starts afresh on every Start (Spark's temporary checkpoint), and
// reads the stream again from its start; with one it resumes.
func TestMemorySinkTemporaryCheckpoint(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("src", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	const n = 7
	for i := 0; i < n; i++ {
		if err := ms.AddRows([]any{int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	run := func(ck string) (int64, string, int) {
		w := ms.ToDF().WriteStream().Format("memory").QueryName("mem").Progress(false).Trigger(engine.AvailableNow())
		if ck != "" {
			w = w.Option("checkpointLocation", ck)
		}
		q, err := w.Start()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
		return q.Totals().InputRows, q.CheckpointLocation(), len(rowsOf(t, s.Table("mem")))
	}
	for i := 0; i < 2; i++ {
		in, loc, rows := run("")
		if in != n || rows != n {
			t.Fatalf("run %d without checkpointLocation read %d rows and the table holds %d, want %d each (a fresh start)", i, in, rows, n)
		}
		if strings.HasPrefix(loc, home) {
			t.Fatalf("run %d checkpointed at %s under ATLAS_HOME, want a temporary directory", i, loc)
		}
	}
	ck := filepath.Join(t.TempDir(), "ck")
	if in, _, _ := run(ck); in != n {
		t.Fatalf("first run with a checkpoint read %d rows, want %d", in, n)
	}
	if in, _, _ := run(ck); in != 0 {
		t.Fatalf("second run with the same checkpoint read %d rows, want 0 (it resumes)", in)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
