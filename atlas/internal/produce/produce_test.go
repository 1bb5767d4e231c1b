package produce

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// newCluster starts an in-process single-broker Kafka on loopback with the
// given topics, three partitions each.
func newCluster(t testing.TB, topics ...string) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topics...))
	if err != nil {
		t.Fatalf("kfake cluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// newTestClient returns a NewClient client for c, closed with the test.
func newTestClient(t testing.TB, c *kfake.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := NewClient(c.ListenAddrs(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// consumed is one record read back from Kafka.
type consumed struct {
	partition  int32
	key, value []byte
}

// consumeAll reads topic from the start until it has n records.
func consumeAll(t *testing.T, c *kfake.Cluster, topic string, n int) []consumed {
	t.Helper()
	cl := newTestClient(t, c, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []consumed
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records of %q: %v", len(out), n, topic, err)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s[%d]: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) { out = append(out, consumed{r.Partition, r.Key, r.Value}) })
	}
	if len(out) != n {
		t.Fatalf("consumed %d records of %q, produced %d", len(out), topic, n)
	}
	return out
}

// checkReadBack asserts that the records read back are exactly the
// generated ones: each key in one partition, and each partition holding the
// generated records of its keys in generation order.
func checkReadBack(t *testing.T, keys, values [][]byte, got []consumed) {
	t.Helper()
	partitionOf := map[string]int32{}
	perPartition := map[int32][]consumed{}
	for _, r := range got {
		if p, ok := partitionOf[string(r.key)]; ok && p != r.partition {
			t.Fatalf("key %s read from partitions %d and %d", r.key, p, r.partition)
		}
		partitionOf[string(r.key)] = r.partition
		perPartition[r.partition] = append(perPartition[r.partition], r)
	}
	next := map[int32]int{}
	for i := range keys {
		p, ok := partitionOf[string(keys[i])]
		if !ok {
			t.Fatalf("generated record %d (key %s) not read back", i, keys[i])
		}
		j := next[p]
		next[p]++
		if j >= len(perPartition[p]) {
			t.Fatalf("partition %d holds %d records, generated record %d is one more", p, len(perPartition[p]), i)
		}
		if r := perPartition[p][j]; !bytes.Equal(r.key, keys[i]) || !bytes.Equal(r.value, values[i]) {
			t.Fatalf("partition %d record %d is %s=%s, want generated record %d %s=%s", p, j, r.key, r.value, i, keys[i], values[i])
		}
	}
	if len(perPartition) != 3 {
		t.Errorf("records spread over %d partitions, want all 3", len(perPartition))
	}
}

func TestProduceEventsSendsExactlyTheGeneratedRecords(t *testing.T) {
	c := newCluster(t, "events")
	cfg := EventsConfig{Count: 20_000, Seed: 11, OutOfOrder: 0.1, Late: 0.02, Duplicates: 0.01, Malformed: 0.01}
	var calls, lastDone int64
	sum, err := ProduceEvents(context.Background(), newTestClient(t, c), cfg, func(done, total int64) {
		calls++
		if total != cfg.Count || done < lastDone || done > total {
			t.Errorf("progress(%d, %d) after %d", done, total, lastDone)
		}
		lastDone = done
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := mustEvents(t, cfg)
	if want := SummarizeEvents(recs); sum.EventStats != want || sum.Topic != "events" {
		t.Errorf("summary %+v, want topic events and %+v", sum, want)
	}
	if calls == 0 || lastDone != cfg.Count {
		t.Errorf("progress called %d times ending at %d, want a last call at %d", calls, lastDone, cfg.Count)
	}
	t.Logf("%s", sum)

	keys, values := make([][]byte, len(recs)), make([][]byte, len(recs))
	for i, r := range recs {
		keys[i], values[i] = r.Key, r.Value
	}
	checkReadBack(t, keys, values, consumeAll(t, c, "events", len(recs)))
}

func TestProduceCDCSendsExactlyTheGeneratedChanges(t *testing.T) {
	c := newCluster(t, "retail")
	cfg := CDCConfig{Count: 10_000, Seed: 12, UpdateFraction: 0.6, DeleteFraction: 0.05, Topic: "retail"}
	sum, err := ProduceCDC(context.Background(), newTestClient(t, c), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := mustCDC(t, cfg)
	want := SummarizeCDC(recs)
	if sum.Records != want.Records || sum.Bytes != want.Bytes || sum.Inserts != want.Inserts || sum.Updates != want.Updates ||
		sum.Deletes != want.Deletes || sum.DistinctKeys != want.DistinctKeys || sum.MaxChangesPerKey != want.MaxChangesPerKey {
		t.Errorf("summary %+v, want %+v", sum.CDCStats, want)
	}
	t.Logf("%s", sum)

	keys, values := make([][]byte, len(recs)), make([][]byte, len(recs))
	for i, r := range recs {
		keys[i], values[i] = r.Key, r.Value
	}
	checkReadBack(t, keys, values, consumeAll(t, c, "retail", len(recs)))
}

func TestProduceEventsHonoursRate(t *testing.T) {
	c := newCluster(t, "events")
	cfg := EventsConfig{Count: 300, Seed: 13, Rate: 1000}
	sum, err := ProduceEvents(context.Background(), newTestClient(t, c), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Record 299 is due 299 ms after the first; pacing sleeps only when
	// 2 ms or more ahead.
	if sum.Elapsed < 295*time.Millisecond || sum.Elapsed > 2*time.Second {
		t.Errorf("300 records at 1000/s took %v, want about 300 ms", sum.Elapsed)
	}
}

func TestProduceEventsStopsWhenContextEnds(t *testing.T) {
	c := newCluster(t, "events")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	sum, err := ProduceEvents(ctx, newTestClient(t, c), EventsConfig{Count: 10_000, Seed: 14, Rate: 1000}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want one wrapping context.DeadlineExceeded", err)
	}
	if sum.Records == 0 || sum.Records > 1000 {
		t.Errorf("handed %d records to the client in 100 ms at 1000/s", sum.Records)
	}
}

func TestProduceEventsFailsOnARefusedRecord(t *testing.T) {
	c := newCluster(t, "events")
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		preq := req.(*kmsg.ProduceRequest)
		resp := preq.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range preq.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.TopicAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := ProduceEvents(ctx, newTestClient(t, c), EventsConfig{Count: 1000, Seed: 15}, nil)
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("error %v, want one wrapping TOPIC_AUTHORIZATION_FAILED", err)
	}
}

// BenchmarkProduceEvents measures the produce rate of scenario events into
// an in-process broker; run with -benchtime=1x for one large run.
func BenchmarkProduceEvents(b *testing.B) {
	c := newCluster(b, "events")
	cl := newTestClient(b, c)
	cfg := EventsConfig{Count: 1_000_000, OutOfOrder: 0.1, Late: 0.02, Duplicates: 0.01}
	b.ResetTimer()
	for i := range b.N {
		cfg.Seed = int64(i)
		sum, err := ProduceEvents(context.Background(), cl, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(sum.RecordsPerSecond(), "records/s")
		b.ReportMetric(float64(sum.Bytes)/sum.Elapsed.Seconds()/1e6, "MB/s")
	}
}

// BenchmarkGenerateEvents measures generation alone.
func BenchmarkGenerateEvents(b *testing.B) {
	g, err := NewEventGenerator(EventsConfig{Count: int64(b.N), OutOfOrder: 0.1, Late: 0.02, Duplicates: 0.01})
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		g.Next()
	}
}

// BenchmarkGenerateCDC measures CDC generation alone.
func BenchmarkGenerateCDC(b *testing.B) {
	g, err := NewCDCGenerator(CDCConfig{Count: int64(b.N), UpdateFraction: 0.6, DeleteFraction: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		g.Next()
	}
}
