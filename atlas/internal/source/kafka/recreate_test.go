package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// recreate deletes topic and creates it again with 3 partitions, returning
// the old and the new topic id as the broker reports them.
func recreate(t *testing.T, ctx context.Context, addr, topic string) (oldID, newID string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	id := func() string { // a fresh client: kgo caches metadata
		c, err := kgo.NewClient(kgo.SeedBrokers(addr))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		md, err := kadm.NewClient(c).Metadata(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		return md.Topics[topic].ID.String()
	}
	oldID = id()
	if _, err := adm.DeleteTopics(ctx, topic); err != nil {
		t.Fatalf("DeleteTopics: %v", err)
	}
	for {
		resp, err := adm.CreateTopic(ctx, 3, 1, nil, topic)
		if err == nil && resp.Err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("CreateTopic: %v %v", err, resp.Err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	newID = id()
	if newID == oldID || newID == (kadm.TopicID{}).String() {
		t.Fatalf("recreated topic id %s, old %s: want a new id", newID, oldID)
	}
	return oldID, newID
}

// readAll reads from start until LatestOffset has nothing new, returning
// the rows, the final offset and every DataLoss reported on the way. It
// fails the test when a batch holds more than maxBatch rows (0: no limit).
func readAll(t *testing.T, ctx context.Context, src *Source, start source.Offset, maxBatch int) ([]row, source.Offset, []progress.DataLoss) {
	t.Helper()
	var rows []row
	var loss []progress.DataLoss
	for {
		end, err := src.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			return rows, start, loss
		}
		got, _ := readBatch(t, ctx, src, start, end)
		if maxBatch > 0 && len(got) > maxBatch {
			t.Errorf("batch %s to %s: %d rows, over maxOffsetsPerTrigger %d", start, end, len(got), maxBatch)
		}
		rows = append(rows, got...)
		loss = append(loss, src.DataLoss()...)
		start = end
	}
}

// A topic deleted and created again under the same name restarts at offset
// 0; offsets from the old topic must not be applied to it. With the topic
// id recorded beside the offsets, every trigger detects the recreation:
// failOnDataLoss=true stops with the topic, both ids, the offsets and the
// fix, including under AvailableNow, where the end is pinned below the
// start and the old check was skipped ("nothing new to read").
func TestRecreatedTopicFailsOnDataLoss(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	produce(t, ctx, addr, "events", "old", map[int32]int{0: 50, 1: 50, 2: 50})
	opts := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest"}
	src := mustNew(t, opts)
	_, done, _ := readAll(t, ctx, src, "", 0)
	if got := SparkOffset(done); got != `{"events":{"0":50,"1":50,"2":50}}` {
		t.Fatalf("read the old topic to %s", got)
	}
	oldID, newID := recreate(t, ctx, addr, "events")
	for name, more := range map[string]map[int32]int{"fewer records": {0: 20, 1: 20, 2: 20}, "more records": {0: 60, 1: 60, 2: 60}} {
		produce(t, ctx, addr, "events", name, more)
		for _, availableNow := range []bool{false, true} {
			s := mustNew(t, opts)
			if availableNow {
				if err := s.PrepareForAvailableNow(ctx); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			// Topic metadata may be cached for up to metadataMinAge.
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if _, err = s.LatestOffset(ctx, done); err != nil {
					break
				}
			}
			if err == nil {
				t.Fatalf("%s, AvailableNow=%v: a recreated topic read on from the old offsets without an error", name, availableNow)
			}
			for _, want := range []string{`topic "events" was deleted and created again`, `{"events":{"0":50,"1":50,"2":50}}`, oldID, newID, "checkpointLocation", "failOnDataLoss"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s, AvailableNow=%v: error %q does not name %q", name, availableNow, err, want)
				}
			}
		}
	}
}

// With failOnDataLoss=false a recreated topic is read from its earliest
// offset, every record of it once and within maxOffsetsPerTrigger counted
// from there, and the batch reports which offsets of the old topic were
// never read.
func TestRecreatedTopicReadFromItsStart(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	produce(t, ctx, addr, "events", "old", map[int32]int{0: 50, 1: 50, 2: 50})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest",
		"failOnDataLoss": "false", "maxOffsetsPerTrigger": "90"})
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One batch of 30 per partition: the old topic's offsets 30 to 50 stay unread.
	end, err := src.LatestOffset(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if got := SparkOffset(end); got != `{"events":{"0":30,"1":30,"2":30}}` {
		t.Fatalf("first batch ends at %s", got)
	}
	readBatch(t, ctx, src, start, end)
	_, newID := recreate(t, ctx, addr, "events")
	want := produce(t, ctx, addr, "events", "new", map[int32]int{0: 70, 1: 70, 2: 70})

	var rows []row
	var loss []progress.DataLoss
	for deadline := time.Now().Add(5 * time.Second); len(rows) < len(want) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		got, next, l := readAll(t, ctx, src, end, 90)
		rows, loss, end = append(rows, got...), append(loss, l...), next
	}
	sameRows(t, "the recreated topic", rows, want)
	if _, ids, _ := parsePosition(end); ids["events"] != newID {
		t.Errorf("the last offset %s does not record the new topic id %s", end, newID)
	}
	if len(loss) != 3 {
		t.Fatalf("data loss reported: %v, want one range per partition", loss)
	}
	for i, l := range loss {
		if l.Partition != "events-"+string(rune('0'+i)) || l.FromOffset != 30 || l.ToOffset != 50 || !strings.Contains(l.Reason, "deleted and created again") {
			t.Errorf("data loss %d = %+v, want events-%d [30, 50) of the recreated topic", i, l, i)
		}
	}
}

// Under AvailableNow an end offset that went backwards (an old checkpoint
// without topic ids, a truncated partition) is data loss as under every
// other trigger, not "nothing new to read".
func TestAvailableNowChecksOffsetsGoingBackwards(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	produce(t, ctx, addr, "events", "x", map[int32]int{0: 20, 1: 20, 2: 20})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest"})
	if err := src.PrepareForAvailableNow(ctx); err != nil {
		t.Fatal(err)
	}
	// Spark's offset JSON, as an old checkpoint holds it: no topic ids.
	_, err := src.LatestOffset(ctx, `{"events":{"0":50,"1":50,"2":50}}`)
	if err == nil || !strings.Contains(err.Error(), "went backwards") || !strings.Contains(err.Error(), "events-0 from 50 to 20") {
		t.Fatalf("LatestOffset under AvailableNow with the end below the start: err = %v, want the offsets-went-backwards error", err)
	}
}

// Topic ids ride beside the offsets under "@topicIds", which no topic can
// be called; offsets written without them (old checkpoints, Spark's
// format) still read, and progress shows Spark's format.
func TestOffsetTopicIDs(t *testing.T) {
	o := Offsets{"b": {1: 4}, "a": {0: 2}}
	got := formatPosition(o, topicIDs{"a": "AAA=", "gone": "CCC="})
	if want := source.Offset(`{"a":{"0":2},"b":{"1":4},"@topicIds":{"a":"AAA="}}`); got != want {
		t.Fatalf("formatPosition = %s, want %s", got, want)
	}
	offs, ids, err := parsePosition(got)
	if err != nil || offs["a"][0] != 2 || offs["b"][1] != 4 || len(offs) != 2 || len(ids) != 1 || ids["a"] != "AAA=" {
		t.Fatalf("parsePosition(%s) = %v, %v, %v", got, offs, ids, err)
	}
	if s := SparkOffset(got); s != `{"a":{"0":2},"b":{"1":4}}` {
		t.Errorf("SparkOffset = %s", s)
	}
	old := source.Offset(`{"a":{"0":2}}`)
	if offs, ids, err := parsePosition(old); err != nil || offs["a"][0] != 2 || ids != nil {
		t.Errorf("parsePosition of Spark's format = %v, %v, %v", offs, ids, err)
	}
	if _, _, err := parsePosition(`{"a":{"0":2},"@topicIds":{"a":7}}`); err == nil {
		t.Error("a topic id that is not a string was accepted")
	}
}
