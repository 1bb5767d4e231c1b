package kafka

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// benchRecords is the size of the benchmark topic.
const benchRecords = 1_000_000

// BenchmarkGetBatch reads 1M records of about 80 bytes (uncompressed, three
// partitions) from an in-process broker, in every iteration twice: once with
// a plain PollFetches loop that only counts records (ConsumeRate, the same
// client settings) and once through GetBatch into Arrow. Interleaving the
// two keeps a busy machine from favouring either. It reports records/s for
// each and their ratio.
func BenchmarkGetBatch(b *testing.B) {
	ctx := context.Background()
	addr := newCluster(b, kfake.SeedTopics(3, "events"))
	produceBench(b, ctx, addr, "events", benchRecords)

	var arrowTime, rawTime time.Duration
	for b.Loop() {
		n, dur, err := ConsumeRate(ctx, addr, "events")
		if err != nil {
			b.Fatal(err)
		}
		if n != benchRecords {
			b.Fatalf("ConsumeRate counted %d records, want %d", n, benchRecords)
		}
		rawTime += dur

		n, dur = readAllArrow(b, ctx, addr)
		if n != benchRecords {
			b.Fatalf("GetBatch read %d records, want %d", n, benchRecords)
		}
		arrowTime += dur
	}
	iters := float64(b.N)
	arrowRate := benchRecords * iters / arrowTime.Seconds()
	rawRate := benchRecords * iters / rawTime.Seconds()
	b.ReportMetric(arrowRate, "arrow-records/s")
	b.ReportMetric(rawRate, "raw-records/s")
	b.ReportMetric(arrowRate/rawRate, "arrow/raw")
}

// readAllArrow reads the whole topic with a new source in one GetBatch,
// timing only the GetBatch call, and returns the rows read.
func readAllArrow(b *testing.B, ctx context.Context, addr string) (int64, time.Duration) {
	src, err := New(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest"})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	start, err := src.InitialOffset(ctx)
	if err != nil {
		b.Fatal(err)
	}
	end, err := src.AvailableOffset(ctx)
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	var n int64
	err = src.GetBatch(ctx, start, end, func(rec arrow.RecordBatch) error {
		n += rec.NumRows()
		return nil
	})
	dur := time.Since(began)
	if err != nil {
		b.Fatal(err)
	}
	return n, dur
}

// produceBench writes n uncompressed records of about 80 bytes (an 8-byte
// key and a 72-byte JSON value) round-robin over the topic's partitions.
func produceBench(b *testing.B, ctx context.Context, addr, topic string, n int) {
	b.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(addr),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.MaxBufferedRecords(100_000),
	)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	errs := make(chan error, 1)
	for i := 0; i < n; i++ {
		key := []byte(fmt.Sprintf("user%04d", i%10000))
		value := []byte(`{"user_id":"user` + strconv.Itoa(i%10000) + `","event":"click","ts":"2026-01-01T00:00:00Z"}`)
		cl.Produce(ctx, &kgo.Record{Topic: topic, Key: key, Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-errs:
		b.Fatalf("producing benchmark records: %v", err)
	default:
	}
}
