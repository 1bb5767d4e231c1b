package kafka

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSubscribePatternPicksUpNewTopics subscribes to "orders-.*": the
// matching topics are read, a topic that does not match whole (a prefix
// match, "orders-eu-archive" is matched, "archive-orders-x" is not) is
// left out, and a matching topic created mid-stream is read from its
// earliest offset at the next planning.
func TestSubscribePatternPicksUpNewTopics(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(2, "orders-us", "archive-orders-x", "payments"))
	before := produce(t, ctx, addr, "orders-us", "1", map[int32]int{0: 5, 1: 3})
	produce(t, ctx, addr, "archive-orders-x", "1", map[int32]int{0: 4})
	produce(t, ctx, addr, "payments", "1", map[int32]int{1: 2})

	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribePattern": "orders-.*", "startingOffsets": "earliest"})
	if got := src.Description(); got != "KafkaV2[SubscribePattern[orders-.*]]" {
		t.Errorf("Description() = %q", got)
	}
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end, err := src.LatestOffset(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if SparkOffset(end) != `{"orders-us":{"0":5,"1":3}}` {
		t.Fatalf("first batch ends at %s", SparkOffset(end))
	}
	rows, _ := readBatch(t, ctx, src, start, end)
	sameRows(t, "matching topic", rows, before)

	admCl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	if _, err := kadm.NewClient(admCl).CreateTopic(ctx, 1, 1, nil, "orders-eu-archive"); err != nil {
		t.Fatal(err)
	}
	created := produce(t, ctx, addr, "orders-eu-archive", "2", map[int32]int{0: 6})
	more := produce(t, ctx, addr, "orders-us", "2", map[int32]int{1: 1})
	start = end
	// The client may hold the topic list's metadata for a moment: plan
	// again from the same start until the new topic shows.
	for end = waitLatest(t, ctx, src, start); !strings.Contains(string(SparkOffset(end)), "orders-eu-archive"); end = waitLatest(t, ctx, src, start) {
		time.Sleep(50 * time.Millisecond)
	}
	if SparkOffset(end) != `{"orders-eu-archive":{"0":6},"orders-us":{"0":5,"1":4}}` {
		t.Fatalf("after creating orders-eu-archive: %s", SparkOffset(end))
	}
	rows, _ = readBatch(t, ctx, src, start, end)
	sameRows(t, "new matching topic", rows, append(created, more...))
}

// TestAssignReadsOnlyAssignedPartitions assigns partitions 0 and 2 of a
// three-partition topic and partition 1 of another: records of other
// partitions are never read, and a JSON startingOffsets applies to the
// assigned partitions.
func TestAssignReadsOnlyAssignedPartitions(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "a", "b"))
	ra := produce(t, ctx, addr, "a", "1", map[int32]int{0: 4, 1: 5, 2: 6})
	rb := produce(t, ctx, addr, "b", "1", map[int32]int{0: 2, 1: 3})
	src := mustNew(t, map[string]string{
		"kafka.bootstrap.servers": addr,
		"assign":                  `{"b":[1],"a":[2,0]}`,
		"startingOffsets":         `{"a":{"0":1,"2":-2},"b":{"1":-1}}`,
	})
	if got := src.Description(); got != "KafkaV2[Assign[a-0, a-2, b-1]]" {
		t.Errorf("Description() = %q", got)
	}
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if SparkOffset(start) != `{"a":{"0":1,"2":0},"b":{"1":3}}` {
		t.Fatalf("InitialOffset = %s", SparkOffset(start))
	}
	more := produce(t, ctx, addr, "b", "2", map[int32]int{0: 1, 1: 2})
	end, err := src.LatestOffset(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readBatch(t, ctx, src, start, end)
	want := filterRows(append(append(ra, rb...), more...), func(r row) bool {
		switch {
		case r.topic == "a" && r.partition == 0:
			return r.offset >= 1
		case r.topic == "a" && r.partition == 2:
			return true
		case r.topic == "b" && r.partition == 1:
			return r.offset >= 3
		}
		return false
	})
	sameRows(t, "assigned partitions", rows, want)
}
