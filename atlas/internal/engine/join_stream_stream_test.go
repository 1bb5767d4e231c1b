package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// The ad-impressions and clicks example of Spark's Structured Streaming
// programming guide: impressions (watermark 2 hours) joined with clicks
// (watermark 3 hours) on the ad id and clickTime BETWEEN impressionTime
// AND impressionTime + 1 hour. Each topic has one partition read two
// records per batch (maxOffsetsPerTrigger 2), so every batch is known:
//
//	batch  impressions          clicks
//	0      i1 ad1 10:00, i2 ad2 10:05   c1 ad1 10:20, c2 ad2 11:30
//	1      i3 ad3 10:10, i4 ad4 11:00   c3 ad4 11:40, c4 ad9 14:00
//	2      i5 ad5 15:00, i6 ad6 16:00   c5 ad5 15:30, c6 ad1 19:00
//	3      i7 ad7 20:00                 c7 ad8 23:00, c8 ad3 10:30
//	4      -                            c9 ad1 08:30
//
// Watermarks (each side: max event time - delay; global: the minimum):
// after batch 0 min(08:05, 08:30) = 08:05; after 1 min(09:00, 11:00) =
// 09:00; after 2 min(14:00, 16:00) = 14:00; after 3 min(18:00, 20:00) =
// 18:00; batch N evicts with the watermark after N-1 and drops input late
// by the one after N-2 (Spark 3.4+). From the condition, Spark's
// getStateValueWatermark gives the impressions' state watermark W - 1 hour
// - 1 ms and the clicks' W - 1 ms.
//
//	batch 0: c1 joins i1                          -> (i1, c1)
//	batch 1: c3 joins i4                          -> (i4, c3)
//	batch 2: c5 joins i5                          -> (i5, c5)
//	batch 3 (W 14:00, late <= 09:00): c8 (10:30) is not late and joins i3,
//	         still kept (10:10 > 08:00 - 1 ms)    -> (i3, c8)
//	         impressions <= 12:59:59.999 leave the state: i1..i4 (4 rows),
//	         i2 never matched                     -> left outer: (i2, null)
//	         clicks <= 13:59:59.999 leave: c1, c2, c3 (3 rows); c8 is
//	         already below it and is not kept
//	batch 4 (W 18:00, late <= 14:00): c9 (08:30) is late: dropped, counted
//	         impressions <= 16:59:59.999 leave: i5, i6 -> left outer: (i6, null)
//	         clicks <= 17:59:59.999 leave: c4, c5
//	state left: i7, c6, c7 (3 rows); the watermark stays at 18:00, so no
//	further batch runs.
var (
	adImpressions = []string{"1 10:00", "2 10:05", "3 10:10", "4 11:00", "5 15:00", "6 16:00", "7 20:00"}
	adClicks      = []string{"1 10:20", "2 11:30", "4 11:40", "9 14:00", "5 15:30", "1 19:00", "8 23:00", "3 10:30", "1 08:30"}
	innerPairs    = []string{"1 10:00 1 10:20", "4 11:00 4 11:40", "5 15:00 5 15:30", "3 10:10 3 10:30"}
	outerRows     = []string{"2 10:05 null null", "6 16:00 null null"}
)

func produceAds(t *testing.T, brokers, topic, field string, rows []string) {
	t.Helper()
	ctx := context.Background()
	if err := stack.EnsureTopic(ctx, []string{brokers}, topic, 1); err != nil {
		t.Fatal(err)
	}
	cl, err := stack.NewClient([]string{brokers})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, r := range rows {
		var ad int
		var hhmm string
		fmt.Sscanf(r, "%d %s", &ad, &hhmm)
		v := fmt.Sprintf(`{"adId": %d, %q: "2026-11-30T%s:00Z"}`, ad, field, hhmm)
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

type adsEnv struct {
	t    *testing.T
	home string
	s    *engine.Session
}

func newAdsEnv(t *testing.T) *adsEnv {
	t.Helper()
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	produceAds(t, b.Addr(), "impressions", "impressionTime", adImpressions)
	produceAds(t, b.Addr(), "clicks", "clickTime", adClicks)
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).Config(engine.ConfKafkaBrokers, b.Addr()).GetOrCreate()
	t.Cleanup(s.Stop)
	return &adsEnv{t: t, home: home, s: s}
}

// joined is the guide's query; cond is the join condition.
func (e *adsEnv) joined(cond engine.Column, how string) *engine.DataFrame {
	read := func(topic, field string) *engine.DataFrame {
		return e.s.ReadStream().Format("kafka").Option("subscribe", topic).
			Option("startingOffsets", "earliest").Option("maxOffsetsPerTrigger", 2).Load().
			Select(engine.FromJSON(engine.Col("value").Cast("string"), "adId long, "+field+" timestamp").Alias("j")).
			Select("j.*")
	}
	impressions := read("impressions", "impressionTime").WithColumnRenamed("adId", "impressionAdId").
		WithWatermark("impressionTime", "2 hours")
	clicks := read("clicks", "clickTime").WithColumnRenamed("adId", "clickAdId").
		WithWatermark("clickTime", "3 hours")
	return impressions.Join(clicks, cond, how)
}

// guideCondition is the guide's condition built from Columns.
func guideCondition() engine.Column {
	return engine.Col("clickAdId").Eq(engine.Col("impressionAdId")).
		And(engine.Col("clickTime").Geq(engine.Col("impressionTime"))).
		And(engine.Col("clickTime").Leq(engine.Col("impressionTime").Plus(engine.Lit(time.Hour))))
}

type adsRun struct {
	batches  map[int64][]string
	progress []engine.StreamingQueryProgress
	err      error
}

// run runs df to the end of the data (AvailableNow) on checkpoint ck;
// failAt >= 0 fails the first offer of that batch, after its offsets entry
// is written and before its commit, as a crash would.
func (e *adsEnv) run(df *engine.DataFrame, ck string, failAt int64, batches map[int64][]string) adsRun {
	e.t.Helper()
	failed := false
	q, err := df.WriteStream().OutputMode("append").Trigger(engine.AvailableNow()).Progress(false).
		Option("checkpointLocation", filepath.Join(e.home, ck)).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			if id == failAt && !failed {
				failed = true
				return fmt.Errorf("injected failure in batch %d", id)
			}
			rows, err := b.Rows(context.Background())
			if err != nil {
				return err
			}
			var out []string
			for _, r := range rows {
				out = append(out, adRow(r))
			}
			sort.Strings(out)
			batches[id] = out
			return nil
		}).Start()
	if err != nil {
		e.t.Fatal(err)
	}
	err = q.AwaitTermination()
	return adsRun{batches: batches, progress: q.RecentProgress(), err: err}
}

func adRow(r engine.Row) string {
	f := func(v any) string {
		switch x := v.(type) {
		case nil:
			return "null"
		case time.Time:
			return x.UTC().Format("15:04")
		}
		return fmt.Sprint(v)
	}
	return strings.Join([]string{f(r["impressionAdId"]), f(r["impressionTime"]), f(r["clickAdId"]), f(r["clickTime"])}, " ")
}

func allRows(batches map[int64][]string) []string {
	var out []string
	for _, rows := range batches {
		out = append(out, rows...)
	}
	sort.Strings(out)
	return out
}

func sortedCopy(xs ...[]string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x...)
	}
	sort.Strings(out)
	return out
}

func TestStreamStreamLeftOuterJoinGuideExample(t *testing.T) {
	e := newAdsEnv(t)
	full := e.run(e.joined(guideCondition(), "leftOuter"), "ck-full", -1, map[int64][]string{})
	if full.err != nil {
		t.Fatal(full.err)
	}
	want := map[int64][]string{
		0: {"1 10:00 1 10:20"},
		1: {"4 11:00 4 11:40"},
		2: {"5 15:00 5 15:30"},
		3: sortedCopy([]string{"3 10:10 3 10:30", "2 10:05 null null"}),
		4: {"6 16:00 null null"},
	}
	if fmt.Sprint(full.batches) != fmt.Sprint(want) {
		t.Fatalf("per batch:\ngot  %v\nwant %v", full.batches, want)
	}
	if got, ref := allRows(full.batches), sortedCopy(innerPairs, outerRows); fmt.Sprint(got) != fmt.Sprint(ref) {
		t.Fatalf("rows: got %v, want %v", got, ref)
	}

	// Progress: the join's state operator, its eviction and late rows.
	type figures struct{ total, updated, removed, dropped int64 }
	wantOps := []figures{{4, 4, 0, 0}, {8, 4, 0, 0}, {12, 4, 0, 0}, {7, 2, 7, 0}, {3, 0, 4, 1}}
	if len(full.progress) != len(wantOps) {
		t.Fatalf("%d batches ran, want %d", len(full.progress), len(wantOps))
	}
	for i, p := range full.progress {
		if len(p.StateOperators) != 1 || p.StateOperators[0].OperatorName != "symmetricHashJoin" {
			t.Fatalf("batch %d: state operators %+v, want one symmetricHashJoin", i, p.StateOperators)
		}
		op := p.StateOperators[0]
		got := figures{op.NumRowsTotal, op.NumRowsUpdated, op.NumRowsRemoved, op.NumRowsDroppedByWatermark}
		if got != wantOps[i] {
			t.Fatalf("batch %d: state total/updated/removed/dropped %+v, want %+v", i, got, wantOps[i])
		}
		if len(p.Sources) != 2 {
			t.Fatalf("batch %d: %d sources in progress, want 2", i, len(p.Sources))
		}
	}
	wms := []string{"1970-01-01T00:00:00.000Z", "2026-11-30T08:05:00.000Z", "2026-11-30T09:00:00.000Z", "2026-11-30T14:00:00.000Z", "2026-11-30T18:00:00.000Z"}
	for i, p := range full.progress {
		if p.EventTime["watermark"] != wms[i] {
			t.Fatalf("batch %d: watermark %s, want %s", i, p.EventTime["watermark"], wms[i])
		}
	}

	// A restart in the middle: batch 3 fails after its offsets entry is
	// written; the restarted query replays it from the checkpoint (state
	// version 2) and ends with the same rows as the uninterrupted run.
	batches := map[int64][]string{}
	first := e.run(e.joined(guideCondition(), "leftOuter"), "ck-restart", 3, batches)
	if first.err == nil || !strings.Contains(first.err.Error(), "injected failure in batch 3") {
		t.Fatalf("first run: %v, want the injected failure", first.err)
	}
	if len(batches) != 3 {
		t.Fatalf("before the failure %d batches were written, want 3", len(batches))
	}
	second := e.run(e.joined(guideCondition(), "leftOuter"), "ck-restart", -1, batches)
	if second.err != nil {
		t.Fatal(second.err)
	}
	if fmt.Sprint(batches) != fmt.Sprint(want) {
		t.Fatalf("after a restart:\ngot  %v\nwant %v", batches, want)
	}
	if n := len(second.progress); n != 2 || second.progress[0].BatchID != 3 {
		t.Fatalf("the restart ran %d batches from %v, want batches 3 and 4", n, second.progress)
	}
}

func TestStreamStreamInnerJoinGuideExample(t *testing.T) {
	e := newAdsEnv(t)
	// The guide's expr("clickAdId = impressionAdId AND clickTime >= impressionTime AND clickTime <= impressionTime + interval 1 hour").
	cond := engine.Expr("clickAdId = impressionAdId AND clickTime >= impressionTime AND clickTime <= impressionTime + interval 1 hour")
	run := e.run(e.joined(cond, "inner"), "ck-inner", -1, map[int64][]string{})
	if run.err != nil {
		t.Fatal(run.err)
	}
	if got := allRows(run.batches); fmt.Sprint(got) != fmt.Sprint(sortedCopy(innerPairs)) {
		t.Fatalf("inner join: got %v, want %v", got, sortedCopy(innerPairs))
	}
	last := run.progress[len(run.progress)-1].StateOperators[0]
	if last.NumRowsTotal != 3 || last.NumRowsDroppedByWatermark != 1 {
		t.Fatalf("inner join state at the end %+v, want 3 rows kept and 1 late row dropped", last)
	}
}

// TestStreamStreamRightAndFullOuterJoins: the same example with the sides
// swapped (clicks right outer impressions gives the left outer rows), and
// a full outer join, which also emits the clicks that never matched once
// the clicks' state watermark passes them: c2 (11:30) leaves in batch 3,
// c4 (14:00) in batch 4; c8 matched i3 and c9 was late.
func TestStreamStreamRightAndFullOuterJoins(t *testing.T) {
	e := newAdsEnv(t)
	// Swapped: clicks on the left, impressions on the right.
	read := func(topic, field, idName string, delay string) *engine.DataFrame {
		return e.s.ReadStream().Format("kafka").Option("subscribe", topic).
			Option("startingOffsets", "earliest").Option("maxOffsetsPerTrigger", 2).Load().
			Select(engine.FromJSON(engine.Col("value").Cast("string"), "adId long, "+field+" timestamp").Alias("j")).
			Select("j.*").WithColumnRenamed("adId", idName).WithWatermark(field, delay)
	}
	clicks := read("clicks", "clickTime", "clickAdId", "3 hours")
	impressions := read("impressions", "impressionTime", "impressionAdId", "2 hours")
	right := e.run(clicks.Join(impressions, guideCondition(), "right_outer"), "ck-right", -1, map[int64][]string{})
	if right.err != nil {
		t.Fatal(right.err)
	}
	if got, want := allRows(right.batches), sortedCopy(innerPairs, outerRows); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("right outer join: got %v, want %v", got, want)
	}
	full := e.run(e.joined(guideCondition(), "full_outer"), "ck-fullouter", -1, map[int64][]string{})
	if full.err != nil {
		t.Fatal(full.err)
	}
	want := sortedCopy(innerPairs, outerRows, []string{"null null 2 11:30", "null null 9 14:00"})
	if got := allRows(full.batches); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("full outer join: got %v, want %v", got, want)
	}
	if got := full.batches[3]; !strings.Contains(fmt.Sprint(got), "null null 2 11:30") {
		t.Fatalf("batch 3 of the full outer join %v should emit the unmatched click c2", got)
	}
}

// TestStreamStreamJoinQualifiedBetween writes the condition as the issue
// does, over two streams with the same column names told apart by their
// aliases: clicks.ts BETWEEN impressions.ts AND impressions.ts + INTERVAL
// 1 HOUR. The state watermarks come out as with distinct names: the same
// rows, the same eviction.
func TestStreamStreamJoinQualifiedBetween(t *testing.T) {
	e := newAdsEnv(t)
	read := func(topic, field, delay string) *engine.DataFrame {
		return e.s.ReadStream().Format("kafka").Option("subscribe", topic).
			Option("startingOffsets", "earliest").Option("maxOffsetsPerTrigger", 2).Load().
			Select(engine.FromJSON(engine.Col("value").Cast("string"), "adId long, "+field+" timestamp").Alias("j")).
			Select(engine.Col("j.adId"), engine.Col("j."+field).Alias("ts")).WithWatermark("ts", delay).Alias(topic)
	}
	cond := engine.Expr("clicks.adId = impressions.adId AND clicks.ts BETWEEN impressions.ts AND impressions.ts + INTERVAL 1 HOUR")
	df := read("impressions", "impressionTime", "2 hours").Join(read("clicks", "clickTime", "3 hours"), cond, "left").
		Select(engine.Col("impressions.adId").Alias("impressionAdId"), engine.Col("impressions.ts").Alias("impressionTime"),
			engine.Col("clicks.adId").Alias("clickAdId"), engine.Col("clicks.ts").Alias("clickTime"))
	run := e.run(df, "ck-qualified", -1, map[int64][]string{})
	if run.err != nil {
		t.Fatal(run.err)
	}
	if got, want := allRows(run.batches), sortedCopy(innerPairs, outerRows); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("qualified BETWEEN join: got %v, want %v", got, want)
	}
	if got := run.batches[4]; fmt.Sprint(got) != "[6 16:00 null null]" {
		t.Fatalf("batch 4 emitted %v, want the unmatched impression ad 6", got)
	}
}
