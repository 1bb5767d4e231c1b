package kafka

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
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
