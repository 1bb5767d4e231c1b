package stack

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// record is one record as the tests compare it.
type record struct {
	Partition int32
	Offset    int64
	Key       string
	Value     string
}

// produceN writes n records key-i/value-i to topic, key i to partition
// i%partitions, synchronously, and returns them with the offsets the broker
// assigned, in production order.
func produceN(t *testing.T, ctx context.Context, brokers []string, topic string, n, partitions int) []record {
	t.Helper()
	cl, err := NewClient(brokers, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rs := make([]*kgo.Record, n)
	for i := range rs {
		rs[i] = &kgo.Record{
			Topic:     topic,
			Partition: int32(i % partitions),
			Key:       fmt.Appendf(nil, "key-%d", i),
			Value:     fmt.Appendf(nil, "value-%d", i),
		}
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce %d records to %s: %v", n, topic, err)
	}
	out := make([]record, n)
	for i, r := range rs {
		out[i] = record{r.Partition, r.Offset, string(r.Key), string(r.Value)}
	}
	return out
}

// consumeAll reads topic from the start until it has want records, and
// returns them sorted by partition and offset.
func consumeAll(t *testing.T, ctx context.Context, brokers []string, topic string, want int) []record {
	t.Helper()
	cl, err := NewClient(brokers,
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var got []record
	for len(got) < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consume %s: got %d of %d records before %v", topic, len(got), want, ctx.Err())
		}
		fs.EachError(func(t2 string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", t2, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, record{r.Partition, r.Offset, string(r.Key), string(r.Value)})
		})
	}
	sortRecords(got)
	return got
}

func sortRecords(rs []record) {
	slices.SortFunc(rs, func(a, b record) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Offset - b.Offset)
	})
}

// expected is what a topic holds after produceN: per partition, offsets
// 0,1,2,... in production order, computed from the record numbers alone.
func expected(n, partitions int) []record {
	var out []record
	next := make([]int64, partitions)
	for i := range n {
		p := i % partitions
		out = append(out, record{int32(p), next[p], fmt.Sprintf("key-%d", i), fmt.Sprintf("value-%d", i)})
		next[p]++
	}
	sortRecords(out)
	return out
}

func TestBrokerRoundTrip(t *testing.T) {
	ctx := context.Background()
	b, err := NewBroker(BrokerOptions{Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(b.Addr(), "127.0.0.1:") {
		t.Fatalf("Addr() = %q, want a loopback address", b.Addr())
	}
	brokers := []string{b.Addr()}
	const n = 300
	produced := produceN(t, ctx, brokers, "roundtrip", n, 3)
	sortRecords(produced)
	want := expected(n, 3)
	if !slices.Equal(produced, want) {
		t.Fatalf("produced offsets differ from expectation:\n got %v\nwant %v", produced[:6], want[:6])
	}
	got := consumeAll(t, ctx, brokers, "roundtrip", n)
	if !slices.Equal(got, want) {
		t.Fatalf("consumed records differ: got %d records, first %v; want first %v", len(got), got[:3], want[:3])
	}

	// The topic was auto-created with the configured partition count.
	cl, _ := NewClient(brokers)
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(ctx, "roundtrip")
	if err != nil {
		t.Fatal(err)
	}
	if p := len(td["roundtrip"].Partitions); p != 3 {
		t.Fatalf("auto-created topic has %d partitions, want 3", p)
	}
}

func TestBrokerPersistsAcrossRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := NewBroker(BrokerOptions{DataDir: dir, SyncWrites: true, Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	// A second broker on the same data directory is refused.
	if b2, err := NewBroker(BrokerOptions{DataDir: dir}); err == nil {
		b2.Close()
		b.Close()
		t.Fatal("second broker on the same data dir started; want a lock error")
	} else if !strings.Contains(err.Error(), "in use by another broker") {
		t.Fatalf("second broker error = %v, want the data dir lock error", err)
	}
	produceN(t, ctx, []string{b.Addr()}, "kept", 50, 2)
	// The auto-created topic is on disk before any clean shutdown, so a
	// crash would not lose it.
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		js, _ := os.ReadFile(filepath.Join(dir, "topics.json"))
		if bytes.Contains(js, []byte(`"kept"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("auto-created topic not in %s/topics.json before Close: %s", dir, js)
		}
	}
	b.Close()
	b.Close() // idempotent

	b, err = NewBroker(BrokerOptions{DataDir: dir, Partitions: 2})
	if err != nil {
		t.Fatalf("reopen %s: %v", dir, err)
	}
	defer b.Close()
	brokers := []string{b.Addr()}
	got := consumeAll(t, ctx, brokers, "kept", 50)
	if want := expected(50, 2); !slices.Equal(got, want) {
		t.Fatalf("after restart: got %v..., want %v...", got[:4], want[:4])
	}
	// New records continue the offsets.
	more := produceN(t, ctx, brokers, "kept", 2, 2)
	if more[0].Offset != 25 || more[1].Offset != 25 {
		t.Fatalf("offsets after restart = %d,%d, want 25,25", more[0].Offset, more[1].Offset)
	}
}

func TestEnsureTopic(t *testing.T) {
	ctx := context.Background()
	b, err := NewBroker(BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	brokers := []string{b.Addr()}
	for range 2 { // the second call finds the topic and succeeds
		if err := EnsureTopic(ctx, brokers, "five", 5); err != nil {
			t.Fatal(err)
		}
	}
	cl, _ := NewClient(brokers)
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(ctx, "five")
	if err != nil {
		t.Fatal(err)
	}
	if p := len(td["five"].Partitions); p != 5 {
		t.Fatalf("topic five has %d partitions, want 5", p)
	}
}

func TestBrokersFromEnv(t *testing.T) {
	t.Setenv(EnvKafkaBrokers, " a:1, b:2 ,,")
	if got := Brokers(); !slices.Equal(got, []string{"a:1", "b:2"}) {
		t.Fatalf("Brokers() = %q", got)
	}
	if !External("127.0.0.1:9092") {
		t.Fatal("External = false for brokers a:1,b:2")
	}
	t.Setenv(EnvKafkaBrokers, "localhost:9092")
	if External("127.0.0.1:9092") {
		t.Fatal("External = true for localhost:9092 vs listen address 127.0.0.1:9092")
	}
	t.Setenv(EnvKafkaBrokers, "")
	t.Setenv(EnvKafkaAddr, "127.0.0.1:19999")
	t.Setenv("ATLAS_HOME", t.TempDir())
	if got := Brokers(); !slices.Equal(got, []string{"127.0.0.1:19999"}) {
		t.Fatalf("Brokers() = %q, want the listen address", got)
	}
}

// TestEmbeddedBrokerStaysOnLoopback: the embedded broker has no
// authentication, so an address other machines reach is refused before
// any daemon starts, with the setting that allows it; the opt-in and an
// external cluster pass the check.
func TestEmbeddedBrokerStaysOnLoopback(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvKafkaBrokers, "")
	t.Setenv(EnvKafkaAllowRemote, "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		_, err := Up(context.Background(), Options{Home: home, Addr: addr})
		if err == nil || !strings.Contains(err.Error(), "refusing to run the embedded Kafka broker on "+addr) ||
			!strings.Contains(err.Error(), EnvKafkaAllowRemote+"=1") {
			t.Fatalf("Up on %s: %v, want a refusal naming %s", addr, err, EnvKafkaAllowRemote)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "run")); len(entries) != 0 {
		t.Fatalf("a refused Up left %d files in run/", len(entries))
	}
	t.Setenv(EnvKafkaAllowRemote, "1")
	if _, err := (Options{Home: home, Addr: "0.0.0.0:0"}).withDefaults(); err != nil {
		t.Fatalf("with %s=1: %v", EnvKafkaAllowRemote, err)
	}
	t.Setenv(EnvKafkaAllowRemote, "")
	t.Setenv(EnvKafkaBrokers, "kafka.example:9092")
	if _, err := (Options{Home: home, Addr: "0.0.0.0:0"}).withDefaults(); err != nil {
		t.Fatalf("an external cluster starts no broker: %v", err)
	}
}
