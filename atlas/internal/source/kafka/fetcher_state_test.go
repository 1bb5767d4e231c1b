package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// pollRows polls f until the rows it brought for partition 0 of topic
// reach offset upTo, and returns them with the first result's first
// offset. Results of other partitions are released.
func pollRows(t *testing.T, ctx context.Context, f *fetcher, topic string, upTo int64) (rows []row, first int64) {
	t.Helper()
	first = -2
	for next := int64(-1); next < upTo; {
		results, err := f.poll(ctx)
		if err != nil || ctx.Err() != nil {
			t.Fatalf("polling for offsets up to %d (have %d rows): %v %v", upTo, len(rows), err, ctx.Err())
		}
		for _, pf := range results {
			if pf.topic != topic || pf.partition != 0 || pf.err != nil {
				releaseChunks(pf.chunks)
				if pf.err != nil {
					t.Fatalf("fetching %s-%d: %v", pf.topic, pf.partition, pf.err)
				}
				continue
			}
			if first == -2 {
				first = pf.first
			}
			for _, c := range pf.chunks {
				if c.rec != nil {
					rec := c.rec.NewSlice(int64(c.head), int64(len(c.offs)))
					rows = append(rows, rowsOf(t, rec)...)
					rec.Release()
				}
			}
			releaseChunks(pf.chunks)
			next = max(next, pf.next)
		}
	}
	return rows, first
}

// TestRepositionDropsTheFetchInFlight: a partition removed and added back
// at an earlier offset (what the reader does when a batch is retried)
// while a fetch of it is in flight must not take that fetch's answer. The
// fetch at the log end is held until the partition was added back at 0
// and new records arrived, then answered with those records: the fetcher
// used to number a partition added back from 1 again, took the stale
// answer as the new partition's, and went on after it, so that offsets
// [0, 300) were never fetched again (the reader then completed the
// retried batch [0, 100) with no rows).
func TestRepositionDropsTheFetchInFlight(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
	all := produce(t, ctx, addr, "events", "a", map[int32]int{0: 300})
	held, release := make(chan struct{}), make(chan struct{})
	holding := false
	c.ControlKey(kmsg.Fetch.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if holding {
			return nil, nil, false
		}
		for _, rt := range req.(*kmsg.FetchRequest).Topics {
			for _, rp := range rt.Partitions {
				if rp.Partition == 0 && rp.FetchOffset >= 300 {
					holding = true
					close(held)
					c.SleepControl(func() { <-release })
					return nil, nil, false
				}
			}
		}
		return nil, nil, false
	})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	f := src.reader.f

	f.add(map[string]map[int32]int64{"events": {0: 0}})
	rows, _ := pollRows(t, ctx, f, "events", 300)
	sameRows(t, "the first pass", rows, all)
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("no fetch at offset 300 was sent")
	}
	more := produce(t, ctx, addr, "events", "b", map[int32]int{0: 10})
	f.remove(map[string][]int32{"events": {0}})
	f.add(map[string]map[int32]int64{"events": {0: 0}})
	close(release)

	rows, first := pollRows(t, ctx, f, "events", 310)
	if first != 0 {
		t.Fatalf("the first fetch after adding events-0 back at 0 starts at %d: the answer to the fetch in flight before was taken", first)
	}
	sameRows(t, "the second pass", rows, append(append([]row(nil), all...), more...))
}

// TestRetryAfterReadAheadFilled: fetching ahead stops polling once its
// buffers are full, and the broker's loop then holds one more answer,
// unpolled. A retried batch (it does not start where the last one ended)
// drops that answer with the partition; the loop used to go on waiting
// for it to be polled, and the retried batch waited forever.
func TestRetryAfterReadAheadFilled(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	var all []row
	for i := range 20 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("s", i), map[int32]int{0: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.aheadMaxBytes = 1 // anything buffered fills it
	src.reader.pauseAfter = 1 << 20

	start, end := source.Offset(`{"events":{"0":0}}`), source.Offset(`{"events":{"0":100}}`)
	first, _ := readBatch(t, ctx, src, start, end)
	sameRows(t, "the first batch", first, all[:100])
	src.reader.mu.Lock()
	a := src.reader.ahead
	src.reader.mu.Unlock()
	<-a.done // stopped: its buffers are full
	for {
		src.reader.f.mu.Lock()
		n := len(src.reader.f.results)
		src.reader.f.mu.Unlock()
		if n > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the broker's loop delivered nothing after fetching ahead stopped")
		}
		time.Sleep(5 * time.Millisecond)
	}

	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var again []row
	err := src.GetBatch(rctx, start, end, func(rec arrow.RecordBatch) error {
		again = append(again, rowsOf(t, rec)...)
		return nil
	})
	if err != nil {
		t.Fatalf("the batch retried: %v", err)
	}
	sameRows(t, "the batch retried", again, all[:100])
}

// TestUnknownLastFetchedEpochIsNotRetriedAsIs: a leader that cannot place
// a fetch's LastFetchedEpoch in its log (an epoch newer than any it knows:
// the topic was recreated under a Fetch version without topic ids, or its
// epoch cache was lost) answers OFFSET_OUT_OF_RANGE although the offset
// is inside the log (Kafka's Partition.readRecords). The fetcher, seeing
// the offset in range, used to send the same fetch again at once, forever
// (tens of thousands of fetches a second, the batch stalled); it now
// fetches the offset again without the epoch, and the batch reads its
// rows exactly once.
func TestUnknownLastFetchedEpochIsNotRetriedAsIs(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
	var all []row
	for i := range 6 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("s", i), map[int32]int{0: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.aheadMaxBytes = 1 // fetching ahead stops at once: the next batch fetches
	src.reader.pauseAfter = 1 << 20

	// The leader refuses every fetch that carries an epoch from the start:
	// whichever batch's fetches carry one (a fetch session that started over
	// on a loaded machine sends none until its first records), both must
	// read their rows exactly once.
	refused := answerFetches(c, kerr.OffsetOutOfRange.Code, func(_ int32, req *kmsg.FetchRequest) bool {
		for _, rt := range req.Topics {
			for _, rp := range rt.Partitions {
				if rp.LastFetchedEpoch >= 0 {
					return true
				}
			}
		}
		return false
	})
	first, _ := readBatch(t, ctx, src, `{"events":{"0":0}}`, `{"events":{"0":100}}`)
	sameRows(t, "the first batch", first, all[:100])

	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var second []row
	err := src.GetBatch(rctx, `{"events":{"0":100}}`, `{"events":{"0":300}}`, func(rec arrow.RecordBatch) error {
		second = append(second, rowsOf(t, rec)...)
		return nil
	})
	if err != nil {
		t.Fatalf("the batch after the leader refused the epoch (%d fetches refused): %v", refused.Load(), err)
	}
	sameRows(t, "the second batch", second, all[100:300])
	if refused.Load() == 0 {
		t.Fatal("no fetch sent a LastFetchedEpoch: the test did not exercise the refusal")
	}
}

// TestPartitionThatCannotBeFetchedFailsTheBatch: a partition whose fetches
// keep failing with a retriable error (here NOT_LEADER_FOR_PARTITION from a
// broker whose metadata says it leads) is retried by the fetcher, but the
// batch used to wait for it forever, silently. After fetchErrorTimeout
// (Spark's kafkaConsumer.pollTimeoutMs) the batch fails, naming the
// partition and the broker's error, as a wait for the broker, so that the
// query says what it waits for and retries.
func TestPartitionThatCannotBeFetchedFailsTheBatch(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
	produce(t, ctx, addr, "events", "a", map[int32]int{0: 10})
	refused := answerFetches(c, kerr.NotLeaderForPartition.Code, func(int32, *kmsg.FetchRequest) bool { return true })
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})
	src.reader.fetchErrorTimeout = time.Second

	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := src.GetBatch(rctx, `{"events":{"0":0}}`, `{"events":{"0":10}}`, func(arrow.RecordBatch) error { return nil })
	if err == nil || rctx.Err() != nil || !strings.Contains(err.Error(), "events-0") || !strings.Contains(err.Error(), "NOT_LEADER") || source.AsUnavailable(err) == nil {
		t.Fatalf("a batch whose partition cannot be fetched (%d fetches refused): %v, want a wait for the broker naming events-0 and NOT_LEADER_FOR_PARTITION", refused.Load(), err)
	}
}

// TestBrokerAwayIsRetriedWithBackoff: the broker loop waited a fixed 250ms
// after each failed request, so a broker away for minutes was sent four
// fetches and four metadata requests a second. It now waits the client's
// retry backoff for the number of failures in a row, which starts over
// after a fetch succeeds.
func TestBrokerAwayIsRetriedWithBackoff(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
	all := produce(t, ctx, addr, "events", "a", map[int32]int{0: 10})
	var down atomic.Bool
	down.Store(true)
	c.ControlKey(kmsg.Fetch.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if down.Load() {
			return nil, errors.New("broker away"), true // the connection is cut
		}
		return nil, nil, false
	})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})
	f := src.reader.f
	var (
		mu    sync.Mutex
		fails []int
	)
	f.backoff = func(n int) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		fails = append(fails, n)
		return time.Millisecond
	}
	waitFails := func(n int) []int {
		for {
			mu.Lock()
			got := append([]int(nil), fails...)
			mu.Unlock()
			if len(got) >= n {
				return got
			}
			if ctx.Err() != nil {
				t.Fatalf("%d failed fetches, want %d", len(got), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	f.add(map[string]map[int32]int64{"events": {0: 0}})
	if got := waitFails(3); got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("backoff asked for failures %v in a row, want 1, 2, 3", got[:3])
	}
	down.Store(false)
	rows, _ := pollRows(t, ctx, f, "events", 10)
	sameRows(t, "the records once the broker is back", rows, all)
	mu.Lock()
	before := len(fails)
	mu.Unlock()
	down.Store(true)
	if got := waitFails(before + 1); got[before] != 1 {
		t.Fatalf("the first failure after a fetch succeeded asked backoff for %d failures in a row, want 1 (all: %v)", got[before], got)
	}
}
