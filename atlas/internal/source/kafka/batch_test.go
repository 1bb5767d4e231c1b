package kafka

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func batchRead(t *testing.T, opts map[string]string) ([]row, error) {
	t.Helper()
	b, err := NewBatch(opts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	var rows []row
	err = b.Read(testContext(t), func(rec arrow.RecordBatch) error {
		rows = append(rows, rowsOf(t, rec)...)
		return nil
	})
	return rows, err
}

// keep returns the produced rows of partitions at offsets [from, until).
func keep(rows []row, in func(r row) bool) []row {
	var out []row
	for _, r := range rows {
		if in(r) {
			out = append(out, r)
		}
	}
	return out
}

// TestBatchReadsEarliestToLatest: spark.read.format("kafka") reads, by
// default, every record from earliest to the latest offsets listed when
// it runs, under subscribe, subscribePattern and assign; JSON offsets
// bound the range per partition (-2 earliest start, -1 latest end); the
// answers are the records as produced, filtered by their offsets.
func TestBatchReadsEarliestToLatest(t *testing.T) {
	addr := newCluster(t, kfake.SeedTopics(3, "events"), kfake.SeedTopics(2, "events-b"), kfake.SeedTopics(1, "other"))
	ctx := testContext(t)
	ev := produce(t, ctx, addr, "events", "a", map[int32]int{0: 30, 1: 5, 2: 12})
	evb := produce(t, ctx, addr, "events-b", "b", map[int32]int{0: 4, 1: 9})
	produce(t, ctx, addr, "other", "c", map[int32]int{0: 3})
	base := func(kv ...string) map[string]string {
		m := map[string]string{"kafka.bootstrap.servers": addr}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name string
		opts map[string]string
		want []row
	}{
		{"subscribe", base("subscribe", "events"), ev},
		{"subscribePattern", base("subscribePattern", "events.*"), append(append([]row(nil), ev...), evb...)},
		{"assign", base("assign", `{"events":[1,2]}`), keep(ev, func(r row) bool { return r.partition != 0 })},
		{"offsets", base("subscribe", "events", "startingOffsets", `{"events":{"0":10,"1":-2,"2":3}}`, "endingOffsets", `{"events":{"0":20,"1":-1,"2":3}}`),
			keep(ev, func(r row) bool {
				return (r.partition == 0 && r.offset >= 10 && r.offset < 20) || r.partition == 1
			})},
		{"explicit defaults, ignored trigger option", base("subscribe", "events", "startingOffsets", "earliest", "endingOffsets", "latest", "maxOffsetsPerTrigger", "3"), ev},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := batchRead(t, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, c.name, got, c.want)
		})
	}

	b, err := NewBatch(base("subscribe", "events", "maxOffsetsPerTrigger", "3", "maxTriggerDelay", "5m"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if w := strings.Join(b.Warnings(), "; "); w != "maxOffsetsPerTrigger option ignored in batch queries; maxTriggerDelay option ignored in batch queries" {
		t.Errorf("warnings %q, want Spark's two", w)
	}
}

// TestBatchRefusesWhatSparkRefuses: a batch read cannot start at latest
// nor end at earliest, a streaming read takes no endingOffsets, the JSON
// offsets must name every partition, and a start after the end fails; each
// with Spark's words.
func TestBatchRefusesWhatSparkRefuses(t *testing.T) {
	addr := newCluster(t, kfake.SeedTopics(2, "events"))
	produce(t, testContext(t), addr, "events", "a", map[int32]int{0: 5, 1: 5})
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"startingOffsets": "latest"}, "starting offset can't be latest for batch queries on Kafka"},
		{map[string]string{"startingOffsets": `{"events":{"0":-1,"1":0}}`}, "startingOffsets for events-0 can't be latest for batch queries on Kafka"},
		{map[string]string{"endingOffsets": "earliest"}, "ending offset can't be earliest for batch queries on Kafka"},
		{map[string]string{"endingOffsets": `{"events":{"0":-2,"1":-1}}`}, "ending offset for events-0 can't be earliest for batch queries on Kafka"},
		{map[string]string{"endingOffsets": `{"events":{"0":3}}`}, "endingOffsets must name every partition"},
		{map[string]string{"endingOffsets": `{"nope":{"0":3}}`}, `endingOffsets names topic "nope", which is not in subscribe`},
		{map[string]string{"startingOffsets": `{"events":{"0":4,"1":0}}`, "endingOffsets": `{"events":{"0":2,"1":-1}}`}, "events-0 starts at 4 after its end 2"},
	} {
		opts := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"}
		for k, v := range c.opts {
			opts[k] = v
		}
		_, err := batchRead(t, opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.opts, err, c.want)
		}
	}
	_, err := New(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "endingOffsets": "latest"})
	if err == nil || !strings.Contains(err.Error(), "ending offset not valid in streaming queries") {
		t.Errorf("streaming with endingOffsets: err = %v, want Spark's refusal", err)
	}
}

// TestBatchIncludeHeaders: with includeHeaders=true a batch read adds
// Spark's headers column, array<struct<key: string, value: binary>>, each
// record's headers in order (a null value kept), null for a record
// without any; the reference is what the test produced. A stream still
// refuses the option.
func TestBatchIncludeHeaders(t *testing.T) {
	addr := newCluster(t, kfake.SeedTopics(2, "h"))
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	want := map[string]string{} // "p/offset" -> rendered headers
	var recs []*kgo.Record
	for i := range 12 {
		r := &kgo.Record{Topic: "h", Partition: int32(i % 2), Value: []byte(fmt.Sprint(i))}
		switch i % 3 {
		case 1:
			r.Headers = []kgo.RecordHeader{{Key: "trace", Value: []byte(fmt.Sprintf("t%d", i))}}
		case 2:
			r.Headers = []kgo.RecordHeader{{Key: "a", Value: []byte("1")}, {Key: "a", Value: nil}, {Key: "b", Value: []byte{}}}
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		want[fmt.Sprintf("%d/%d", r.Partition, r.Offset)] = renderHeaders(r.Headers)
	}
	b, err := NewBatch(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "h", "includeHeaders": "true"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Schema().Equal(SchemaWithHeaders) {
		t.Fatalf("schema %v", b.Schema())
	}
	got := map[string]string{}
	err = b.Read(ctx, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(SchemaWithHeaders) {
			t.Fatalf("record schema %v", rec.Schema())
		}
		part := rec.Column(colPartition).(*array.Int32)
		off := rec.Column(colOffset).(*array.Int64)
		hs := rec.Column(numColumns).(*array.List)
		st := hs.ListValues().(*array.Struct)
		keys, vals := st.Field(0).(*array.String), st.Field(1).(*array.Binary)
		for i := range int(rec.NumRows()) {
			var h []kgo.RecordHeader
			if hs.IsValid(i) {
				lo, hi := hs.ValueOffsets(i)
				for j := lo; j < hi; j++ {
					var v []byte
					if vals.IsValid(int(j)) {
						v = append([]byte{}, vals.Value(int(j))...)
					}
					h = append(h, kgo.RecordHeader{Key: keys.Value(int(j)), Value: v})
				}
			}
			got[fmt.Sprintf("%d/%d", part.Value(i), off.Value(i))] = renderHeaders(h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("headers\n got %v\nwant %v", got, want)
	}
	if _, err := New(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "h", "includeHeaders": "true"}); err == nil {
		t.Error("a stream took includeHeaders=true")
	}
}

// renderHeaders writes headers as the test compares them: none is "null",
// a null value "key=<null>".
func renderHeaders(hs []kgo.RecordHeader) string {
	if len(hs) == 0 {
		return "null"
	}
	var parts []string
	for _, h := range hs {
		if h.Value == nil {
			parts = append(parts, h.Key+"=<null>")
		} else {
			parts = append(parts, h.Key+"="+string(h.Value))
		}
	}
	return strings.Join(parts, ",")
}
