package kafka

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/atlas-lakehouse/atlas/atlas/source"
)

// newClusterOf starts an in-process cluster of n brokers on 127.0.0.1
// and returns it with the address of its first broker, which the clients
// bootstrap from.
func newClusterOf(t *testing.T, n int, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(n)}, opts...)...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

// answerFetches makes the cluster answer the Fetch requests for which
// refuse returns true with code for every partition, and counts them.
func answerFetches(c *kfake.Cluster, code int16, refuse func(n int32, req *kmsg.FetchRequest) bool) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(kmsg.Fetch.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		if !refuse(n.Load(), fr) {
			return nil, nil, false
		}
		n.Add(1)
		resp := fr.ResponseKind().(*kmsg.FetchResponse)
		resp.Version = fr.Version
		for _, rt := range fr.Topics {
			st := kmsg.NewFetchResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewFetchResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = code
				sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = -1, -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return &n
}

// TestLeadersMoveWhileReading reads three partitions of a three-broker
// cluster in ten batches while the partitions' leaders are shuffled after
// every batch, and the first fetches are refused with
// NOT_LEADER_OR_FOLLOWER: the fetcher looks the leaders up again and
// every produced record is read exactly once.
func TestLeadersMoveWhileReading(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 3, kfake.SeedTopics(3, "events"))
	all := produce(t, ctx, addr, "events", "m", map[int32]int{0: 1000, 1: 1000, 2: 1000})
	refused := answerFetches(c, kerr.NotLeaderForPartition.Code, func(n int32, _ *kmsg.FetchRequest) bool { return n < 6 })
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "3000"})

	var got []row
	for i := range 10 {
		start := source.Offset(fmt.Sprintf(`{"events":{"0":%d,"1":%d,"2":%d}}`, 100*i, 100*i, 100*i))
		end := source.Offset(fmt.Sprintf(`{"events":{"0":%d,"1":%d,"2":%d}}`, 100*i+100, 100*i+100, 100*i+100))
		rows, _ := readBatch(t, ctx, src, start, end)
		got = append(got, rows...)
		c.ShufflePartitionLeaders()
	}
	sameRows(t, "all batches", got, all)
	if refused.Load() < 6 {
		t.Fatalf("only %d fetches were refused: the test did not exercise leader changes", refused.Load())
	}
}

// TestFetchErrorNamesThePartition: a partition error that retrying cannot
// fix (TOPIC_AUTHORIZATION_FAILED) fails the batch with the partition and
// the broker's error, and a later batch, the error gone, reads every
// record once.
func TestFetchErrorNamesThePartition(t *testing.T) {
	ctx := testContext(t)
	c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
	all := produce(t, ctx, addr, "events", "e", map[int32]int{0: 300})
	var denied atomic.Bool
	denied.Store(true)
	answerFetches(c, kerr.TopicAuthorizationFailed.Code, func(int32, *kmsg.FetchRequest) bool { return denied.Load() })
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})

	start, end := source.Offset(`{"events":{"0":0}}`), source.Offset(`{"events":{"0":300}}`)
	err := src.GetBatch(ctx, start, end, func(arrow.RecordBatch) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "events-0") || !strings.Contains(err.Error(), "TOPIC_AUTHORIZATION_FAILED") {
		t.Fatalf("GetBatch with the topic denied: %v, want an error naming events-0 and TOPIC_AUTHORIZATION_FAILED", err)
	}
	denied.Store(false)
	got, _ := readBatch(t, ctx, src, start, end)
	sameRows(t, "the batch run again", got, all)
}
