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
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// row is one Kafka record as the tests compare it: either as produced (the
// reference) or as read back from Arrow.
type row struct {
	topic     string
	partition int32
	offset    int64
	key       string
	keyNull   bool
	value     string
	tsMicros  int64
}

func (r row) String() string {
	return fmt.Sprintf("%s-%d@%d key=%q null=%v value=%q ts=%d", r.topic, r.partition, r.offset, r.key, r.keyNull, r.value, r.tsMicros)
}

// newCluster starts an in-process broker on 127.0.0.1 and returns its
// bootstrap address.
func newCluster(t testing.TB, opts ...kfake.Opt) string {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// produce writes counts[p] records to each partition p of topic and returns
// them as produced, with the offsets and timestamps the broker assigned. The
// i-th record of a partition has key "k-<p>-<i>" (null for every tenth
// record) and value "v-<p>-<i>-<tag>".
func produce(t testing.TB, ctx context.Context, addr, topic, tag string, counts map[int32]int) []row {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatalf("producer: %v", err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for p, n := range counts {
		for i := 0; i < n; i++ {
			r := &kgo.Record{
				Topic:     topic,
				Partition: p,
				Value:     []byte(fmt.Sprintf("v-%d-%d-%s", p, i, tag)),
			}
			if i%10 != 3 {
				r.Key = []byte(fmt.Sprintf("k-%d-%d", p, i))
			}
			recs = append(recs, r)
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("producing to %s: %v", topic, err)
	}
	out := make([]row, len(recs))
	for i, r := range recs {
		out[i] = row{
			topic: r.Topic, partition: r.Partition, offset: r.Offset,
			key: string(r.Key), keyNull: r.Key == nil, value: string(r.Value),
			tsMicros: r.Timestamp.UnixMilli() * 1000,
		}
	}
	return out
}

// rowsOf reads an Arrow record back into rows, checking it has Schema.
func rowsOf(t testing.TB, rec arrow.RecordBatch) []row {
	t.Helper()
	if !rec.Schema().Equal(Schema) {
		t.Fatalf("record schema %v, want %v", rec.Schema(), Schema)
	}
	key := rec.Column(colKey).(*array.Binary)
	value := rec.Column(colValue).(*array.Binary)
	topic := rec.Column(colTopic).(*array.String)
	part := rec.Column(colPartition).(*array.Int32)
	off := rec.Column(colOffset).(*array.Int64)
	ts := rec.Column(colTimestamp).(*array.Timestamp)
	tsType := rec.Column(colTimestampType).(*array.Int32)
	out := make([]row, rec.NumRows())
	for i := range out {
		if tsType.Value(i) != 0 {
			t.Fatalf("row %d: timestampType %d, want 0 (CreateTime)", i, tsType.Value(i))
		}
		out[i] = row{
			topic: topic.Value(i), partition: part.Value(i), offset: off.Value(i),
			key: string(key.Value(i)), keyNull: key.IsNull(i), value: string(value.Value(i)),
			tsMicros: int64(ts.Value(i)),
		}
	}
	return out
}

// readBatch runs GetBatch and returns its rows, plus the row count of each
// Arrow record it yielded.
func readBatch(t testing.TB, ctx context.Context, src *Source, start, end source.Offset) ([]row, []int) {
	t.Helper()
	var rows []row
	var sizes []int
	err := src.GetBatch(ctx, start, end, func(rec arrow.RecordBatch) error {
		sizes = append(sizes, int(rec.NumRows()))
		rows = append(rows, rowsOf(t, rec)...)
		return nil
	})
	if err != nil {
		t.Fatalf("GetBatch(%s, %s): %v", start, end, err)
	}
	return rows, sizes
}

func sortRows(rows []row) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.topic != b.topic {
			return a.topic < b.topic
		}
		if a.partition != b.partition {
			return a.partition < b.partition
		}
		return a.offset < b.offset
	})
}

// sameRows reports the first difference between two row sets, ignoring
// order.
func sameRows(t testing.TB, what string, got, want []row) {
	t.Helper()
	got = append([]row(nil), got...)
	want = append([]row(nil), want...)
	sortRows(got)
	sortRows(want)
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// filterRows keeps the rows for which keep is true.
func filterRows(rows []row, keep func(row) bool) []row {
	var out []row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func mustNew(t testing.TB, opts map[string]string) *Source {
	t.Helper()
	src, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func mustOffsets(t testing.TB, o source.Offset) Offsets {
	t.Helper()
	offs, err := ParseOffset(o)
	if err != nil {
		t.Fatalf("ParseOffset(%s): %v", o, err)
	}
	return offs
}
