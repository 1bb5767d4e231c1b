package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/avro"
	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// TestAvroContractOverKafkaPattern is the reference pipeline's Kafka path:
// PaymentEvent records in the single-object encoding, among records of
// another contract and malformed payloads, read with subscribePattern; a
// matching topic created while the query runs joins it. Exactly the
// contract's records reach the sink; the others are counted.
func TestAvroContractOverKafkaPattern(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	contract := avro.MustParse(contractSchema)
	other := avro.MustParse(`{"type":"record","name":"Refund","fields":[{"name":"id","type":"string"}]}`)
	var want []string
	produceTo := func(topic string, from, n int) {
		t.Helper()
		if err := stack.EnsureTopic(ctx, []string{e.brokers}, topic, 2); err != nil {
			t.Fatal(err)
		}
		cl, err := stack.NewClient([]string{e.brokers})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var recs []*kgo.Record
		for i := from; i < from+n; i++ {
			id := fmt.Sprintf("%s-%d", topic, i)
			var v []byte
			switch i % 4 {
			case 1:
				v, _ = other.AppendSingleObject(nil, map[string]any{"id": id})
			case 2:
				good, _ := contract.AppendSingleObject(nil, map[string]any{"event_id": id, "account": int64(i), "amount": float64(i) / 4})
				v = good[:len(good)-2]
			default:
				v, _ = contract.AppendSingleObject(nil, map[string]any{"event_id": id, "account": int64(i), "amount": float64(i) / 4})
				if strings.HasPrefix(topic, "payments-") {
					want = append(want, fmt.Sprintf("%s/%d/%g", id, i, float64(i)/4))
				}
			}
			recs = append(recs, &kgo.Record{Topic: topic, Value: v})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produceTo("payments-eu", 0, 40)
	produceTo("refunds-eu", 0, 8) // does not match the pattern

	df := e.session.ReadStream().Format("kafka").
		Option("subscribePattern", "payments-.*").Option("startingOffsets", "earliest").Load().
		Select(engine.FromAvro(engine.Col("value"), contractSchema, map[string]string{"mode": "PERMISSIVE", "framing": "single-object"}).Alias("e")).
		Where(engine.Col("e").IsNotNull()).
		Select("e.*")
	var mu sync.Mutex
	var got []string
	q, err := df.WriteStream().Option("checkpointLocation", filepath.Join(e.home, "ck")).Progress(false).
		Trigger(engine.ProcessingTime("50 milliseconds")).
		ForeachBatch(func(b *engine.DataFrame, _ int64) error {
			rows, err := b.Rows(ctx)
			mu.Lock()
			for _, r := range rows {
				got = append(got, fmt.Sprintf("%v/%v/%v", r["event_id"], r["account"], r["amount"]))
			}
			mu.Unlock()
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	produceTo("payments-us", 100, 20) // created while the query runs
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	sort.Strings(got)
	mu.Unlock()
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("rows:\n got %v\nwant %v", got, want)
	}
	var unknown, malformed int64
	for _, p := range q.RecentProgress() {
		unknown += p.ObservedMetrics["numUnknownAvroSchemaRecords"]
		malformed += p.ObservedMetrics["numMalformedAvroRecords"]
	}
	if unknown != 15 || malformed != 15 {
		t.Fatalf("unknown %d, malformed %d; want 15 each (10+5 of each kind in the two topics)", unknown, malformed)
	}
	if d := q.LastProgress().Sources[0].Description; d != "KafkaV2[SubscribePattern[payments-.*]]" {
		t.Fatalf("source %q", d)
	}
}
