package kafka

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kfake"
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
