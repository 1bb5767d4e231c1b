package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// These tests hold the watermark to Spark 3.4+'s rules on one Kafka
// partition read two records per batch (maxOffsetsPerTrigger 2), so each
// batch's rows are known; every expected result is worked out by hand in
// the comments (or by brute force over the raw records), never taken from
// the engine.

// wmEnv is a one-partition topic "ev" and a session on it.
type wmEnv struct {
	t       *testing.T
	brokers string
	home    string
	s       *engine.Session
}

func newWMEnv(t *testing.T) *wmEnv {
	t.Helper()
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	home := t.TempDir()
	if err := stack.EnsureTopic(context.Background(), []string{b.Addr()}, "ev", 1); err != nil {
		t.Fatal(err)
	}
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).Config(engine.ConfKafkaBrokers, b.Addr()).GetOrCreate()
	t.Cleanup(s.Stop)
	return &wmEnv{t: t, brokers: b.Addr(), home: home, s: s}
}

// produce appends values to partition 0 in order; a nil value is a
// tombstone.
func (e *wmEnv) produce(values ...[]byte) {
	e.t.Helper()
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range values {
		r := &kgo.Record{Topic: "ev", Partition: 0, Value: v}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			e.t.Fatal(err)
		}
	}
}

// click is a valid event at hh:mm on 2026-11-30 (or at ts when it has a date).
func click(ts string) []byte {
	if !strings.Contains(ts, "T") {
		ts = "2026-11-30T" + ts + ":00Z"
	}
	return []byte(`{"event":"click","ts":"` + ts + `"}`)
}

// at is 2026-11-30 hh:mm UTC.
func at(hhmm string) time.Time {
	t, err := time.Parse("2006-01-02T15:04", "2026-11-30T"+hhmm)
	if err != nil {
		panic(err)
	}
	return t
}

const wmLateTable = "lakehouse.gold.wm_late"

// wmRun is what one run of the windowed count wrote: the windows each
// batch emitted (start "hh:mm" -> count; a replayed batch replaces its
// first offer) and the progress reports.
type wmRun struct {
	windows  map[int64]map[string]int64
	progress []engine.StreamingQueryProgress
	err      error
}

// runWM runs count per 5-minute window of "ev" with a 10-minute watermark,
// append mode, AvailableNow, two records per batch, keeping late rows in
// wmLateTable. failAt >= 0 makes the foreachBatch callback fail the first
// time it is offered that batch: the query stops after the batch's offsets
// entry is written and before its commit entry, as a crash would.
func (e *wmEnv) runWM(ck string, failAt int64, windows map[int64]map[string]int64, opts map[string]string) wmRun {
	e.t.Helper()
	raw := e.s.ReadStream().Format("kafka").
		Option("subscribe", "ev").
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 2).
		Load()
	events := raw.SelectExpr("CAST(value AS STRING) AS json").
		Select(engine.FromJSON(engine.Col("json"), "event string, ts timestamp").Alias("data")).
		Select("data.*")
	counts := events.WithWatermark("ts", "10 minutes").
		GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).
		Count()
	failed := false
	w := counts.WriteStream().OutputMode("append").
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", filepath.Join(e.home, ck)).
		Option("lateRowsTable", wmLateTable).
		Progress(false)
	for k, v := range opts {
		w = w.Option(k, v)
	}
	q, err := w.ForeachBatch(func(b *engine.DataFrame, id int64) error {
		if id == failAt && !failed {
			failed = true
			return fmt.Errorf("injected failure in batch %d", id)
		}
		rows, err := b.Rows(context.Background())
		if err != nil {
			return err
		}
		m := map[string]int64{}
		for _, r := range rows {
			start := r["window"].(engine.Row)["start"].(time.Time)
			m[start.UTC().Format("15:04")] += r["count"].(int64)
		}
		windows[id] = m
		return nil
	}).Start()
	if err != nil {
		e.t.Fatal(err)
	}
	err = q.AwaitTermination()
	return wmRun{windows: windows, progress: q.RecentProgress(), err: err}
}

// lateRows reads wmLateTable as "ts|batch|watermark|reason" strings, sorted
// (ts "null" for a null event time, times as hh:mm or in full past 2026).
func (e *wmEnv) lateRows() []string {
	e.t.Helper()
	var out []string
	for _, r := range rowsOf(e.t, e.s.Table(wmLateTable)) {
		ts := "null"
		if v, ok := r["ts"].(time.Time); ok {
			ts = hhmm(v)
		}
		out = append(out, fmt.Sprintf("%s|%d|%s|%v", ts, r["_batch_id"].(int64), hhmm(r["_watermark"].(time.Time)), r["_reason"]))
	}
	sort.Strings(out)
	return out
}

func hhmm(t time.Time) string {
	t = t.UTC()
	if t.Year() == 2026 && t.YearDay() == at("00:00").YearDay() {
		return t.Format("15:04")
	}
	if t.UnixMilli() == 0 {
		return "epoch"
	}
	return t.Format(time.RFC3339)
}

func sameWindows(t *testing.T, got, want map[int64]map[string]int64) {
	t.Helper()
	norm := func(m map[int64]map[string]int64) string {
		var parts []string
		for id, w := range m {
			if len(w) == 0 {
				continue
			}
			var ws []string
			for k, n := range w {
				ws = append(ws, fmt.Sprintf("%s=%d", k, n))
			}
			sort.Strings(ws)
			parts = append(parts, fmt.Sprintf("batch %d: %s", id, strings.Join(ws, " ")))
		}
		sort.Strings(parts)
		return strings.Join(parts, "; ")
	}
	if g, w := norm(got), norm(want); g != w {
		t.Fatalf("windows emitted:\n got %s\nwant %s", g, w)
	}
}

func sameStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func droppedByBatch(ps []engine.StreamingQueryProgress) map[int64]int64 {
	out := map[int64]int64{}
	for _, p := range ps {
		if n := p.StateOperators[0].NumRowsDroppedByWatermark; n > 0 {
			out[p.BatchID] = n
		}
	}
	return out
}

// TestLateRowsUsePreviousBatchWatermark is issue 8 item 3's repro. Spark
// 3.4+ (SPARK-40925): batch 0 = {10:00, 10:20} runs with watermark 0 and
// moves it to 10:20-10min = 10:10; batch 1 = {10:01} evicts with 10:10 but
// filters late rows with batch 0's watermark (0), so 10:01 joins window
// 10:00-10:05, which is then emitted with count 2. Nothing is late.
func TestLateRowsUsePreviousBatchWatermark(t *testing.T) {
	e := newWMEnv(t)
	e.produce(click("10:00"), click("10:20"), click("10:01"))
	r := e.runWM("ck", -1, map[int64]map[string]int64{}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	sameWindows(t, r.windows, map[int64]map[string]int64{1: {"10:00": 2}})
	sameStrings(t, "late rows", e.lateRows(), nil)
	if d := droppedByBatch(r.progress); len(d) != 0 {
		t.Fatalf("numRowsDroppedByWatermark %v, want none", d)
	}
	if len(r.progress) != 2 || r.progress[1].EventTime["watermark"] != "2026-11-30T10:10:00.000Z" {
		t.Fatalf("want 2 batches, the second with watermark 10:10; got %d: %+v", len(r.progress), r.progress)
	}
}

// The longer sequence of the next two tests, two records per batch, by
// Spark 3.4+'s rules (late filter: previous batch's watermark; eviction:
// the batch's own):
//
//	batch 0 {10:00 10:19}  late 0      evict 0      -> state 10:00=1 10:15=1; next wm 10:09
//	batch 1 {10:01 10:21}  late 0      evict 10:09  -> 10:01 joins 10:00; emits 10:00=2; next wm 10:11
//	batch 2 {10:03 10:07}  late 10:09  evict 10:11  -> 10:03 late (window ends 10:05 <= 10:09);
//	                                                  10:07 joins 10:05 (ends 10:10 > 10:09); emits 10:05=1
//
// The old rule (late filter with the batch's own watermark) drops 10:01
// and 10:07 instead.
var wmSequence = []string{"10:00", "10:19", "10:01", "10:21", "10:03", "10:07"}

var (
	wmWantWindows = map[int64]map[string]int64{1: {"10:00": 2}, 2: {"10:05": 1}}
	wmWantLate    = []string{"10:03|2|10:09|late"}
)

func produceSequence(e *wmEnv) {
	var vals [][]byte
	for _, ts := range wmSequence {
		vals = append(vals, click(ts))
	}
	e.produce(vals...)
}

func TestLateRowsTableHoldsRowsLateByPreviousWatermark(t *testing.T) {
	e := newWMEnv(t)
	produceSequence(e)
	r := e.runWM("ck", -1, map[int64]map[string]int64{}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	sameWindows(t, r.windows, wmWantWindows)
	sameStrings(t, "late rows", e.lateRows(), wmWantLate)
	if d := droppedByBatch(r.progress); len(d) != 1 || d[2] != 1 {
		t.Fatalf("numRowsDroppedByWatermark by batch %v, want batch 2: 1", d)
	}
}

// TestLateRowsReplayUsesLoggedWatermarks stops the query after batch 2's
// offsets entry is written and before its commit (the sink fails), then
// restarts it: the replay must judge late rows with batch 1's logged
// watermark (10:09), not its own (10:11) nor anything held in memory, and
// the result must be the uninterrupted run's.
func TestLateRowsReplayUsesLoggedWatermarks(t *testing.T) {
	e := newWMEnv(t)
	produceSequence(e)
	windows := map[int64]map[string]int64{}
	r := e.runWM("ck", 2, windows, nil)
	if r.err == nil || !strings.Contains(r.err.Error(), "injected failure in batch 2") {
		t.Fatalf("first run: err = %v, want the injected failure", r.err)
	}
	// A fresh run keeps its state in memory: every batch after the first
	// finds the previous version there, as Spark's loaded-map cache does.
	for _, p := range r.progress {
		wantCacheCounts(t, "first run", p, p.BatchID, 0)
	}
	ck := filepath.Join(e.home, "ck")
	if _, err := os.Stat(filepath.Join(ck, "offsets", "2")); err != nil {
		t.Fatalf("batch 2's offsets entry: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ck, "commits", "2")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("batch 2 must not be committed: %v", err)
	}
	r = e.runWM("ck", -1, windows, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.progress[0].BatchID != 2 {
		t.Fatalf("restart began at batch %d, want the replay of 2", r.progress[0].BatchID)
	}
	// The restart loads batch 1's state from the checkpoint once (a miss);
	// each later batch finds its predecessor in memory.
	for i, p := range r.progress {
		wantCacheCounts(t, "restart", p, int64(i), 1)
	}
	sameWindows(t, windows, wmWantWindows)
	sameStrings(t, "late rows", e.lateRows(), wmWantLate)
}

// TestNullEventTimesAreCounted: Spark's window() filters out rows whose
// event time is null, silently. Atlas follows (they join no window) and
// counts them, per batch, and keeps them in the late-rows table. Batches
// of two: {10:00, missing ts} {"{}", empty value} {tombstone, 10:01}.
func TestNullEventTimesAreCounted(t *testing.T) {
	e := newWMEnv(t)
	e.produce(click("10:00"), []byte(`{"event":"click"}`), []byte(`{}`), []byte{}, nil, click("10:01"))
	r := e.runWM("ck", -1, map[int64]map[string]int64{}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := map[int64]int64{}
	for _, p := range r.progress {
		if n := p.ObservedMetrics["numRowsWithNullEventTime"]; n > 0 {
			got[p.BatchID] = n
		}
	}
	if want := map[int64]int64{0: 1, 1: 2, 2: 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("numRowsWithNullEventTime by batch %v, want %v", got, want)
	}
	if d := droppedByBatch(r.progress); len(d) != 0 {
		t.Fatalf("null event times counted as dropped by watermark: %v", d)
	}
	// Watermarks for late events: batch 0 and 1 run with 0 (batch 0's
	// max 10:00 - 10 min = 09:50 is batch 1's own watermark).
	sameStrings(t, "late rows", e.lateRows(), []string{
		"null|0|epoch|null_event_time", "null|1|epoch|null_event_time", "null|1|epoch|null_event_time", "null|2|09:50|null_event_time",
	})
	// Nothing closes a window (the watermark ends at 09:51), so nothing is emitted.
	sameWindows(t, r.windows, nil)
}

// farFuture is within Spark's timestamp range (which ends 294247-01-10).
const farFuture = "294247-01-01T00:00:00Z"

// The far-future sequence, two per batch: {10:00, year 294247} {10:01
// 10:06} {10:12 10:30}.
var farSequence = []string{"10:00", farFuture, "10:01", "10:06", "10:12", "10:30"}

func produceFar(e *wmEnv) {
	var vals [][]byte
	for _, ts := range farSequence {
		vals = append(vals, click(ts))
	}
	e.produce(vals...)
}

// TestFarFutureEventTimeKeepsSparksRuleAndWarns: by Spark's rule batch 0
// moves the watermark to 294247-01-01 - 10 min. Batch 1 still filters
// with batch 0's watermark (0): 10:01 and 10:06 join their windows, and
// eviction at the far watermark emits 10:00=2 10:05=1. Batch 2 filters
// with the far watermark: 10:12 and 10:30 are late. Batch 0 carries the
// warning, naming the event time and both watermarks.
func TestFarFutureEventTimeKeepsSparksRuleAndWarns(t *testing.T) {
	e := newWMEnv(t)
	produceFar(e)
	r := e.runWM("ck", -1, map[int64]map[string]int64{}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	sameWindows(t, r.windows, map[int64]map[string]int64{1: {"10:00": 2, "10:05": 1}})
	farWM := "294246-12-31T23:50:00Z"
	sameStrings(t, "late rows", e.lateRows(), []string{"10:12|2|" + farWM + "|late", "10:30|2|" + farWM + "|late"})
	w := r.progress[0].WatermarkWarning
	if w == nil || w.MaxEventTime != "294247-01-01T00:00:00.000Z" || w.OldWatermark != "1970-01-01T00:00:00.000Z" || w.NewWatermark != "294246-12-31T23:50:00.000Z" {
		t.Fatalf("batch 0 watermarkWarning = %+v", w)
	}
	for _, p := range r.progress[1:] {
		if p.WatermarkWarning != nil {
			t.Errorf("batch %d warns again: %+v", p.BatchID, p.WatermarkWarning)
		}
	}
	if n := r.progress[0].ObservedMetrics["numRowsWithFutureEventTime"]; n != 1 {
		t.Errorf("batch 0 numRowsWithFutureEventTime = %d, want 1", n)
	}
}

// TestEventTimeMaxAheadKeepsFutureRowsOutOfWatermark: with the option the
// year-294247 row is kept out of the watermark and the aggregation (late
// table, reason future_event_time). The emitted windows then equal a brute
// force over the raw records: count the other rows per window, and keep
// the windows that end by the final watermark, max(event time) - 10 min.
func TestEventTimeMaxAheadKeepsFutureRowsOutOfWatermark(t *testing.T) {
	e := newWMEnv(t)
	produceFar(e)
	r := e.runWM("ck", -1, map[int64]map[string]int64{}, map[string]string{"eventTimeMaxAheadOfProcessing": "1 day"})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := map[string]int64{}
	var maxTS time.Time
	var kept []time.Time
	for _, s := range farSequence {
		ts := time.Date(294247, 1, 1, 0, 0, 0, 0, time.UTC) // time.Parse reads 4-digit years only
		if s != farFuture {
			ts = at(s)
		}
		if ts.After(time.Now().Add(24 * time.Hour)) {
			continue
		}
		kept = append(kept, ts)
		if ts.After(maxTS) {
			maxTS = ts
		}
	}
	final := maxTS.Add(-10 * time.Minute)
	for _, ts := range kept {
		if start := ts.Truncate(5 * time.Minute); !start.Add(5 * time.Minute).After(final) {
			want[start.Format("15:04")]++
		}
	}
	got := map[string]int64{}
	for _, w := range r.windows {
		for k, n := range w {
			if _, dup := got[k]; dup {
				t.Fatalf("window %s emitted twice", k)
			}
			got[k] = n
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 3 {
		t.Fatalf("windows %v, brute force %v", got, want)
	}
	sameStrings(t, "late rows", e.lateRows(), []string{farFuture + "|0|epoch|future_event_time"})
	var future int64
	for _, p := range r.progress {
		future += p.ObservedMetrics["numRowsWithFutureEventTime"]
		if p.WatermarkWarning != nil {
			t.Errorf("batch %d warns: %+v", p.BatchID, p.WatermarkWarning)
		}
	}
	if future != 1 {
		t.Errorf("numRowsWithFutureEventTime sums to %d, want 1", future)
	}
}

// TestLegacyLateTableKeepsItsColumns: a late-rows table created before the
// _reason column existed is written in its own shape, not broken.
func TestLegacyLateTableKeepsItsColumns(t *testing.T) {
	e := newWMEnv(t)
	ctx := context.Background()
	lh, err := e.s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tsType := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	legacy := arrow.NewSchema([]arrow.Field{
		{Name: "event", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: tsType, Nullable: true},
		{Name: "_batch_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_watermark", Type: tsType},
	}, nil)
	if _, err := lh.CreateTable(ctx, wmLateTable, legacy, lakehouse.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	produceSequence(e)
	r := e.runWM("ck", -1, map[int64]map[string]int64{}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	sameWindows(t, r.windows, wmWantWindows)
	rows := rowsOf(t, e.s.Table(wmLateTable))
	if len(rows) != 1 {
		t.Fatalf("late rows %v, want one", rows)
	}
	if _, has := rows[0]["_reason"]; has || hhmm(rows[0]["ts"].(time.Time)) != "10:03" || hhmm(rows[0]["_watermark"].(time.Time)) != "10:09" {
		t.Fatalf("late row %v, want 10:03 behind 10:09 without _reason", rows[0])
	}
}

// wantCacheCounts checks the state store customMetrics of every operator
// of p: hits and misses of the loaded-map cache, and the current
// version's size equal to memoryUsedBytes.
func wantCacheCounts(t *testing.T, what string, p progress.StreamingQueryProgress, hits, misses int64) {
	t.Helper()
	if len(p.StateOperators) == 0 {
		t.Fatalf("%s, batch %d: no state operator", what, p.BatchID)
	}
	for _, op := range p.StateOperators {
		got := [3]int64{op.CustomMetrics[progress.MetricLoadedMapCacheHit], op.CustomMetrics[progress.MetricLoadedMapCacheMiss], op.CustomMetrics[progress.MetricStateOnCurrentVersionSize]}
		if want := [3]int64{hits, misses, op.MemoryUsedBytes}; got != want {
			t.Errorf("%s, batch %d, %s: customMetrics hit/miss/size %v, want %v", what, p.BatchID, op.OperatorName, got, want)
		}
	}
}
