package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// TestProduceIfEmptyProducesOnce: `atlas produce cdc --if-empty` twice
// leaves exactly --count records in the topic (the second run finds them
// and says so), while without the flag a run adds --count more: what a
// notebook's Setup cell run twice relies on.
func TestProduceIfEmptyProducesOnce(t *testing.T) {
	resetEnv(t)
	b, err := stack.NewBroker(stack.BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"cdc", "--brokers", b.Addr(), "--topic", "t_once", "--count", "300", "--if-empty"}
	for run := 1; run <= 2; run++ {
		out, err := stdout(t, func() error { return runProduce(ctx, args) })
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out)
		}
		if held := strings.Contains(out, "already holds 300 records: not producing more"); held != (run == 2) {
			t.Fatalf("run %d printed:\n%s", run, out)
		}
		if n := countRecords(t, ctx, b.Addr(), "t_once"); n != 300 {
			t.Fatalf("after run %d the topic holds %d records, want 300", run, n)
		}
	}
	if _, err := stdout(t, func() error { return runProduce(ctx, args[:len(args)-1]) }); err != nil {
		t.Fatal(err)
	}
	if n := countRecords(t, ctx, b.Addr(), "t_once"); n != 600 {
		t.Fatalf("without --if-empty the topic holds %d records, want 600", n)
	}
}

// countRecords reads topic to its end with a plain client and counts.
func countRecords(t *testing.T, ctx context.Context, addr, topic string) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	n := 0
	for {
		fctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(fctx)
		cancel()
		got := 0
		fs.EachRecord(func(*kgo.Record) { got++ })
		if got == 0 {
			return n
		}
		n += got
	}
}
