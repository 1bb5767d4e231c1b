package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// TestKafkaQueriesGetTheColumnsTheyRead runs streaming queries that read
// different sets of the Kafka source's columns (the source builds only
// those: the rest come as nulls nobody reads) and checks every row against
// the records as a plain client reads them back: a query reading key,
// topic, partition, offset, timestamp and timestampType gets them all, one
// reading only value gets the values, and one reading offset and value
// through an alias and a filter gets exactly the even offsets.
func TestKafkaQueriesGetTheColumnsTheyRead(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const topic = "cols"
	if err := stack.EnsureTopic(ctx, []string{e.brokers}, topic, 3); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range 3000 {
		r := &kgo.Record{Topic: topic, Value: []byte(fmt.Sprintf("v%d", i)), Timestamp: time.UnixMilli(1_764_500_000_000 + int64(i))}
		if i%10 != 3 {
			r.Key = []byte(fmt.Sprintf("k%d", i%17))
		}
		recs = append(recs, r)
	}
	err = cl.ProduceSync(ctx, recs...).FirstErr()
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The reference: the records as produced, with the partitions and
	// offsets the broker assigned.
	var all, values, even []string
	for _, r := range recs {
		key := "<nil>"
		if r.Key != nil {
			key = string(r.Key)
		}
		all = append(all, fmt.Sprintf("k=%s v=%s topic=%s partition=%d offset=%d timestamp=%s timestampType=0",
			key, r.Value, r.Topic, r.Partition, r.Offset, r.Timestamp.UTC().Format(time.RFC3339Nano)))
		values = append(values, "v="+string(r.Value))
		if r.Offset%2 == 0 {
			even = append(even, fmt.Sprintf("o=%d v=%s", r.Offset, r.Value))
		}
	}

	run := func(name string, df *engine.DataFrame) []engine.Row {
		t.Helper()
		q, err := df.WriteStream().Format("memory").QueryName(name).Progress(false).
			Trigger(engine.AvailableNow()).
			Option("checkpointLocation", filepath.Join(e.home, "ck", name)).Start()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
		return rowsOf(t, e.session.Table(name))
	}
	read := func() *engine.DataFrame {
		return e.session.ReadStream().Format("kafka").Option("subscribe", topic).
			Option("startingOffsets", "earliest").Option("maxOffsetsPerTrigger", 700).Load()
	}
	timestamps := func(rows []engine.Row) []engine.Row {
		for _, r := range rows {
			if ts, ok := r["timestamp"].(time.Time); ok {
				r["timestamp"] = ts.UTC().Format(time.RFC3339Nano)
			}
		}
		return rows
	}

	got := timestamps(run("every_column", read().SelectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "topic", "partition", "offset", "timestamp", "timestampType")))
	sameLines(t, "every column", render(got, "k", "v", "topic", "partition", "offset", "timestamp", "timestampType"), all)

	got = run("value_only", read().SelectExpr("CAST(value AS STRING) AS v"))
	sameLines(t, "value only", render(got, "v"), values)

	got = run("alias_filter", read().Alias("r").SelectExpr("r.offset AS o", "CAST(r.value AS STRING) AS v").Where("o % 2 = 0"))
	sameLines(t, "offset and value, even offsets", render(got, "o", "v"), even)
}
