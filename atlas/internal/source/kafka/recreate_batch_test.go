package kafka

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// planBeforeRecreate reads [start, mid) of the n partitions of topic
// events, 100 records each (produced in that many rounds), with both
// offsets naming the topic's id, then runs before (if not nil), deletes
// the topic and creates it again with 100 new records in each of 3
// partitions. It returns the
// old topic's rows and the batch [mid, end) planned before the
// recreation, as the offset log holds it for a batch to run or retry.
func planBeforeRecreate(t *testing.T, ctx context.Context, addr string, n, batches int, src *Source, before func()) (old []row, mid, end source.Offset) {
	t.Helper()
	counts := map[int32]int{}
	for p := range n {
		counts[int32(p)] = 100 / batches
	}
	for i := range batches {
		old = append(old, produce(t, ctx, addr, "events", fmt.Sprint("old", i), counts)...)
	}
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if end, err = src.LatestOffset(ctx, start); err != nil {
		t.Fatal(err)
	}
	mid = source.Offset(strings.ReplaceAll(string(end), ":100", ":50"))
	if mid == end || !strings.Contains(string(end), "@topicIds") {
		t.Fatalf("end %s: want offsets of 100 with the topic id", end)
	}
	first, _ := readBatch(t, ctx, src, start, mid)
	sameRows(t, "the batch before the recreation", first, filterRows(old, func(r row) bool { return r.offset < 50 }))
	if before != nil {
		before()
	}
	recreate(t, ctx, addr, "events")
	produce(t, ctx, addr, "events", "new", map[int32]int{0: 100, 1: 100, 2: 100})
	return old, mid, end
}

// checkGoneOrRead checks that every offset of [50, 100) of each partition
// was either handed out with the old topic's record or reported lost, not
// both, and that no record of the new topic was handed out.
func checkGoneOrRead(t *testing.T, n int, got, old []row, loss []progressLoss) {
	t.Helper()
	read := map[string]bool{}
	for _, r := range got {
		if strings.HasSuffix(r.value, "-new") {
			t.Fatalf("the batch planned for the old topic handed out the new topic's record %v", r)
		}
		read[fmt.Sprintf("%s-%d@%d", r.topic, r.partition, r.offset)] = true
	}
	sameRows(t, "the old records handed out", got, filterRows(old, func(r row) bool {
		return r.offset >= 50 && read[fmt.Sprintf("%s-%d@%d", r.topic, r.partition, r.offset)]
	}))
	for p := range n {
		for off := int64(50); off < 100; off++ {
			lost := 0
			for _, l := range loss {
				if l.partition == fmt.Sprintf("events-%d", p) && l.from <= off && off < l.to {
					lost++
				}
			}
			if in := read[fmt.Sprintf("events-%d@%d", p, off)]; (lost == 1) == in || lost > 1 {
				t.Fatalf("events-%d offset %d: handed out %v, reported lost %d times; want exactly one of them (loss %+v)", p, off, in, lost, loss)
			}
		}
	}
}

type progressLoss struct {
	partition string
	from, to  int64
}

func lossOf(src *Source) []progressLoss {
	var out []progressLoss
	for _, l := range src.DataLoss() {
		out = append(out, progressLoss{l.Partition, l.FromOffset, l.ToOffset})
	}
	return out
}

// TestBatchPlannedBeforeTopicRecreated: a batch whose offsets were planned
// (and logged) for a topic that is then deleted and created again runs,
// or is retried, with those offsets and the old topic id. The fetcher
// still fetches by the old id and gets UNKNOWN_TOPIC_ID: the batch used
// to fail with it as "the Kafka broker is unavailable", and every retry
// the same way, forever. The old topic's records not fetched yet are
// gone with it: with failOnDataLoss=false they are reported lost and the
// batch completes with what was fetched before (here, either nothing:
// the fetch at offset 50 is held until the topic is recreated; or all of
// it: fetching ahead had fetched it); with failOnDataLoss=true the batch fails with a data-loss error
// that says how to go on.
func TestBatchPlannedBeforeTopicRecreated(t *testing.T) {
	for _, tc := range []struct {
		failOnDataLoss bool
		parts, batches int
		hold           bool
		want           int
	}{{false, 1, 2, true, 0}, {true, 1, 2, true, 0}, {false, 3, 1, false, 150}} {
		t.Run(fmt.Sprintf("failOnDataLoss=%v/fetched=%d", tc.failOnDataLoss, tc.want), func(t *testing.T) {
			ctx := testContext(t)
			c, addr := newClusterOf(t, 1, kfake.SeedTopics(int32(tc.parts), "events"))
			recreated := make(chan struct{})
			if tc.hold {
				held := false
				c.ControlKey(kmsg.Fetch.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
					c.KeepControl()
					if !held && req.(*kmsg.FetchRequest).Topics[0].Partitions[0].FetchOffset >= 50 {
						held = true
						c.SleepControl(func() { <-recreated })
					}
					return nil, nil, false
				})
			}
			opts := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events",
				"startingOffsets": "earliest", "failOnDataLoss": fmt.Sprint(tc.failOnDataLoss)}
			if tc.hold {
				opts["kafka.max.partition.fetch.bytes"] = "500" // a fetch brings one record batch
			}
			src := mustNew(t, opts)
			var before func()
			if !tc.hold {
				before = func() { // until fetching ahead has every record
					for bufferedRows(src) < tc.want {
						if ctx.Err() != nil {
							t.Fatalf("%d rows buffered, want %d", bufferedRows(src), tc.want)
						}
						time.Sleep(5 * time.Millisecond)
					}
				}
			}
			old, mid, end := planBeforeRecreate(t, ctx, addr, tc.parts, tc.batches, src, before)
			close(recreated)

			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			var got []row
			err := src.GetBatch(rctx, mid, end, func(rec arrow.RecordBatch) error {
				got = append(got, rowsOf(t, rec)...)
				return nil
			})
			if tc.failOnDataLoss {
				if err == nil || source.AsUnavailable(err) != nil || !strings.Contains(err.Error(), "failOnDataLoss") || !strings.Contains(err.Error(), "deleted") {
					t.Fatalf("the batch planned before the recreation: %v, want a data-loss error naming the deleted topic and failOnDataLoss", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the batch planned before the recreation: %v", err)
			}
			checkGoneOrRead(t, tc.parts, got, old, lossOf(src))
			if len(got) != tc.want {
				t.Fatalf("%d rows handed out, want %d (loss %+v)", len(got), tc.want, src.DataLoss())
			}
		})
	}
}

// TestRefreshKeepsTheFetchedTopicID: a leader lookup while the topic is
// deleted and created again (here: the fetches past offset 50 are refused
// with NOT_LEADER_OR_FOLLOWER meanwhile) used to replace the topic id the
// fetcher fetches by with the new topic's, so that the new topic's
// records were fetched at the old topic's offsets and handed out to a
// batch planned for the old topic.
func TestRefreshKeepsTheFetchedTopicID(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events",
		"startingOffsets": "earliest", "failOnDataLoss": "false", "kafka.max.partition.fetch.bytes": "500"})
	var refuse atomic.Bool
	refuse.Store(true)
	refused := answerFetches(c, kerr.NotLeaderForPartition.Code, func(_ int32, req *kmsg.FetchRequest) bool {
		return refuse.Load() && req.Topics[0].Partitions[0].FetchOffset >= 50
	})
	old, mid, end := planBeforeRecreate(t, ctx, addr, 1, 2, src, nil)
	// Let the fetcher look the leader up after the recreation.
	for n := refused.Load(); refused.Load() < n+3; time.Sleep(10 * time.Millisecond) {
		if ctx.Err() != nil {
			t.Fatal("the fetcher stopped fetching")
		}
	}
	refuse.Store(false)

	var got []row
	err := src.GetBatch(ctx, mid, end, func(rec arrow.RecordBatch) error {
		got = append(got, rowsOf(t, rec)...)
		return nil
	})
	if err != nil {
		t.Fatalf("the batch planned before the recreation: %v", err)
	}
	checkGoneOrRead(t, 1, got, old, lossOf(src))
	if len(got) != 0 {
		t.Fatalf("%d rows handed out: the fetches past offset 50 were all refused before the recreation", len(got))
	}
}
