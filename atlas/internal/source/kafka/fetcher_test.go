package kafka

import (
	"fmt"
	"runtime"
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

// divergeOnce makes the cluster answer the first Fetch, once armed, that
// fetches partition 0 of topic at or after from with a LastFetchedEpoch,
// as a leader whose log diverged at endOffset answers it (KIP-320).
func divergeOnce(c *kfake.Cluster, topic string, from, endOffset int64) (arm func(), answered *atomic.Bool) {
	var armed atomic.Bool
	answered = new(atomic.Bool)
	c.ControlKey(kmsg.Fetch.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		if !armed.Load() || answered.Load() {
			return nil, nil, false
		}
		for _, rt := range fr.Topics {
			for _, rp := range rt.Partitions {
				if rp.Partition != 0 || rp.FetchOffset < from || rp.LastFetchedEpoch < 0 {
					continue
				}
				answered.Store(true)
				resp := fr.ResponseKind().(*kmsg.FetchResponse)
				resp.Version = fr.Version
				st := kmsg.NewFetchResponseTopic()
				st.Topic, st.TopicID = rt.Topic, rt.TopicID
				sp := kmsg.NewFetchResponseTopicPartition()
				sp.Partition = 0
				sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = endOffset, endOffset, 0
				sp.DivergingEpoch.Epoch, sp.DivergingEpoch.EndOffset = rp.LastFetchedEpoch, endOffset
				st.Partitions = append(st.Partitions, sp)
				resp.Topics = append(resp.Topics, st)
				return resp, nil, true
			}
		}
		return nil, nil, false
	})
	return func() { armed.Store(true) }, answered
}

// TestTruncatedLogIsDataLoss: after a batch read offsets [0, 100), the
// leader says its log diverged at offset 60 (an unclean leader election
// truncated it). The fetcher learns it because it sends the epoch of the
// last batch it fetched; the reader reports [60, 100), read and gone, as
// data loss, drops what it had buffered past 100, and the next batch
// reads offsets [100, 300) exactly once from the leader's log. With
// failOnDataLoss (the default) the next batch fails instead, naming the
// lost offsets.
func TestTruncatedLogIsDataLoss(t *testing.T) {
	for _, failOnDataLoss := range []bool{false, true} {
		t.Run(fmt.Sprint("failOnDataLoss=", failOnDataLoss), func(t *testing.T) {
			ctx := testContext(t)
			c, addr := newClusterOf(t, 1, kfake.SeedTopics(1, "events"))
			all := produce(t, ctx, addr, "events", "t", map[int32]int{0: 300})
			arm, answered := divergeOnce(c, "events", 100, 60)
			src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events",
				"failOnDataLoss": fmt.Sprint(failOnDataLoss), "kafka.max.partition.fetch.bytes": "2000"})

			first, _ := readBatch(t, ctx, src, `{"events":{"0":0}}`, `{"events":{"0":100}}`)
			sameRows(t, "first batch", first, all[:100])
			arm()
			// Fetching goes on ahead of the next batch: wait until the
			// leader has answered.
			for deadline := time.Now().Add(5 * time.Second); !answered.Load(); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no fetch at offset 100 or later sent a LastFetchedEpoch: the leader cannot say that its log diverged")
				}
			}
			start, end := source.Offset(`{"events":{"0":100}}`), source.Offset(`{"events":{"0":300}}`)
			if failOnDataLoss {
				err := src.GetBatch(ctx, start, end, func(arrow.RecordBatch) error { return nil })
				if err == nil || !strings.Contains(err.Error(), "offsets [60, 100) were read and are gone") || !strings.Contains(err.Error(), "failOnDataLoss") {
					t.Fatalf("the batch after a truncation: %v, want an error naming offsets [60, 100) and failOnDataLoss", err)
				}
				return
			}
			second, _ := readBatch(t, ctx, src, start, end)
			sameRows(t, "second batch", second, all[100:])
			loss := src.DataLoss()
			if len(loss) != 1 || loss[0].Partition != "events-0" || loss[0].FromOffset != 60 || loss[0].ToOffset != 100 {
				t.Fatalf("data loss %+v, want events-0 [60, 100)", loss)
			}
			if n := src.DataLossOffsets(); n != 40 {
				t.Fatalf("%d offsets counted lost, want 40", n)
			}
		})
	}
}

// TestDecodersBoundedByCores reads 16 partitions that one broker answers
// in one response: at most one decoder per core was made (each keeps a
// decompression buffer and a builder), and none of the idle ones still
// points into the response's bytes.
func TestDecodersBoundedByCores(t *testing.T) {
	ctx := testContext(t)
	_, addr := newClusterOf(t, 1, kfake.SeedTopics(16, "events"))
	counts := map[int32]int{}
	var start, end []string
	for p := range int32(16) {
		counts[p] = 50
		start = append(start, fmt.Sprintf(`"%d":0`, p))
		end = append(end, fmt.Sprintf(`"%d":50`, p))
	}
	all := produce(t, ctx, addr, "events", "d", counts)
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})
	got, _ := readBatch(t, ctx, src, source.Offset(`{"events":{`+strings.Join(start, ",")+`}}`), source.Offset(`{"events":{`+strings.Join(end, ",")+`}}`))
	sameRows(t, "16 partitions", got, all)
	f := src.reader.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, cores := len(f.decoders), runtime.GOMAXPROCS(0); n == 0 || n > cores {
		t.Fatalf("%d decoders made for a response of 16 partitions on %d cores, want 1 to %d", n, cores, cores)
	}
	for i, d := range f.decoders {
		if d.batch.Records != nil {
			t.Fatalf("idle decoder %d still holds %d bytes of a fetch response", i, len(d.batch.Records))
		}
	}
}
