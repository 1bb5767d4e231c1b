package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// brokerOutage is how long the broker stays down mid-stream: longer than
// the ~3 s after which a query used to die with "unable to dial".
const brokerOutage = 5 * time.Second

// durableEnv is an env whose broker keeps its data in a directory, so that
// it can be stopped and started again on the same address with every
// record kept.
type durableEnv struct {
	*env
	dir string

	mu     sync.Mutex
	broker *stack.Broker
}

func newDurableEnv(t *testing.T) *durableEnv {
	t.Helper()
	dir := t.TempDir()
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 3, DataDir: filepath.Join(dir, "broker")})
	if err != nil {
		t.Fatal(err)
	}
	d := &durableEnv{dir: dir, broker: b}
	t.Cleanup(func() { d.current().Close() })
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, dir).Config(engine.ConfKafkaBrokers, b.Addr()).GetOrCreate()
	t.Cleanup(s.Stop)
	d.env = &env{t: t, brokers: b.Addr(), home: dir, session: s}
	return d
}

func (d *durableEnv) current() *stack.Broker {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.broker
}

// restart stops the broker, runs down, and starts it again on the same
// address and data. It may run on any goroutine.
func (d *durableEnv) restart(down func()) error {
	d.current().Close()
	down()
	nb, err := stack.NewBroker(stack.BrokerOptions{Addr: d.brokers, Partitions: 3, DataDir: filepath.Join(d.dir, "broker")})
	if err != nil {
		return fmt.Errorf("restart the broker on %s: %w", d.brokers, err)
	}
	d.mu.Lock()
	d.broker = nb
	d.mu.Unlock()
	return nil
}

// A running query survives a broker outage: it waits, says so in its
// status, resumes when the broker is back and writes exactly the table the
// reference computes from the records, each window once.
func TestBrokerOutageRunningQueryWaitsAndResumesExactlyOnce(t *testing.T) {
	e := newDurableEnv(t)
	cfg := produce.EventsConfig{Topic: "events", Count: 12000, Seed: 5, Span: 90 * time.Minute, OutOfOrder: 0.1, Late: 0.02}
	e.produceEvents(cfg)
	q, err := eventsQuery(e.session, 800).WriteStream().
		OutputMode("append").
		Trigger(engine.ProcessingTime("150 milliseconds")).
		Option("checkpointLocation", filepath.Join(e.home, "ck", "outage")).
		Progress(false).
		ToTable("lakehouse.gold.event_windows")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	waitFor(t, 20*time.Second, "two batches before the outage", func() bool { return len(q.RecentProgress()) >= 2 })

	var waiting string
	err = e.restart(func() {
		deadline := time.Now().Add(brokerOutage)
		for time.Now().Before(deadline) {
			if !q.IsActive() {
				t.Fatalf("the query stopped during the broker outage: %v", q.Exception())
			}
			if m := q.Status().Message; strings.HasPrefix(m, "Waiting for the Kafka broker "+e.brokers) {
				waiting = m
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(waiting, "(retry ") || !strings.Contains(waiting, "next in") {
		t.Errorf("during the outage the status never said what the query waits for; last waiting status %q", waiting)
	}
	read := func() int64 {
		var n int64
		for _, p := range q.RecentProgress() {
			n += p.NumInputRows
		}
		return n
	}
	waitFor(t, 60*time.Second, "every record read after the outage", func() bool {
		if !q.IsActive() {
			t.Fatalf("the query stopped after the outage: %v", q.Exception())
		}
		return read() >= cfg.Count
	})
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := read(); n != cfg.Count {
		t.Fatalf("read %d rows, produced %d", n, cfg.Count)
	}
	progress := q.RecentProgress()
	want, _, _ := referenceWindows(t, e.readTopic("events"), progress)
	diffWindows(t, readWindows(t, e.session), want)
}

// An outage in the middle of a batch, after part of it went into the
// aggregation state, fails the read before the sink sees anything; the
// batch runs again from its logged offsets and the state before it, so
// every window is counted once.
func TestBrokerOutageMidBatchRunsTheBatchOnce(t *testing.T) {
	e := newDurableEnv(t)
	// More rows than one Arrow record of the source holds (64Ki), so that
	// the first record reaches the aggregation before the outage.
	cfg := produce.EventsConfig{Topic: "events", Count: 120_000, Seed: 9, Span: 3 * time.Hour, OutOfOrder: 0.1}
	recs, err := produce.GenerateEvents(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.EnsureTopic(context.Background(), []string{e.brokers}, "events", 3); err != nil {
		t.Fatal(err)
	}
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		t.Fatal(err)
	}
	// Many small record batches, so that the query needs many fetches.
	for i := 0; i < len(recs); i += 1000 {
		var batch []*kgo.Record
		for _, r := range recs[i:min(i+1000, len(recs))] {
			batch = append(batch, &kgo.Record{Topic: "events", Key: r.Key, Value: r.Value})
		}
		if err := cl.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()

	// Once the query has fetched 80,000 records of batch 0 (whose first
	// Arrow record of 64Ki rows went into the aggregation), the broker goes
	// down for 4 s. Fetch requests carry the offset each partition is read
	// from.
	var fired atomic.Bool
	outage := make(chan error, 1)
	c := e.current().Cluster()
	fetched := map[int32]int64{} // used only by the control function
	c.ControlKey(int16(kmsg.Fetch), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		var sum int64
		for _, rt := range r.(*kmsg.FetchRequest).Topics {
			for _, rp := range rt.Partitions {
				fetched[rp.Partition] = max(fetched[rp.Partition], rp.FetchOffset)
			}
		}
		for _, off := range fetched {
			sum += off
		}
		if sum >= 80_000 && !fired.Swap(true) {
			go func() { outage <- e.restart(func() { time.Sleep(4 * time.Second) }) }()
		}
		return nil, nil, false
	})
	// Small fetches: about one record batch per partition each.
	small := map[string]string{"kafka.fetch.max.bytes": "1024", "kafka.max.partition.fetch.bytes": "1024"}
	// Batch 0 (100,000 rows) meets the outage; batch 1 moves the watermark
	// past most windows, which append mode then writes.
	q, err := eventsQueryWith(e.session, 100_000, small).WriteStream().
		OutputMode("append").
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", filepath.Join(e.home, "ck", "midbatch")).
		Progress(false).
		ToTable("lakehouse.gold.event_windows")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-outage:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("no outage happened")
	}
	progress := q.RecentProgress()
	var read int64
	for _, p := range progress {
		read += p.NumInputRows
	}
	if read != cfg.Count || progress[0].NumInputRows < 90_000 {
		t.Fatalf("read %d rows in %d batches (%d in batch 0), want %d with about 100,000 in batch 0", read, len(progress), progress[0].NumInputRows, cfg.Count)
	}
	want, _, _ := referenceWindows(t, e.readTopic("events"), progress)
	if len(want) < 50 {
		t.Fatalf("the reference has only %d closed windows; the test needs more", len(want))
	}
	diffWindows(t, readWindows(t, e.session), want)
}

// A query that must end (AvailableNow) waits a bounded time for a broker
// that is down, then fails saying which broker and how to start it.
func TestBrokerDownAvailableNowGivesUpNamingTheBroker(t *testing.T) {
	e := newDurableEnv(t)
	e.produceEvents(produce.EventsConfig{Topic: "events", Count: 100, Seed: 1})
	err := e.restart(func() {
		start := time.Now()
		_, err := e.session.ReadStream().Format("kafka").
			Option("subscribe", "events").
			Option("startingOffsets", "earliest").
			Option("brokerUnavailableTimeout", "1s").
			Load().
			WriteStream().
			Trigger(engine.AvailableNow()).
			Option("checkpointLocation", filepath.Join(e.home, "ck", "down")).
			Progress(false).
			ToTable("lakehouse.bronze.events_down")
		if err == nil {
			t.Fatal("the query started with the broker down")
		}
		msg := err.Error()
		for _, want := range []string{e.brokers, "atlas up", "brokerUnavailableTimeout"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not name %q", msg, want)
			}
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("gave up after %s with brokerUnavailableTimeout=1s", d)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
