package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// userCounts reads (user, count) rows of a memory table.
func userCounts(t *testing.T, s *engine.Session, table string) map[string]int64 {
	t.Helper()
	rows, err := s.Table(table).Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r["user"].(string)] = r["count"].(int64)
	}
	return got
}

// processAllAvailable calls q.ProcessAllAvailable, failing the test if it
// has not returned after a generous bound (it must not block forever).
func processAllAvailable(t *testing.T, q *engine.StreamingQuery) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- q.ProcessAllAvailable() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ProcessAllAvailable did not return")
	}
}

// TestProcessAllAvailable returns when the query has caught up, and after
// new rows arrive returns only once they are all counted.
func TestProcessAllAvailable(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("clicks", "user string, n int")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	add := func(round, rows int) {
		var batch [][]any
		for i := range rows {
			user := fmt.Sprintf("u%d", (i*7+round)%5)
			want[user]++
			batch = append(batch, []any{user, i})
		}
		if err := ms.AddRows(batch...); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 300)
	q, err := ms.ToDF().GroupBy("user").Count().WriteStream().
		Format("memory").QueryName("clicks_per_user").OutputMode("complete").Progress(false).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	for round := 1; round <= 3; round++ {
		processAllAvailable(t, q)
		if got := userCounts(t, s, "clicks_per_user"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: after ProcessAllAvailable got %v, want %v", round, got, want)
		}
		// Caught up: it returns again without new data.
		processAllAvailable(t, q)
		add(round, 100*round)
	}
}

// waitStatus polls the query's status until done says so.
func waitStatus(t *testing.T, q *engine.StreamingQuery, done func(engine.StreamingQueryStatus) bool) engine.StreamingQueryStatus {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := q.Status()
		if done(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("status stayed %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStatusBetweenProcessingTimeTriggers: between two triggers Spark's
// MicroBatchExecution says "Waiting for next trigger" with the trigger
// inactive, and isDataAvailable as the last trigger found it.
func TestStatusBetweenProcessingTimeTriggers(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	start := func(stream string, rows int) *engine.StreamingQuery {
		ms, err := s.MemoryStream(stream, "user string, n int")
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if err := ms.AddRows([]any{fmt.Sprintf("u%d", i%3), i}); err != nil {
				t.Fatal(err)
			}
		}
		q, err := ms.ToDF().GroupBy("user").Count().WriteStream().
			Format("memory").QueryName(stream + "_out").OutputMode("complete").
			Trigger(engine.ProcessingTime("1 hour")).Progress(false).Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Stop() })
		return q
	}

	// The first trigger found no data; the next one is an hour away.
	idle := start("idle", 0)
	got := waitStatus(t, idle, func(st engine.StreamingQueryStatus) bool {
		return !st.IsTriggerActive && st.Message != "Initializing sources"
	})
	want := engine.StreamingQueryStatus{Message: "Waiting for next trigger", IsDataAvailable: false, IsTriggerActive: false}
	if got != want {
		t.Errorf("idle between triggers: status %+v, want %+v", got, want)
	}

	// The first trigger processed 10 rows.
	busy := start("busy", 10)
	waitStatus(t, busy, func(engine.StreamingQueryStatus) bool { return busy.LastProgress() != nil })
	if p := busy.LastProgress(); p.NumInputRows != 10 {
		t.Fatalf("first batch read %d rows, want 10", p.NumInputRows)
	}
	got = busy.Status()
	want = engine.StreamingQueryStatus{Message: "Waiting for next trigger", IsDataAvailable: true, IsTriggerActive: false}
	if got != want {
		t.Errorf("after a batch, between triggers: status %+v, want %+v", got, want)
	}
}

// TestMemoryTableReadWhileQueryReplacesIt reads a complete-mode memory
// table from two goroutines while the query replaces its rows batch after
// batch: every read must be one whole result (its counts sum to the rows
// of some prefix of the rounds), never rows the sink has let go.
func TestMemoryTableReadWhileQueryReplacesIt(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("edits", "user string, n int")
	if err != nil {
		t.Fatal(err)
	}
	q, err := ms.ToDF().GroupBy("user").Count().WriteStream().
		Format("memory").QueryName("live_counts").OutputMode("complete").Progress(false).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	var mu sync.Mutex
	totals := map[int64]bool{0: true}
	seen := map[int64]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	readErrs := make([]error, 2)
	for i := range readErrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rows, err := s.Table("live_counts").Rows(context.Background())
				if err != nil {
					readErrs[i] = err
					return
				}
				var sum int64
				for _, r := range rows {
					sum += r["count"].(int64)
				}
				mu.Lock()
				seen[sum]++
				mu.Unlock()
			}
		}()
	}
	var total int64
	for round := 1; round <= 25; round++ {
		var batch [][]any
		for i := range 40 * round {
			batch = append(batch, []any{fmt.Sprintf("u%d", (i+round)%13), i})
		}
		if err := ms.AddRows(batch...); err != nil {
			t.Fatal(err)
		}
		total += int64(len(batch))
		mu.Lock()
		totals[total] = true
		mu.Unlock()
		processAllAvailable(t, q)
	}
	close(stop)
	wg.Wait()
	for i, err := range readErrs {
		if err != nil {
			t.Errorf("reader %d: %v", i, err)
		}
	}
	for sum, n := range seen {
		if !totals[sum] {
			t.Errorf("%d reads summed to %d rows, not a whole result (totals %v)", n, sum, totals)
		}
	}
	got := userCounts(t, s, "live_counts")
	var sum int64
	for _, n := range got {
		sum += n
	}
	if sum != total {
		t.Errorf("final table holds %d rows, want %d", sum, total)
	}
}
