package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

func t21(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", "2021-01-01 "+s)
	if err != nil {
		panic(err)
	}
	return t
}

// sessionLines renders rows (a, session_window, cnt) sorted.
func sessionLines(t *testing.T, rows []engine.Row, key, count string) []string {
	t.Helper()
	var out []string
	for _, r := range rows {
		w := r["session_window"].(engine.Row)
		out = append(out, fmt.Sprintf("%v %s %s %v", r[key], w["start"].(time.Time).Format("15:04:05"), w["end"].(time.Time).Format("15:04:05"), r[count]))
	}
	sort.Strings(out)
	return out
}

func abFrame(t *testing.T, s *engine.Session, rows [][2]string) *engine.DataFrame {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "b", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r[0])
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(t21(r[1]).UnixMicro()))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return s.CreateDataFrame(schema, []arrow.RecordBatch{rec})
}

// TestSessionWindowSparkDocExamples runs the two examples of Spark's
// session_window documentation (SQL function reference) and expects their
// documented output.
func TestSessionWindowSparkDocExamples(t *testing.T) {
	s := engine.NewSession()
	df := abFrame(t, s, [][2]string{{"A1", "00:00:00"}, {"A1", "00:04:30"}, {"A1", "00:10:00"}, {"A2", "00:01:00"}})
	rows, err := df.GroupBy(engine.Col("a"), engine.SessionWindow(engine.Col("b"), "5 minutes")).Agg(engine.Count(engine.Col("*")).Alias("cnt")).Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A1 00:00:00 00:09:30 2", "A1 00:10:00 00:15:00 1", "A2 00:01:00 00:06:00 1"}
	if got := sessionLines(t, rows, "a", "cnt"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("static gap: got %v, want %v", got, want)
	}
	// The dynamic gap: CASE WHEN a = 'A1' THEN '5 minutes' WHEN a = 'A2'
	// THEN '1 minute' ELSE '10 minutes' END.
	df2 := abFrame(t, s, [][2]string{{"A1", "00:00:00"}, {"A1", "00:04:30"}, {"A1", "00:10:00"}, {"A2", "00:01:00"}, {"A2", "00:04:30"}})
	gap := engine.When(engine.Col("a").EqualTo("A1"), "5 minutes").When(engine.Col("a").EqualTo("A2"), "1 minute").Otherwise("10 minutes")
	rows, err = df2.GroupBy(engine.Col("a"), engine.SessionWindow(engine.Col("b"), gap)).Agg(engine.Count(engine.Col("*")).Alias("cnt")).Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"A1 00:00:00 00:09:30 2", "A1 00:10:00 00:15:00 1", "A2 00:01:00 00:02:00 1", "A2 00:04:30 00:05:30 1"}
	if got := sessionLines(t, rows, "a", "cnt"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dynamic gap: got %v, want %v", got, want)
	}
}

// event is one raw record of the brute-force sessionizer tests.
type event struct {
	user string
	ts   time.Time
	v    int64
}

// sessionize is the reference: per user, events sorted by time; a new
// session starts when an event begins after the running session's end.
// Only events accepted by keep are used.
func sessionize(events []event, gap func(event) time.Duration, keep func(event) bool) map[string]int64 {
	byUser := map[string][]event{}
	for _, e := range events {
		if keep == nil || keep(e) {
			byUser[e.user] = append(byUser[e.user], e)
		}
	}
	out := map[string]int64{}
	for u, es := range byUser {
		sort.SliceStable(es, func(a, b int) bool { return es[a].ts.Before(es[b].ts) })
		start, end, sum := es[0].ts, es[0].ts.Add(gap(es[0])), es[0].v
		flush := func() { out[fmt.Sprintf("%s %s %s", u, start.Format("15:04:05"), end.Format("15:04:05"))] = sum }
		for _, e := range es[1:] {
			if e.ts.After(end) {
				flush()
				start, end, sum = e.ts, e.ts.Add(gap(e)), 0
			}
			if x := e.ts.Add(gap(e)); x.After(end) {
				end = x
			}
			sum += e.v
		}
		flush()
	}
	return out
}

func eventBatches(seed uint64, batches, per int) ([][][]any, []event) {
	r := rand.New(rand.NewPCG(seed, 3))
	base := t21("00:00:00")
	var all []event
	var out [][][]any
	for b := range batches {
		var rows [][]any
		for range per {
			// Mostly in order, some up to a minute late.
			ts := base.Add(time.Duration(b*per)*4*time.Second + time.Duration(r.IntN(per*4+60)-60)*time.Second)
			e := event{user: fmt.Sprintf("u%d", r.IntN(4)), ts: ts, v: int64(r.IntN(100))}
			all = append(all, e)
			rows = append(rows, []any{e.user, e.ts, e.v})
		}
		out = append(out, rows)
	}
	return out, all
}

// TestSessionWindowStreamingMatchesSessionizer: append mode with a
// watermark emits, once each, exactly the sessions a brute-force
// sessionizer finds over the raw records (no record here is late), across
// a restart in the middle; update mode's last emission of every session
// equals it too.
func TestSessionWindowStreamingMatchesSessionizer(t *testing.T) {
	batches, events := eventBatches(11, 8, 40)
	// A final event far ahead closes every session (and opens its own).
	closing := event{user: "zz", ts: t21("05:00:00"), v: 1}
	batches = append(batches, [][]any{{closing.user, closing.ts, closing.v}})
	gap := func(event) time.Duration { return 30 * time.Second }
	want := sessionize(events, gap, nil)
	build := func(df *engine.DataFrame) *engine.DataFrame {
		return df.WithWatermark("ts", "2 minutes").
			GroupBy(engine.Col("user"), engine.SessionWindow(engine.Col("ts"), "30 seconds")).
			Agg(engine.Sum(engine.Col("v")).Alias("total"))
	}
	for _, restart := range []int{-1, 4} {
		got := runStream(t, "user string, ts timestamp, v bigint", build, "append", batches, restart)
		seen := map[string]int64{}
		for _, line := range sessionLines(t, got.rows, "user", "total") {
			f := strings.Fields(line)
			k := strings.Join(f[:3], " ")
			if _, dup := seen[k]; dup {
				t.Fatalf("restart %d: session %s emitted twice in append mode", restart, k)
			}
			var n int64
			fmt.Sscan(f[3], &n)
			seen[k] = n
		}
		delete(seen, "zz 05:00:00 05:00:30") // still open: the watermark never passes it
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("restart %d: append emitted %d sessions, sessionizer %d:\n got %v\nwant %v", restart, len(seen), len(want), seen, want)
		}
		if n := stateMetric(got.progress, "stateStoreSave", func(s progress.StateOperatorProgress) int64 { return s.NumRowsDroppedByWatermark }); n != 0 {
			t.Fatalf("restart %d: %d rows dropped as late; the test data has none", restart, n)
		}
	}
	// Update mode is refused at Start, as Spark's guide says ("Update mode
	// as output mode is not supported" for session windows, 3.2-4.0): it
	// would leave the rows of sessions later merged into bigger ones in
	// the sink. Nothing is created before the refusal.
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	ms, err := s.MemoryStream("ev", "user string, ts timestamp, v bigint")
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	_, err = build(ms.ToDF()).WriteStream().OutputMode("update").Option("checkpointLocation", ckpt).
		ForeachBatch(func(*engine.DataFrame, int64) error { return nil }).Start()
	if err == nil || !strings.Contains(err.Error(), "update output mode is not supported for session window") {
		t.Fatalf("update mode with a session window: %v, want the refusal", err)
	}
	if _, statErr := os.Stat(ckpt); !os.IsNotExist(statErr) {
		t.Fatalf("the refused query created its checkpoint %s (%v)", ckpt, statErr)
	}
}

// TestSessionWindowLateRowsDropped: a row whose session (merged within
// its batch) ends at or before the watermark is dropped and counted.
func TestSessionWindowLateRowsDropped(t *testing.T) {
	batches := [][][]any{
		{{"u", t21("00:10:00"), int64(1)}}, // watermark -> 00:09:00
		{{"u", t21("00:08:00"), int64(2)}, {"u", t21("00:08:10"), int64(4)}, {"u", t21("00:08:50"), int64(8)}},
		// batch 2: 00:08:00+30s and 00:08:10+30s merge to [00:08:00, 00:08:40]: late;
		// 00:08:50 ends at 00:09:20 > 00:09:00: kept.
		{{"u", t21("00:20:00"), int64(16)}},
	}
	build := func(df *engine.DataFrame) *engine.DataFrame {
		return df.WithWatermark("ts", "1 minute").
			GroupBy(engine.Col("user"), engine.SessionWindow(engine.Col("ts"), "30 seconds")).
			Agg(engine.Sum(engine.Col("v")).Alias("total"))
	}
	got := runStream(t, "user string, ts timestamp, v bigint", build, "append", batches, -1)
	lines := sessionLines(t, got.rows, "user", "total")
	want := []string{"u 00:08:50 00:09:20 8", "u 00:10:00 00:10:30 1"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("emitted %v, want %v", lines, want)
	}
	if n := stateMetric(got.progress, "stateStoreSave", func(s progress.StateOperatorProgress) int64 { return s.NumRowsDroppedByWatermark }); n != 2 {
		t.Errorf("numRowsDroppedByWatermark %d, want 2", n)
	}
}
