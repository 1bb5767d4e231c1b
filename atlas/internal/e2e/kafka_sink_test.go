package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// readCommittedValues reads topic from the start as a read_committed
// consumer until it holds want values, then polls once more so that any
// extra record shows.
func readCommittedValues(t *testing.T, brokers, topic string, want int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	poll := func(d time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)+"="+string(r.Value)) })
	}
	for deadline := time.Now().Add(10 * time.Second); len(got) < want && time.Now().Before(deadline); {
		poll(time.Second)
	}
	poll(300 * time.Millisecond)
	sort.Strings(got)
	return got
}

// TestKafkaSinkQueryCrashAfterTransactionCommit runs a query into
// Format("kafka"), then simulates a crash between batch 0's transaction
// commit and its commit log entry (the entry is removed): the restarted
// query replays batch 0, which must not be written twice, and then writes
// the new rows. A read_committed consumer sees exactly the rows added.
func TestKafkaSinkQueryCrashAfterTransactionCommit(t *testing.T) {
	e := newEnv(t)
	s := e.session
	if err := stack.EnsureTopic(context.Background(), []string{e.brokers}, "out", 3); err != nil {
		t.Fatal(err)
	}
	ms, err := s.MemoryStream("src", "k string, v string")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	add := func(tag string, n int) {
		for i := 0; i < n; i++ {
			k, v := fmt.Sprintf("k%d", i), fmt.Sprintf("%s-%d", tag, i)
			if err := ms.AddRows([]any{k, v}); err != nil {
				t.Fatal(err)
			}
			want = append(want, k+"="+v)
		}
	}
	ck := filepath.Join(e.home, "ck")
	run := func() *engine.StreamingQuery {
		q, err := ms.ToDF().Select(engine.Col("k").Alias("key"), engine.Col("v").Alias("value")).
			WriteStream().Format("kafka").Option("topic", "out").Option("checkpointLocation", ck).
			Trigger(engine.AvailableNow()).Progress(false).Start()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
		return q
	}
	add("a", 6)
	first := run()
	if err := os.Remove(filepath.Join(ck, "commits", "0")); err != nil {
		t.Fatal(err) // the crash: batch 0's transaction committed, its commit log entry not
	}
	add("b", 4)
	second := run()
	if second.ID() != first.ID() {
		t.Fatalf("restart has query id %s, want %s (same checkpoint)", second.ID(), first.ID())
	}
	if in := second.Totals().InputRows; in != 10 {
		t.Fatalf("restart read %d rows, want 10 (batch 0 replayed, then the 4 new rows)", in)
	}
	sort.Strings(want)
	got := readCommittedValues(t, e.brokers, "out", len(want))
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("read_committed saw %d records %v, want %d %v", len(got), got, len(want), want)
	}
}
