package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

const partitions = 3

func cluster(t *testing.T, topics ...string) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "partition", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "headers", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
	)), Nullable: true},
}, nil)

// out is one record as the test compares it.
type out struct {
	key, value, header string
	partition          int32
}

// batch builds n rows tagged tag: key k-i, value <tag>-i, partition i%3,
// one header h=<tag>; it returns them with the records a reader must see.
func batch(t *testing.T, id int64, tag string, n int) (*sink.Batch, []out) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	var want []out
	for i := 0; i < n; i++ {
		k, v, p := fmt.Sprintf("k-%d", i), fmt.Sprintf("%s-%d", tag, i), int32(i%partitions)
		b.Field(0).(*array.StringBuilder).Append(k)
		b.Field(1).(*array.BinaryBuilder).Append([]byte(v))
		b.Field(2).(*array.Int32Builder).Append(p)
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append("h")
		sb.FieldBuilder(1).(*array.BinaryBuilder).Append([]byte(tag))
		want = append(want, out{key: k, value: v, header: "h=" + tag, partition: p})
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return &sink.Batch{QueryID: "q1", BatchID: id, Mode: sink.Append, Schema: testSchema, Records: []arrow.RecordBatch{rec}}, want
}

// readCommitted reads the topic from the start with isolation
// read_committed until it has want records, then makes sure no more come.
func readCommitted(t *testing.T, addrs []string, topic string, want int) []out {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []out
	poll := func(d time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			o := out{key: string(r.Key), value: string(r.Value), partition: r.Partition}
			for _, h := range r.Headers {
				o.header += h.Key + "=" + string(h.Value)
			}
			got = append(got, o)
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < want && time.Now().Before(deadline) {
		poll(time.Second)
	}
	poll(300 * time.Millisecond) // anything beyond want would show here
	return got
}

func sorted(o []out) []string {
	s := make([]string, len(o))
	for i, x := range o {
		s[i] = fmt.Sprintf("%s|%s|%s|%d", x.key, x.value, x.header, x.partition)
	}
	sort.Strings(s)
	return s
}

// TestKafkaSinkExactlyOnceAcrossRestartAndZombie: batches 0 and 1 commit;
// the query "crashes" before its commit log records batch 1, so the new
// run replays batch 1 (skipped: its transaction committed) and runs batch
// 2. A zombie of that run, writing batch 3, is fenced when the next run
// starts, before it commits. A read_committed reader sees each row of
// batches 0-3 exactly once, with its key, header and partition, and none
// of the zombie's.
func TestKafkaSinkExactlyOnceAcrossRestartAndZombie(t *testing.T) {
	addrs := cluster(t, "out")
	ctx := context.Background()
	opts := Options{Bootstrap: addrs, Topic: "out"}
	var want []out
	run1, err := New(testSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(0); id < 2; id++ {
		b, w := batch(t, id, fmt.Sprintf("b%d", id), 7)
		if err := run1.AddBatch(ctx, b); err != nil {
			t.Fatal(err)
		}
		want = append(want, w...)
	}
	run1.Close() // crash after batch 1's transaction, before its commit log entry

	run2, err := New(testSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	replay, _ := batch(t, 1, "b1", 7)
	if err := run2.AddBatch(ctx, replay); err != nil {
		t.Fatal(err)
	}
	b2, w2 := batch(t, 2, "b2", 5)
	if err := run2.AddBatch(ctx, b2); err != nil {
		t.Fatal(err)
	}
	want = append(want, w2...)

	// run2 becomes a zombie while writing batch 3: run3 starts meanwhile.
	run3, err := New(testSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	run2.beforeCommit = func() {
		if err := run3.connect(ctx, "q1"); err != nil {
			t.Error(err)
		}
	}
	zombie, _ := batch(t, 3, "zombie", 4)
	if err := run2.AddBatch(ctx, zombie); err == nil || !strings.Contains(err.Error(), "batch 3") {
		t.Fatalf("the zombie's commit = %v, want it fenced", err)
	}
	if run3.committed != 2 {
		t.Fatalf("run3 read committed batch %d, want 2", run3.committed)
	}
	b3, w3 := batch(t, 3, "b3", 4)
	if err := run3.AddBatch(ctx, b3); err != nil {
		t.Fatal(err)
	}
	want = append(want, w3...)
	run3.Close()

	got := readCommitted(t, addrs, "out", len(want))
	if g, w := strings.Join(sorted(got), "\n"), strings.Join(sorted(want), "\n"); g != w {
		t.Fatalf("read_committed saw %d records:\n%s\nwant %d:\n%s", len(got), g, len(want), w)
	}
}

// TestKafkaSinkValidate follows Spark's column rules.
func TestKafkaSinkValidate(t *testing.T) {
	str := arrow.BinaryTypes.String
	cases := []struct {
		fields []arrow.Field
		topic  string
		want   string
	}{
		{[]arrow.Field{{Name: "key", Type: str}}, "t", "required attribute 'value' not found"},
		{[]arrow.Field{{Name: "value", Type: arrow.PrimitiveTypes.Int64}}, "t", "value attribute type must be a string or binary"},
		{[]arrow.Field{{Name: "value", Type: str}}, "", "topic option required when no 'topic' attribute is present"},
		{[]arrow.Field{{Name: "value", Type: str}, {Name: "key", Type: arrow.PrimitiveTypes.Int64}}, "t", "key attribute type must be a string or binary"},
		{[]arrow.Field{{Name: "value", Type: str}, {Name: "partition", Type: str}}, "t", "partition attribute type must be an int"},
		{[]arrow.Field{{Name: "value", Type: str}, {Name: "topic", Type: str}}, "", ""},
		{[]arrow.Field{{Name: "value", Type: str}}, "t", ""},
	}
	for _, c := range cases {
		err := Validate(arrow.NewSchema(c.fields, nil), c.topic)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v topic=%q: %v, want %q", c.fields, c.topic, err, c.want)
		}
	}
}
