package kafka

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// TestEarliestReadsEverythingOnceUnderRateLimit reads 6,000 records spread
// 1000/2000/3000 over three partitions with maxOffsetsPerTrigger=600: each
// batch must take 100/200/300 (the limit split by lag), the Arrow records
// must respect the row cap, and the union of the batches must be exactly the
// records produced.
func TestEarliestReadsEverythingOnceUnderRateLimit(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	want := produce(t, ctx, addr, "events", "a", map[int32]int{0: 1000, 1: 2000, 2: 3000})

	src := mustNew(t, map[string]string{
		"kafka.bootstrap.servers": addr,
		"subscribe":               "events",
		"startingOffsets":         "earliest",
		"maxOffsetsPerTrigger":    "600",
	})
	src.reader.f.maxRows = 256
	if got := src.Description(); got != "KafkaV2[Subscribe[events]]" {
		t.Errorf("Description() = %q", got)
	}

	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if SparkOffset(start) != `{"events":{"0":0,"1":0,"2":0}}` {
		t.Fatalf("InitialOffset = %s", start)
	}
	var got []row
	batches := 0
	for {
		end, err := src.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			break
		}
		batches++
		from, until := mustOffsets(t, start), mustOffsets(t, end)
		for p, step := range map[int32]int64{0: 100, 1: 200, 2: 300} {
			if d := until["events"][p] - from["events"][p]; d != step {
				t.Fatalf("batch %d: partition %d advances %d offsets, want %d (600 split by lag 1:2:3)", batches, p, d, step)
			}
		}
		rows, sizes := readBatch(t, ctx, src, start, end)
		if len(rows) != 600 {
			t.Fatalf("batch %d: %d rows, want 600", batches, len(rows))
		}
		for _, n := range sizes {
			if n > 256 || n == 0 {
				t.Fatalf("batch %d: Arrow record of %d rows, want 1..256", batches, n)
			}
		}
		for _, r := range rows {
			if o := r.offset; o < from[r.topic][r.partition] || o >= until[r.topic][r.partition] {
				t.Fatalf("batch %d: row %v outside [%d, %d)", batches, r, from[r.topic][r.partition], until[r.topic][r.partition])
			}
		}
		got = append(got, rows...)
		if err := src.Commit(ctx, end); err != nil {
			t.Fatal(err)
		}
		start = end
	}
	if batches != 10 {
		t.Errorf("%d batches, want 10", batches)
	}
	sameRows(t, "all batches", got, want)
}

// TestLatestStartReadsOnlyNewRecords starts at "latest" (the default) and
// must read only what is produced after the initial offset is resolved.
func TestLatestStartReadsOnlyNewRecords(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	produce(t, ctx, addr, "events", "old", map[int32]int{0: 100, 1: 100, 2: 100})

	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if SparkOffset(start) != `{"events":{"0":100,"1":100,"2":100}}` {
		t.Fatalf("InitialOffset = %s", start)
	}
	if end, err := src.LatestOffset(ctx, start); err != nil || end != start {
		t.Fatalf("LatestOffset with no new data = %s, %v; want the start", end, err)
	}
	want := produce(t, ctx, addr, "events", "new", map[int32]int{0: 50, 1: 70, 2: 30})
	end, err := src.LatestOffset(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if SparkOffset(end) != `{"events":{"0":150,"1":170,"2":130}}` {
		t.Fatalf("LatestOffset = %s", end)
	}
	avail, err := src.AvailableOffset(ctx)
	if err != nil || SparkOffset(avail) != SparkOffset(end) {
		t.Fatalf("AvailableOffset = %s, %v; want %s", avail, err, end)
	}
	rows, _ := readBatch(t, ctx, src, start, end)
	sameRows(t, "new records", rows, want)
}

// TestReplayYieldsIdenticalRecords reads two consecutive batches, then
// replays the first (a backward reposition), the same range again, and the
// second, and checks every replay yields exactly the records of the first
// reading, which in turn match the records produced.
func TestReplayYieldsIdenticalRecords(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	all := produce(t, ctx, addr, "events", "r", map[int32]int{0: 400, 1: 300, 2: 500})

	src := mustNew(t, map[string]string{
		"kafka.bootstrap.servers": addr, "subscribe": "events",
		"startingOffsets": "earliest", "maxOffsetsPerTrigger": "480",
	})
	s0, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e1, err := src.LatestOffset(ctx, s0)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := src.LatestOffset(ctx, e1)
	if err != nil {
		t.Fatal(err)
	}
	inRange := func(from, until Offsets) []row {
		return filterRows(all, func(r row) bool {
			return r.offset >= from[r.topic][r.partition] && r.offset < until[r.topic][r.partition]
		})
	}
	want1 := inRange(mustOffsets(t, s0), mustOffsets(t, e1))
	want2 := inRange(mustOffsets(t, e1), mustOffsets(t, e2))
	if len(want1) != 480 || len(want2) != 480 {
		t.Fatalf("reference batches of %d and %d rows, want 480 each", len(want1), len(want2))
	}

	first, _ := readBatch(t, ctx, src, s0, e1)
	sameRows(t, "batch 1", first, want1)
	second, _ := readBatch(t, ctx, src, e1, e2)
	sameRows(t, "batch 2", second, want2)

	replay1, _ := readBatch(t, ctx, src, s0, e1)
	sameRows(t, "batch 1 replayed", replay1, first)
	again1, _ := readBatch(t, ctx, src, s0, e1)
	sameRows(t, "batch 1 read a third time", again1, first)
	replay2, _ := readBatch(t, ctx, src, e1, e2)
	sameRows(t, "batch 2 replayed", replay2, second)

	// A batch whose consumer fails half-way (a sink error) is retried.
	failing := errors.New("sink failed")
	if err := src.GetBatch(ctx, e1, e2, func(arrow.RecordBatch) error { return failing }); !errors.Is(err, failing) {
		t.Fatalf("GetBatch with a failing callback: err = %v, want the callback's error", err)
	}
	retried, _ := readBatch(t, ctx, src, e1, e2)
	sameRows(t, "batch 2 after a failed attempt", retried, second)
	if src.Schema() != Schema {
		t.Error("Schema() is not the package Schema")
	}

	// A new source (a restarted query) replaying batch 2 from the log.
	restarted := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})
	fresh, _ := readBatch(t, ctx, restarted, e1, e2)
	sameRows(t, "batch 2 after restart", fresh, second)
}

// TestJSONStartingOffsets starts partition 0 at offset 10, partition 1 at
// earliest (-2) and partition 2 at latest (-1).
func TestJSONStartingOffsets(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	old := produce(t, ctx, addr, "events", "old", map[int32]int{0: 40, 1: 40, 2: 40})

	src := mustNew(t, map[string]string{
		"kafka.bootstrap.servers": addr, "subscribe": "events",
		"startingOffsets": `{"events":{"0":10,"1":-2,"2":-1}}`,
	})
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if SparkOffset(start) != `{"events":{"0":10,"1":0,"2":40}}` {
		t.Fatalf("InitialOffset = %s", start)
	}
	newer := produce(t, ctx, addr, "events", "new", map[int32]int{2: 5})
	end, err := src.LatestOffset(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	want := append(filterRows(old, func(r row) bool {
		return (r.partition == 0 && r.offset >= 10) || r.partition == 1
	}), newer...)
	rows, _ := readBatch(t, ctx, src, start, end)
	sameRows(t, "JSON start", rows, want)

	missing := mustNew(t, map[string]string{
		"kafka.bootstrap.servers": addr, "subscribe": "events",
		"startingOffsets": `{"events":{"0":10}}`,
	})
	if _, err := missing.InitialOffset(ctx); err == nil || !strings.Contains(err.Error(), "events-1") {
		t.Errorf("startingOffsets missing partitions: err = %v, want one naming events-1", err)
	}
}

// TestOptionErrors checks option validation, including that an unknown
// option's error lists every valid option.
func TestOptionErrors(t *testing.T) {
	base := func(extra map[string]string) map[string]string {
		m := map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "subscribe": "events"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	_, err := New(base(map[string]string{"maxOffsetPerTrigger": "10"}))
	if err == nil {
		t.Fatal("unknown option accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, `unknown option "maxOffsetPerTrigger"`) || !strings.Contains(msg, `did you mean "maxOffsetsPerTrigger"`) {
		t.Errorf("unknown option error = %q", msg)
	}
	for _, name := range ValidOptions {
		if !strings.Contains(msg, name) {
			t.Errorf("unknown option error does not list %q: %q", name, msg)
		}
	}

	cases := []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"subscribe": "events"}, "kafka.bootstrap.servers is required"},
		{map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1"}, "one of the options subscribe, subscribePattern and assign must be specified"},
		{base(map[string]string{"subscribePattern": "ev.*"}), "only one of the options subscribe, subscribePattern and assign can be specified, got subscribe and subscribePattern"},
		{base(map[string]string{"assign": `{"events":[0]}`}), "only one of the options"},
		{map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "subscribePattern": "ev(("}, "not a valid regular expression"},
		{map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "assign": "events"}, `such as {"topicA":[0,1],"topicB":[2,4]}`},
		{map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "assign": `{"events":[0]}`, "startingOffsets": `{"events":{"1":5}}`}, "events-1, which is not in assign"},
		{map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "subscribePattern": "ev.*", "startingOffsets": `{"other":{"0":5}}`}, `does not match subscribePattern "ev.*"`},
		{base(map[string]string{"kafka.sasl.mechanism": "PLAIN"}), "PLAINTEXT only"},
		{base(map[string]string{"kafka.security.protocol": "SASL_SSL"}), "not supported yet"},
		{base(map[string]string{"startingOffsets": "yesterday"}), "startingOffsets must be"},
		{base(map[string]string{"startingOffsets": `{"other":{"0":1}}`}), `names topic "other"`},
		{base(map[string]string{"maxOffsetsPerTrigger": "-5"}), "maxOffsetsPerTrigger must be a positive number"},
		{base(map[string]string{"failOnDataLoss": "maybe"}), "failOnDataLoss must be true or false"},
	}
	for _, c := range cases {
		if _, err := New(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%v) error = %v, want it to contain %q", c.opts, err, c.want)
		}
	}

	// Spark matches option names case-insensitively; other kafka.* settings
	// are ignored.
	src, err := New(base(map[string]string{"MAXOFFSETSPERTRIGGER": "7", "kafka.group.id": "ignored", "FailOnDataLoss": "false"}))
	if err != nil {
		t.Fatalf("valid options rejected: %v", err)
	}
	defer src.Close()
	if src.cfg.maxOffsets != 7 || src.cfg.failOnDataLoss {
		t.Errorf("parsed maxOffsets=%d failOnDataLoss=%v, want 7 and false", src.cfg.maxOffsets, src.cfg.failOnDataLoss)
	}
}

// TestFailOnDataLoss deletes the first 50 records of every partition after
// the start was resolved: with failOnDataLoss (the default) the batch fails,
// without it the batch yields what is left and counts the lost offsets.
func TestFailOnDataLoss(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	all := produce(t, ctx, addr, "events", "d", map[int32]int{0: 100, 1: 100, 2: 100})

	strict := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest"})
	lenient := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest", "failOnDataLoss": "false"})
	start, err := strict.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lenient.InitialOffset(ctx); err != nil {
		t.Fatal(err)
	}

	admCl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	var cut kadm.Offsets
	for p := int32(0); p < 3; p++ {
		cut.AddOffset("events", p, 50, -1)
	}
	resp, err := kadm.NewClient(admCl).DeleteRecords(ctx, cut)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("DeleteRecords: %v", err)
	}

	end, err := strict.LatestOffset(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	err = strict.GetBatch(ctx, start, end, func(arrow.RecordBatch) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "failOnDataLoss") {
		t.Fatalf("GetBatch over deleted records: err = %v, want a data loss error naming failOnDataLoss", err)
	}

	rows, _ := readBatch(t, ctx, lenient, start, end)
	sameRows(t, "records left after deletion", rows, filterRows(all, func(r row) bool { return r.offset >= 50 }))
	if got := lenient.DataLossOffsets(); got != 150 {
		t.Errorf("DataLossOffsets() = %d, want 150", got)
	}
	loss := lenient.DataLoss()
	if len(loss) != 3 {
		t.Fatalf("DataLoss() = %v, want [0, 50) of each partition", loss)
	}
	for _, l := range loss {
		if l.FromOffset != 0 || l.ToOffset != 50 || !strings.HasPrefix(l.Partition, "events-") {
			t.Errorf("DataLoss entry %v, want events-N [0, 50)", l)
		}
	}
}

// TestAvailableNowPinsTheEnd pins the end, produces more, and checks the
// batches (capped at 120 offsets) stop exactly at the pinned end.
func TestAvailableNowPinsTheEnd(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	before := produce(t, ctx, addr, "events", "before", map[int32]int{0: 100, 1: 100, 2: 100})

	src := mustNew(t, map[string]string{
		"kafka.bootstrap.servers": addr, "subscribe": "events",
		"startingOffsets": "earliest", "maxOffsetsPerTrigger": "120",
	})
	if err := src.PrepareForAvailableNow(ctx); err != nil {
		t.Fatal(err)
	}
	produce(t, ctx, addr, "events", "after", map[int32]int{0: 100, 1: 100, 2: 100})

	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []row
	batches := 0
	for {
		end, err := src.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			break
		}
		batches++
		rows, _ := readBatch(t, ctx, src, start, end)
		if len(rows) > 120 {
			t.Fatalf("batch %d: %d rows, over maxOffsetsPerTrigger 120", batches, len(rows))
		}
		got = append(got, rows...)
		start = end
	}
	if SparkOffset(start) != `{"events":{"0":100,"1":100,"2":100}}` {
		t.Errorf("stopped at %s, want the pinned end", start)
	}
	if batches != 3 {
		t.Errorf("%d batches, want 3 (300 offsets at 120 per trigger: 120, 120, 60)", batches)
	}
	sameRows(t, "AvailableNow", got, before)
}

// TestTopicCreatedAfterStart subscribes to a topic that does not exist yet
// at "latest": once created, its partitions are read from the start, and a
// partition added later is read from its start too.
func TestTopicCreatedAfterStart(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t)

	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "late"})
	start, err := src.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if start != "{}" {
		t.Fatalf("InitialOffset of a missing topic = %s, want {}", start)
	}
	if end, err := src.LatestOffset(ctx, start); err != nil || end != start {
		t.Fatalf("LatestOffset of a missing topic = %s, %v", end, err)
	}

	admCl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "late"); err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	want := produce(t, ctx, addr, "late", "1", map[int32]int{0: 25, 1: 15})
	// Topic metadata may be cached for up to metadataMinAge.
	end := waitLatest(t, ctx, src, start)
	if SparkOffset(end) != `{"late":{"0":25,"1":15}}` {
		t.Fatalf("LatestOffset after creation = %s", end)
	}
	rows, _ := readBatch(t, ctx, src, start, end)
	sameRows(t, "new topic", rows, want)

	if _, err := adm.CreatePartitions(ctx, 1, "late"); err != nil {
		t.Fatalf("CreatePartitions: %v", err)
	}
	more := produce(t, ctx, addr, "late", "2", map[int32]int{1: 5, 2: 12})
	start = end
	if end = waitLatest(t, ctx, src, start); SparkOffset(end) == `{"late":{"0":25,"1":20}}` {
		end = waitLatest(t, ctx, src, end) // partition 2 not seen yet
	}
	if SparkOffset(end) != `{"late":{"0":25,"1":20,"2":12}}` {
		t.Fatalf("LatestOffset after adding a partition = %s", end)
	}
	rows, _ = readBatch(t, ctx, src, start, end)
	sameRows(t, "added partition", rows, more)
}

// TestTransactionMarkersEndBatches reads committed transactions: the commit
// markers occupy offsets, so a batch ending at the high watermark ends on a
// marker and must still complete, without the marker as a row.
func TestTransactionMarkersEndBatches(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("tx"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var want []row
	for txn := 0; txn < 3; txn++ {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		var recs []*kgo.Record
		for i := 0; i < 10; i++ {
			recs = append(recs, &kgo.Record{Topic: "events", Key: []byte{byte('a' + txn)}, Value: []byte{byte(i)}})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			want = append(want, row{topic: "events", offset: r.Offset, key: string(r.Key), value: string(r.Value), tsMicros: r.Timestamp.UnixMilli() * 1000})
		}
	}
	for _, level := range []string{"read_uncommitted", "read_committed"} {
		src := mustNew(t, map[string]string{
			"kafka.bootstrap.servers": addr, "subscribe": "events",
			"startingOffsets": "earliest", "kafka.isolation.level": level,
		})
		start, err := src.InitialOffset(ctx)
		if err != nil {
			t.Fatal(err)
		}
		end, err := src.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if SparkOffset(end) != `{"events":{"0":33}}` {
			t.Fatalf("%s: LatestOffset = %s, want 30 records + 3 markers", level, end)
		}
		rows, _ := readBatch(t, ctx, src, start, end)
		sameRows(t, level, rows, want)
	}
}

// TestOffsetJSON checks the offsets log format: partitions sorted by number,
// topics by name, and the round trip.
func TestOffsetJSON(t *testing.T) {
	o := Offsets{"b": {10: 5, 2: 7, 0: 1}, "a": {1: 3}, "empty": {}}
	got := FormatOffset(o)
	if SparkOffset(got) != `{"a":{"1":3},"b":{"0":1,"2":7,"10":5}}` {
		t.Fatalf("FormatOffset = %s", got)
	}
	back, err := ParseOffset(got)
	if err != nil {
		t.Fatal(err)
	}
	if FormatOffset(back) != got || back["b"][10] != 5 || len(back) != 2 {
		t.Fatalf("round trip = %v", back)
	}
	if o, err := ParseOffset(""); o != nil || err != nil {
		t.Errorf(`ParseOffset("") = %v, %v; want nil, nil`, o, err)
	}
	for _, bad := range []source.Offset{`{"a":{"x":1}}`, `{"a":{"-1":1}}`, `[1]`, `{"a":{"0":1.5}}`, `null`, `{"a":{"0":1}} trailing`} {
		if _, err := ParseOffset(bad); err == nil {
			t.Errorf("ParseOffset(%s) accepted", bad)
		}
	}
}

// TestRateLimitMatchesSpark checks the split against values worked out by
// hand from Spark's rateLimit: floor of the proportional share, at least one
// offset per lagging partition, never past the end.
func TestRateLimitMatchesSpark(t *testing.T) {
	begin := Offsets{"t": {0: 0, 1: 0, 2: 0, 3: 50}}
	until := Offsets{"t": {0: 1000, 1: 1000, 2: 1000, 3: 50}}
	if got := FormatOffset(rateLimit(500, begin, until)); SparkOffset(got) != `{"t":{"0":166,"1":166,"2":166,"3":50}}` {
		t.Errorf("even split = %s", got)
	}
	begin = Offsets{"t": {0: 0, 1: 0}}
	until = Offsets{"t": {0: 10000, 1: 3}}
	// Shares: 100*10000/10003 = 99.97 -> 99; 100*3/10003 = 0.03 -> 1.
	if got := FormatOffset(rateLimit(100, begin, until)); SparkOffset(got) != `{"t":{"0":99,"1":1}}` {
		t.Errorf("skewed split = %s", got)
	}
	if got := FormatOffset(rateLimit(100000, begin, until)); SparkOffset(got) != `{"t":{"0":10000,"1":3}}` {
		t.Errorf("limit above lag = %s", got)
	}
}

// TestConsumeRate counts every record in a topic.
func TestConsumeRate(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	produce(t, ctx, addr, "events", "c", map[int32]int{0: 300, 1: 200, 2: 100})
	n, dur, err := ConsumeRate(ctx, addr, "events")
	if err != nil {
		t.Fatal(err)
	}
	if n != 600 || dur <= 0 {
		t.Errorf("ConsumeRate = %d in %v, want 600", n, dur)
	}
	n, dur, err = ReadRate(ctx, addr, "events")
	if err != nil {
		t.Fatal(err)
	}
	if n != 600 || dur <= 0 {
		t.Errorf("ReadRate = %d in %v, want 600", n, dur)
	}
}

// waitLatest calls LatestOffset until it moves past start.
func waitLatest(t *testing.T, ctx context.Context, src *Source, start source.Offset) source.Offset {
	t.Helper()
	for {
		end, err := src.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if end != start {
			return end
		}
		select {
		case <-ctx.Done():
			t.Fatalf("LatestOffset stayed at %s", start)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
