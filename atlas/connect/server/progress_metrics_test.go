package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// produceCounts writes counts[p] records to each partition p of topic.
func produceCounts(t *testing.T, brokers, topic string, counts map[int32]int) {
	t.Helper()
	ctx := context.Background()
	if err := stack.EnsureTopic(ctx, []string{brokers}, topic, int32(len(counts))); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for p, n := range counts {
		for i := range n {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: []byte(fmt.Sprintf("k%d", i%3)), Value: []byte(fmt.Sprintf("w%d", i%4))})
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// TestProgressCustomAndSourceMetrics: a Kafka aggregation read 10 offsets
// a batch reports, per batch, Spark's Kafka sources[].metrics (offsets
// behind latest, as strings) against the offsets the test produced, and
// the HDFS-backed state store's customMetrics: a cache hit for every
// batch after the first of a fresh run, no miss, and the current
// version's size.
func TestProgressCustomAndSourceMetrics(t *testing.T) {
	srv, b := startKafkaServer(t, 3, t.TempDir())
	produced := map[int32]int{0: 20, 1: 7, 2: 13}
	produceCounts(t, b.Addr(), "lag", produced)
	c := dial(t, srv.Addr())
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("kafka"), Options: map[string]string{"subscribe": "lag", "startingOffsets": "earliest", "maxOffsetsPerTrigger": "10"},
	}}}}}
	words := selectOf(read, exprString("CAST(value AS STRING) AS word"))
	agg := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: words, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		GroupingExpressions:  []*pb.Expression{col("word")},
		AggregateExpressions: []*pb.Expression{as(fn("count", lit(1)), "n")},
	}}}
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: agg, Format: "memory", OutputMode: "complete", QueryName: "lagcounts",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var id *pb.StreamingQueryInstanceId
	for _, r := range resps {
		if s := r.GetWriteStreamOperationStartResult(); s != nil {
			id = s.GetQueryId()
		}
	}
	if id == nil {
		t.Fatal("no start result")
	}
	defer c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
	docs := c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_RecentProgress{RecentProgress: true}}).GetRecentProgress().GetRecentProgressJson()
	if len(docs) < 4 {
		t.Fatalf("%d progress documents, want at least 4 (40 offsets, 10 a batch)", len(docs))
	}
	sawBehind, checked := false, 0
	for _, d := range docs {
		var p struct {
			BatchID        int64 `json:"batchId"`
			StateOperators []struct {
				MemoryUsedBytes int64            `json:"memoryUsedBytes"`
				CustomMetrics   map[string]int64 `json:"customMetrics"`
			} `json:"stateOperators"`
			Sources []struct {
				EndOffset map[string]map[string]int64 `json:"endOffset"`
				Metrics   map[string]string           `json:"metrics"`
			} `json:"sources"`
		}
		if err := json.Unmarshal([]byte(d), &p); err != nil {
			t.Fatal(err)
		}
		if len(p.StateOperators) != 1 || len(p.Sources) != 1 {
			t.Fatalf("batch %d: %d state operators and %d sources, want 1 and 1", p.BatchID, len(p.StateOperators), len(p.Sources))
		}
		op := p.StateOperators[0]
		wantCustom := map[string]int64{"loadedMapCacheHitCount": p.BatchID, "loadedMapCacheMissCount": 0, "stateOnCurrentVersionSizeBytes": op.MemoryUsedBytes}
		for k, v := range wantCustom {
			if got, ok := op.CustomMetrics[k]; !ok || got != v {
				t.Errorf("batch %d: customMetrics[%s] = %d (present %v), want %d", p.BatchID, k, got, ok, v)
			}
		}
		if op.MemoryUsedBytes <= 0 {
			t.Errorf("batch %d: memoryUsedBytes %d, want > 0", p.BatchID, op.MemoryUsedBytes)
		}
		// The reference: what was produced minus where the batch ended.
		var lo, hi, sum int64 = 1 << 62, -1, 0
		for part, n := range produced {
			end, ok := p.Sources[0].EndOffset["lag"][strconv.Itoa(int(part))]
			if !ok {
				end = 0
			}
			d := int64(n) - end
			lo, hi, sum = min(lo, d), max(hi, d), sum+d
		}
		if hi > 0 {
			sawBehind = true
		}
		avg := strconv.FormatFloat(float64(sum)/3, 'f', -1, 64)
		if float64(sum)/3 == float64(sum/3) {
			avg += ".0"
		}
		want := map[string]string{"minOffsetsBehindLatest": strconv.FormatInt(lo, 10), "maxOffsetsBehindLatest": strconv.FormatInt(hi, 10), "avgOffsetsBehindLatest": avg}
		if len(p.Sources[0].EndOffset["lag"]) < 3 {
			// Spark leaves out no partition; Atlas's end names only the
			// partitions read so far, so min/max cover those.
			continue
		}
		checked++
		if fmt.Sprint(p.Sources[0].Metrics) != fmt.Sprint(want) {
			t.Errorf("batch %d: sources[0].metrics = %v, want %v (end %v)", p.BatchID, p.Sources[0].Metrics, want, p.Sources[0].EndOffset)
		}
		if _, ok := p.Sources[0].Metrics["estimatedTotalBytesBehindLatest"]; ok {
			t.Errorf("batch %d: estimatedTotalBytesBehindLatest is not Spark's (Databricks only)", p.BatchID)
		}
	}
	if checked < 3 {
		t.Errorf("only %d batches named every partition, want at least 3", checked)
	}
	if !sawBehind {
		t.Error("no batch was behind latest: the test did not exercise the metric")
	}
}
