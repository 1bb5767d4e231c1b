package atlas_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestQueryOutlivesItsCell starts a query in one client (a notebook cell
// whose process then exits) and observes, queries and stops it from a
// second client of the same session, as later cells do.
func TestQueryOutlivesItsCell(t *testing.T) {
	addr, _ := realServer(t)
	cell1 := atlas.Builder().Remote("sc://" + addr).GetOrCreate()
	rate := cell1.ReadStream().Format("rate").Option("rowsPerSecond", 200).Load()
	if err := rate.Err(); err != nil {
		t.Fatal(err)
	}
	if !rate.IsStreaming() || strings.Join(rate.Columns(), ",") != "timestamp,value" {
		t.Fatalf("rate stream: streaming %v, columns %v", rate.IsStreaming(), rate.Columns())
	}
	if s := rate.SchemaString(); !strings.Contains(s, "value: long") {
		t.Fatalf("printSchema:\n%s", s)
	}
	q, err := rate.
		WriteStream().Format("memory").QueryName("ticks").
		Trigger(atlas.ProcessingTime("100 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	id := q.ID()
	cell1.Close() // the cell's process exits; the query keeps running

	cell2 := atlas.Builder().Remote("sc://" + addr + "/;session_id=" + cell1.SessionID()).GetOrCreate()
	defer cell2.Close()
	q2, err := cell2.Streams().Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if q2.ID() != id || q2.Name() != "ticks" {
		t.Fatalf("Get(%s) = %s %q", id, q2.ID(), q2.Name())
	}
	byName, err := cell2.Streams().Get("ticks")
	if err != nil || byName.ID() != id {
		t.Fatalf("Get by name: %v, %v", byName, err)
	}
	if _, err := cell2.Streams().Get("no_such_query"); err == nil {
		t.Fatal("Get of an unknown query succeeded")
	}
	active, err := cell2.Streams().Active()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(active, func(a *atlas.StreamingQuery) bool { return a.ID() == id }) {
		t.Fatalf("Active() does not list the query started by the first cell")
	}
	deadline := time.Now().Add(10 * time.Second)
	for q2.LastProgress() == nil || q2.LastProgress().NumInputRows == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no micro-batch with rows within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !q2.IsActive() {
		t.Fatal("the query is not active")
	}
	if err := q2.Stop(); err != nil {
		t.Fatal(err)
	}
	if q2.IsActive() {
		t.Fatal("the query is still active after Stop")
	}
	// The memory table holds exactly the rows of the committed batches.
	var want int64
	for _, p := range q2.RecentProgress() {
		want += p.NumInputRows
	}
	got, err := cell2.Table("ticks").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got == 0 {
		t.Fatalf("memory table ticks holds %d rows; the progress reports %d", got, want)
	}
}

// TestInterruptStopsAServerQueryOnTheRealServer sends this process SIGINT
// while AwaitTermination watches a query: the query stops on the server.
func TestInterruptStopsAServerQueryOnTheRealServer(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	q, err := spark.ReadStream().Format("rate").Option("rowsPerSecond", 100).Load().
		WriteStream().Format("memory").QueryName("interrupted").Progress(false).
		Trigger(atlas.ProcessingTime("100 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	}()
	start := time.Now()
	if err := q.AwaitTermination(); !errors.Is(err, atlas.ErrInterrupted) {
		t.Fatalf("AwaitTermination = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 4500*time.Millisecond {
		t.Fatalf("the interrupt took %s; GoNB kills the cell after 5 s", d)
	}
	if q.IsActive() {
		t.Fatal("the query still runs on the server after the interrupt")
	}
}

// TestLargeResultOverHTTP2 collects a result of several megabytes (many
// HTTP/2 frames and flow-control windows): every row arrives once.
func TestLargeResultOverHTTP2(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	q, err := spark.ReadStream().Format("rate").Option("rowsPerSecond", 400_000).Load().
		WriteStream().Format("memory").QueryName("many").Progress(false).
		Trigger(atlas.ProcessingTime("100 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int64
		for _, p := range q.RecentProgress() {
			n += p.NumInputRows
		}
		if n >= 200_000 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, p := range q.RecentProgress() {
		want += p.NumInputRows
	}
	rows, err := spark.Table("many").Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows)) != want || want < 100_000 {
		t.Fatalf("%d rows collected, the progress reports %d (want at least 100000)", len(rows), want)
	}
	seen := make([]bool, want)
	for _, r := range rows {
		v := r["value"].(int64)
		if v < 0 || v >= want || seen[v] {
			t.Fatalf("value %d out of range or repeated (rate values are 0..%d)", v, want-1)
		}
		seen[v] = true
	}
}

// TestAwaitAnyTerminationAndBuilderConfig: the manager sees an
// AvailableNow query end, forgets it after ResetTerminated, and the
// builder's Config reaches the server session.
func TestAwaitAnyTerminationAndBuilderConfig(t *testing.T) {
	addr, _, changes := kafkaServer(t, 120)
	spark := atlas.Builder().AppName("any").Config("spark.sql.shuffle.partitions", "7").Remote("sc://" + addr).GetOrCreate()
	defer spark.Close()
	if v, err := spark.Conf().Get("spark.sql.shuffle.partitions", "200"); err != nil || v != "7" {
		t.Fatalf("builder config on the server: %q, %v", v, err)
	}
	q, err := changeStream(spark).WriteStream().Format("memory").QueryName("once").Progress(false).
		Trigger(atlas.AvailableNow()).Start()
	if err != nil {
		t.Fatal(err)
	}
	ended, err := spark.Streams().AwaitAnyTermination(20 * time.Second)
	if err != nil || !ended {
		t.Fatalf("AwaitAnyTermination = %v, %v", ended, err)
	}
	if q.IsActive() {
		t.Fatal("the query is active after AwaitAnyTermination reported its end")
	}
	n, err := spark.Table("once").Count(context.Background())
	if err != nil || n != int64(len(changes)) {
		t.Fatalf("memory table holds %d rows (%v), want %d", n, err, len(changes))
	}
	if err := spark.Streams().ResetTerminated(); err != nil {
		t.Fatal(err)
	}
	ended, err = spark.Streams().AwaitAnyTermination(200 * time.Millisecond)
	if err != nil || ended {
		t.Fatalf("after ResetTerminated, AwaitAnyTermination = %v, %v; want false (no query ended since)", ended, err)
	}
}

// TestWatchAttachesToARunningQueryAndLeavesItRunning: a later cell gets a
// running query back by name and watches it (the live view, here the
// terminal's progress lines) for a while or until Kernel > Interrupt;
// either way the query keeps running on the server, and its batches go on
// after the watch ends. Stop from another cell then stops it.
func TestWatchAttachesToARunningQueryAndLeavesItRunning(t *testing.T) {
	addr, _ := realServer(t)
	cell1 := atlas.Builder().Remote("sc://" + addr).GetOrCreate()
	q, err := cell1.ReadStream().Format("rate").Option("rowsPerSecond", 100).Load().
		WriteStream().Format("memory").QueryName("watched").
		Trigger(atlas.ProcessingTime("100 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	cell1.Close()
	cell2 := atlas.Builder().Remote("sc://" + addr + "/;session_id=" + cell1.SessionID()).GetOrCreate()
	defer cell2.Close()
	watched, err := cell2.Streams().Get("watched")
	if err != nil || watched.ID() != q.ID() {
		t.Fatalf("Get(watched) = %v, %v", watched, err)
	}
	start := time.Now()
	if err := watched.Watch(context.Background(), 700*time.Millisecond); err != nil {
		t.Fatalf("Watch = %v, want nil (time up, the query runs on)", err)
	}
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Fatalf("Watch returned after %s, before its 700ms", d)
	}
	if !watched.IsActive() {
		t.Fatal("the query stopped when the watch ended")
	}
	// Kernel > Interrupt while watching: the watch ends, the query does not.
	go func() {
		time.Sleep(400 * time.Millisecond)
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	}()
	if err := watched.Watch(context.Background(), 0); err != nil {
		t.Fatalf("Watch after SIGINT = %v, want nil", err)
	}
	before := watched.LastProgress()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := watched.LastProgress()
		if before != nil && p != nil && p.BatchID > before.BatchID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new micro-batch after the interrupted watch: the interrupt stopped the query")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := watched.Stop(); err != nil || watched.IsActive() {
		t.Fatalf("Stop = %v, active %v", err, watched.IsActive())
	}
}

// TestWatchEndsWhenItsContextEnds: a cell watches until its own context
// ends (here when ProcessAllAvailable returns, as the CDC notebook's
// watch cell does): Watch returns at once, nil, and the query runs on.
// On the old code Watch waited for its poller a second time and hung.
func TestWatchEndsWhenItsContextEnds(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	q, err := spark.ReadStream().Format("rate").Option("rowsPerSecond", 100).Load().
		WriteStream().Format("memory").QueryName("watched_ctx").Progress(false).
		Trigger(atlas.ProcessingTime("100 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = q.ProcessAllAvailable()
		cancel()
	}()
	done := make(chan error, 1)
	go func() { done <- q.Watch(ctx, time.Minute) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch = %v, want nil (its context ended, the query runs on)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Watch did not return after its context ended")
	}
	if !q.IsActive() {
		t.Fatal("the query stopped when the watch ended")
	}
}
