package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// env is one test's broker and lakehouse.
type env struct {
	t       *testing.T
	brokers string
	home    string
	session *engine.Session
}

func newEnv(t *testing.T) *env {
	t.Helper()
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).Config(engine.ConfKafkaBrokers, b.Addr()).GetOrCreate()
	t.Cleanup(s.Stop)
	return &env{t: t, brokers: b.Addr(), home: home, session: s}
}

func (e *env) produceEvents(cfg produce.EventsConfig) {
	e.t.Helper()
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	if err := stack.EnsureTopic(context.Background(), []string{e.brokers}, cfg.Topic, 3); err != nil {
		e.t.Fatal(err)
	}
	if _, err := produce.ProduceEvents(context.Background(), cl, cfg, nil); err != nil {
		e.t.Fatal(err)
	}
}

// kafkaRecord is a record read back from the broker with a plain client.
type kafkaRecord struct {
	partition int32
	offset    int64
	value     []byte
}

func (e *env) readTopic(topic string) map[int32][]kafkaRecord {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out := map[int32][]kafkaRecord{}
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			out[r.Partition] = append(out[r.Partition], kafkaRecord{r.Partition, r.Offset, r.Value})
		})
	}
	return out
}

// eventsQuery is scenario 1 as a notebook writes it.
func eventsQuery(s *engine.Session, maxPerTrigger int) *engine.DataFrame {
	return eventsQueryWith(s, maxPerTrigger, nil)
}

// eventsQueryWith is eventsQuery with more Kafka source options.
func eventsQueryWith(s *engine.Session, maxPerTrigger int, opts map[string]string) *engine.DataFrame {
	raw := s.ReadStream().Format("kafka").
		Option("subscribe", "events").
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", maxPerTrigger).
		Options(opts).
		Load()
	events := raw.SelectExpr("CAST(value AS STRING) AS json").
		Select(engine.FromJSON(engine.Col("json"), "user_id string, event string, ts timestamp").Alias("data")).
		Select("data.*")
	return events.WithWatermark("ts", "10 minutes").
		GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).
		Count().
		Select(engine.Col("event"), engine.Col("window.start").Alias("window_start"), engine.Col("window.end").Alias("window_end"), engine.Col("count"))
}

type windowKey struct {
	event string
	start time.Time
}

// referenceWindows recomputes scenario 1 from the raw Kafka records with
// Spark's rules, given the engine's batch boundaries (from the progress
// reports): rows whose window ended at or before the previous batch's
// watermark are dropped (Spark 3.4+, SPARK-40925: late rows are judged by
// the previous batch's watermark); a window is emitted once the batch's
// own watermark reaches its end; the watermark after a batch is max(event
// time) - 10 minutes, never going back.
//
// It also returns the late rows as a multiset of lateRow strings: the
// rows lateRowsTable must hold.
func referenceWindows(t *testing.T, recs map[int32][]kafkaRecord, batches []engine.StreamingQueryProgress) (map[windowKey]int64, int64, map[string]int) {
	t.Helper()
	const size = 5 * time.Minute
	counts := map[windowKey]int64{}
	emitted := map[windowKey]int64{}
	late := map[string]int{}
	wm := time.UnixMilli(0) // zero watermark: nothing is late in the first batch
	prevWM := wm
	var dropped int64
	for _, b := range batches {
		lateWM := prevWM // the previous batch's watermark (0 for the first)
		prevWM = wm
		var start, end map[string]map[string]int64
		json.Unmarshal(b.Sources[0].StartOffset, &start)
		json.Unmarshal(b.Sources[0].EndOffset, &end)
		bwm, _ := time.Parse("2006-01-02T15:04:05.000Z", b.EventTime["watermark"])
		if !bwm.Equal(wm) {
			t.Fatalf("batch %d ran with watermark %s, reference says %s", b.BatchID, bwm, wm)
		}
		var maxTS time.Time
		for p, list := range recs {
			ps := fmt.Sprint(p)
			from, to := start["events"][ps], end["events"][ps]
			for _, r := range list {
				if r.offset < from || r.offset >= to {
					continue
				}
				var ev struct {
					UserID *string `json:"user_id"`
					Event  *string `json:"event"`
					TS     *string `json:"ts"`
				}
				if json.Unmarshal(r.value, &ev) != nil || ev.TS == nil || ev.Event == nil {
					// malformed: counted by the engine, never aggregated; no
					// event time, so kept as null_event_time, not late
					late[nullTimeRow(b.BatchID)]++
					continue
				}
				ts, err := time.Parse(time.RFC3339Nano, *ev.TS)
				if err != nil {
					continue
				}
				ws := ts.Truncate(size)
				if !ws.Add(size).After(lateWM) {
					dropped++
					user := "<nil>"
					if ev.UserID != nil {
						user = *ev.UserID
					}
					late[lateRow(user, *ev.Event, ts.Truncate(time.Microsecond), b.BatchID, lateWM)]++
					continue
				}
				counts[windowKey{*ev.Event, ws}]++
				if ts.After(maxTS) {
					maxTS = ts
				}
			}
		}
		for k, n := range counts {
			if !k.start.Add(size).After(wm) {
				if _, dup := emitted[k]; dup {
					t.Fatalf("reference emitted %v twice", k)
				}
				emitted[k] = n
				delete(counts, k)
			}
		}
		if !maxTS.IsZero() {
			if next := maxTS.Truncate(time.Millisecond).Add(-10 * time.Minute); next.After(wm) {
				wm = next
			}
		}
	}
	return emitted, dropped, late
}

// lateRow is one row of the late-rows table as a comparable string.
func lateRow(user, event string, ts time.Time, batchID int64, wm time.Time) string {
	return fmt.Sprintf("%s|%s|%s|batch %d|wm %s", user, event, ts.UTC().Format(time.RFC3339Nano), batchID, wm.UTC().Format(time.RFC3339Nano))
}

// nullTimeRow stands for a row of the late-rows table kept for its null
// event time: its other columns depend on how far from_json got.
func nullTimeRow(batchID int64) string {
	return fmt.Sprintf("null_event_time|batch %d", batchID)
}

// eventsLateTable keeps scenario 1's late rows in the tests.
const eventsLateTable = "lakehouse.gold.event_windows_late"

// readLateRows reads the late-rows table as a multiset of lateRow strings.
func readLateRows(t *testing.T, s *engine.Session) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, r := range rowsOf(t, s.Table(eventsLateTable)) {
		if r["_reason"] == "null_event_time" && r["ts"] == nil {
			out[nullTimeRow(r["_batch_id"].(int64))]++
			continue
		}
		if r["_reason"] != "late" {
			t.Fatalf("late-rows table row %v: _reason %v, want late or null_event_time", r, r["_reason"])
		}
		user := "<nil>"
		if u, ok := r["user_id"].(string); ok {
			user = u
		}
		out[lateRow(user, r["event"].(string), r["ts"].(time.Time), r["_batch_id"].(int64), r["_watermark"].(time.Time))]++
	}
	return out
}

// diffLate compares the late-rows table with the reference multiset,
// which must not be empty.
func diffLate(t *testing.T, got, want map[string]int) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("the reference holds no late rows: the test needs some")
	}
	diffMaps(t, "late row", got, want, func(k string) string { return k })
}

// diffMaps fails t when a table read back (got) differs from its reference
// (want): it names up to 10 differing keys, in label order, then how many.
func diffMaps[K, V comparable](t *testing.T, what string, got, want map[K]V, label func(K) string) {
	t.Helper()
	var bad []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s %s: table has none, reference %v", what, label(k), w))
		} else if g != w {
			bad = append(bad, fmt.Sprintf("%s %s: table %v, reference %v", what, label(k), g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s %s: table %v, reference has none", what, label(k), g))
		}
	}
	sort.Strings(bad)
	for _, b := range bad[:min(10, len(bad))] {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Fatalf("%d %ss differ (table %d, reference %d)", len(bad), what, len(got), len(want))
	}
}

func readWindows(t *testing.T, s *engine.Session) map[windowKey]int64 {
	t.Helper()
	df := s.Table("lakehouse.gold.event_windows")
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[windowKey]int64{}
	for _, r := range rows {
		k := windowKey{r["event"].(string), r["window_start"].(time.Time)}
		if _, dup := out[k]; dup {
			t.Fatalf("window %v appears twice in the table", k)
		}
		if end := r["window_end"].(time.Time); !end.Equal(k.start.Add(5 * time.Minute)) {
			t.Fatalf("window %v ends at %s", k, end)
		}
		out[k] = r["count"].(int64)
	}
	return out
}

func diffWindows(t *testing.T, got, want map[windowKey]int64) {
	t.Helper()
	diffMaps(t, "window", got, want, func(k windowKey) string { return k.start.Format(time.RFC3339) + " " + k.event })
}

func runEvents(t *testing.T, e *env, maxPerTrigger int, name string) *engine.StreamingQuery {
	t.Helper()
	q, err := eventsQuery(e.session, maxPerTrigger).WriteStream().
		OutputMode("append").
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", filepath.Join(e.home, "ck", name)).
		Option("lateRowsTable", eventsLateTable).
		Progress(false).
		ToTable("lakehouse.gold.event_windows")
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestEventWindowsMatchReference(t *testing.T) {
	e := newEnv(t)
	cfg := produce.EventsConfig{Topic: "events", Count: 20000, Seed: 7, Span: 2 * time.Hour, OutOfOrder: 0.1, Late: 0.03, Duplicates: 0.01, Malformed: 0.005}
	e.produceEvents(cfg)
	q := runEvents(t, e, 2500, "run")
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	progress := q.RecentProgress()
	if len(progress) < 8 {
		t.Fatalf("expected at least 8 batches of <= 2500 rows for 20000 rows, got %d", len(progress))
	}
	var dropped, malformed, nullTime, input int64
	for _, p := range progress {
		if p.NumInputRows > 2500 {
			t.Errorf("batch %d read %d rows, over maxOffsetsPerTrigger", p.BatchID, p.NumInputRows)
		}
		input += p.NumInputRows
		dropped += p.StateOperators[0].NumRowsDroppedByWatermark
		malformed += p.ObservedMetrics["numMalformedRows"]
		nullTime += p.ObservedMetrics["numRowsWithNullEventTime"]
	}
	if input != cfg.Count {
		t.Errorf("read %d rows, produced %d", input, cfg.Count)
	}
	want, wantDropped, wantLate := referenceWindows(t, e.readTopic("events"), progress)
	got := readWindows(t, e.session)
	diffWindows(t, got, want)
	diffLate(t, readLateRows(t, e.session), wantLate)
	if dropped != wantDropped || dropped == 0 {
		t.Errorf("dropped %d late rows, reference %d (want > 0)", dropped, wantDropped)
	}
	if malformed == 0 {
		t.Errorf("no malformed rows counted")
	}
	// Malformed records reach the aggregation without an event time.
	var wantNull int64
	for k, n := range wantLate {
		if strings.HasPrefix(k, "null_event_time|") {
			wantNull += int64(n)
		}
	}
	if nullTime != wantNull || nullTime == 0 {
		t.Errorf("numRowsWithNullEventTime sums to %d, reference %d (want > 0)", nullTime, wantNull)
	}
	// The table's snapshots carry the query id and batch ids; a batch that
	// wrote no row commits no snapshot.
	lh, _ := e.session.Lakehouse(context.Background())
	tbl, _ := lh.LoadTable(context.Background(), "lakehouse.gold.event_windows")
	last, ok, err := tbl.LastCommittedBatch(context.Background(), q.ID())
	wantLast := int64(-1)
	for _, p := range progress {
		if p.Sink.NumOutputRows > 0 {
			wantLast = p.BatchID
		}
	}
	if err != nil || !ok || last != wantLast {
		t.Errorf("last committed batch = %d, %v, %v; want %d (the last that wrote rows)", last, ok, err, wantLast)
	}
}

func TestEventWindowsRestartExactlyOnce(t *testing.T) {
	e := newEnv(t)
	cfg := produce.EventsConfig{Topic: "events", Count: 12000, Seed: 11, Span: 90 * time.Minute, OutOfOrder: 0.1, Late: 0.02}
	e.produceEvents(cfg)
	var all []engine.StreamingQueryProgress
	// Run a few batches, stop mid-stream.
	q := runEvents(t, e, 1000, "ck")
	for q.IsActive() {
		if p := q.LastProgress(); p != nil && p.BatchID >= 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	all = append(all, q.RecentProgress()...)
	// Simulate a crash after the sink commit but before the commit log:
	// drop the last commit entry; the restart must replay that batch and
	// the Iceberg sink must skip it.
	last := all[len(all)-1].BatchID
	if err := os.Remove(filepath.Join(e.home, "ck", "ck", "commits", fmt.Sprint(last))); err != nil {
		t.Fatal(err)
	}
	// An offsets entry planned after it (abandoned by Stop) cannot exist in
	// that crash: batch N+1 is planned only after N's commit entry.
	os.Remove(filepath.Join(e.home, "ck", "ck", "offsets", fmt.Sprint(last+1)))
	all = all[:len(all)-1]
	q2 := runEvents(t, e, 1000, "ck")
	if err := q2.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if q2.ID() != q.ID() {
		t.Fatalf("restart changed the query id: %s -> %s", q.ID(), q2.ID())
	}
	p2 := q2.RecentProgress()
	if p2[0].BatchID != last {
		t.Fatalf("restart began at batch %d, want the replay of %d", p2[0].BatchID, last)
	}
	all = append(all, p2...)
	want, _, wantLate := referenceWindows(t, e.readTopic("events"), all)
	diffWindows(t, readWindows(t, e.session), want)
	// The replayed batch's late rows were kept once, not twice.
	diffLate(t, readLateRows(t, e.session), wantLate)
}

func TestInvalidQueriesFailAtStart(t *testing.T) {
	e := newEnv(t)
	raw := e.session.ReadStream().Format("kafka").Option("subscribe", "events").Load()
	events := raw.SelectExpr("CAST(value AS STRING) AS json").
		Select(engine.FromJSON(engine.Col("json"), "user_id string, event string, ts timestamp").Alias("data")).Select("data.*")
	cases := []struct {
		name string
		df   *engine.DataFrame
		mode string
		want string
	}{
		{"append without watermark", events.GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), "event").Count(), "append", "without watermark"},
		{"complete without aggregation", events, "complete", "no streaming aggregations"},
		{"unknown column", events.Select("nope"), "append", "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `nope` cannot be resolved"},
		{"bad duration", events.WithWatermark("ts", "10 parsecs"), "append", "unknown unit"},
		{"watermark on a string", events.WithWatermark("event", "10 minutes"), "append", "must be a timestamp"},
		{"unknown kafka option", e.session.ReadStream().Format("kafka").Option("subscribe", "events").Option("startingOffset", "earliest").Load(), "append", "startingOffsets"},
		{"unknown format", e.session.ReadStream().Format("kafak").Load(), "append", "valid formats"},
	}
	for _, c := range cases {
		_, err := c.df.WriteStream().OutputMode(c.mode).Format("console").Progress(false).Start()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
	// Late rows exist only behind a watermark, and never in complete mode.
	counts := events.GroupBy("event").Count()
	windowed := events.WithWatermark("ts", "10 minutes").GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), "event").Count()
	for _, c := range []struct {
		name string
		df   *engine.DataFrame
		mode string
	}{{"late rows without watermark", counts, "update"}, {"late rows in complete mode", windowed, "complete"}} {
		_, err := c.df.WriteStream().OutputMode(c.mode).Format("console").Option("lateRowsTable", "lakehouse.gold.late").Progress(false).Start()
		if err == nil || !strings.Contains(err.Error(), "add WithWatermark") {
			t.Errorf("%s: err = %v, want the lateRowsTable error with its fix", c.name, err)
		}
	}
}
