package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// streamRun runs df's query with ForeachBatch over a memory stream, fed
// by batches; restartAfter (>= 0) stops it after that many batches and
// starts it again from the same checkpoint. It returns the rows of every
// batch in order and the progress reports of every run.
type streamRun struct {
	rows     []engine.Row
	progress []engine.StreamingQueryProgress
}

func runStream(t *testing.T, ddl string, build func(*engine.DataFrame) *engine.DataFrame, mode string, batches [][][]any, restartAfter int) streamRun {
	t.Helper()
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	ms, err := s.MemoryStream("ev", ddl)
	if err != nil {
		t.Fatal(err)
	}
	ckpt := t.TempDir()
	var out streamRun
	start := func() *engine.StreamingQuery {
		q, err := build(ms.ToDF()).WriteStream().OutputMode(mode).Progress(false).
			Option("checkpointLocation", ckpt).
			ForeachBatch(func(b *engine.DataFrame, id int64) error {
				rs, err := b.Rows(t.Context())
				if err != nil {
					return err
				}
				out.rows = append(out.rows, rs...)
				return nil
			}).Start()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	q := start()
	stop := func() {
		q.Stop()
		out.progress = append(out.progress, q.RecentProgress()...)
	}
	for i, b := range batches {
		if i == restartAfter {
			stop()
			q = start()
		}
		if err := ms.AddRows(b...); err != nil {
			t.Fatal(err)
		}
		processAllAvailable(t, q)
	}
	stop()
	return out
}

// stateMetric sums one state operator's counter over progress reports.
func stateMetric(ps []engine.StreamingQueryProgress, op string, get func(p progress.StateOperatorProgress) int64) int64 {
	var n int64
	for _, p := range ps {
		for _, s := range p.StateOperators {
			if s.OperatorName == op {
				n += get(s)
			}
		}
	}
	return n
}

func droppedDups(s progress.StateOperatorProgress) int64 {
	return s.CustomMetrics["numDroppedDuplicateRows"]
}

// TestDropDuplicatesStreamMatchesFirstOccurrence: a stream with
// duplicates within and across batches, stopped and restarted from its
// checkpoint half-way, emits each key exactly once with its first
// occurrence's payload (a map over the raw records), and the progress
// counts every other row as a dropped duplicate.
func TestDropDuplicatesStreamMatchesFirstOccurrence(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var batches [][][]any
	first := map[int64]int64{}
	raw := 0
	for b := range 6 {
		var rows [][]any
		for i := range 500 {
			id := r.Int64N(400)
			v := int64(b*1000 + i)
			rows = append(rows, []any{id, v})
			if _, ok := first[id]; !ok {
				first[id] = v
			}
			raw++
		}
		batches = append(batches, rows)
	}
	got := runStream(t, "id bigint, v bigint", func(df *engine.DataFrame) *engine.DataFrame { return df.DropDuplicates("id") }, "append", batches, 3)
	seen := map[int64]int64{}
	for _, row := range got.rows {
		id := row["id"].(int64)
		if _, dup := seen[id]; dup {
			t.Fatalf("key %d emitted twice", id)
		}
		seen[id] = row["v"].(int64)
	}
	if fmt.Sprint(seen) != fmt.Sprint(first) {
		t.Fatalf("emitted %d keys, reference %d; or a payload is not the first occurrence's", len(seen), len(first))
	}
	if n := stateMetric(got.progress, "dedupe", droppedDups); n != int64(raw-len(first)) {
		t.Errorf("numDroppedDuplicateRows summed %d, want %d", n, raw-len(first))
	}
	last := got.progress[len(got.progress)-1].StateOperators[0]
	if last.NumRowsTotal != int64(len(first)) {
		t.Errorf("state holds %d keys, want all %d (kept for good without a watermark)", last.NumRowsTotal, len(first))
	}
}

// TestDropDuplicatesBatch keeps the first row per key, and all columns by
// default.
func TestDropDuplicatesBatch(t *testing.T) {
	rows := aggRows(3000, 200, 5)
	rec := aggRecord(rows)
	defer rec.Release()
	df := engine.NewSession().CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})
	got, err := df.DropDuplicates("k", "s").Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		k string
		s any
	}
	want := map[key]int64{}
	var order []key
	for _, r := range rows {
		var s any = r.s
		if r.sNil {
			s = nil
		}
		if _, ok := want[key{r.k, s}]; !ok {
			want[key{r.k, s}] = r.v
			order = append(order, key{r.k, s})
		}
	}
	if len(got) != len(order) {
		t.Fatalf("%d rows, want %d", len(got), len(order))
	}
	for i, g := range got {
		if (key{g["k"].(string), g["s"]}) != order[i] {
			t.Fatalf("row %d is %v, want first occurrence %v", i, g, order[i])
		}
	}
	all, err := df.Select("k").DropDuplicates().Rows(t.Context())
	if err != nil || len(all) != 3 {
		t.Fatalf("select(k).dropDuplicates(): %d rows, %v; want 3", len(all), err)
	}
	_, err = df.DropDuplicatesWithinWatermark("k").Rows(t.Context())
	if err == nil || !strings.Contains(err.Error(), "dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets") {
		t.Errorf("batch dropDuplicatesWithinWatermark: %v, want Spark's refusal", err)
	}
}

func ts(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", "2023-06-10 "+s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestDropDuplicatesWithinWatermark follows Spark 3.5's semantics by hand
// (watermark delay 20 seconds):
//
//	batch: (1,10:20:40) (1,10:20:30) (2,10:20:50) (3,10:20:45)
//	  1, 2, 3 kept, expiring at 10:21:00, 10:21:10, 10:21:05; one duplicate;
//	  watermark -> 10:20:30, a no-data batch evicts nothing.
//	batch: (1,10:22:40) (1,10:20:10) (4,10:21:50) (5,10:21:45)
//	  10:20:10 <= 10:20:30 is late; 1 is still held: duplicate; 4, 5 kept;
//	  watermark -> 10:22:20: the no-data batch evicts all five keys.
//	batch: (1,10:24:40): key 1 is new again and kept.
func TestDropDuplicatesWithinWatermark(t *testing.T) {
	batches := [][][]any{
		{{int64(1), ts("10:20:40")}, {int64(1), ts("10:20:30")}, {int64(2), ts("10:20:50")}, {int64(3), ts("10:20:45")}},
		{{int64(1), ts("10:22:40")}, {int64(1), ts("10:20:10")}, {int64(4), ts("10:21:50")}, {int64(5), ts("10:21:45")}},
		{{int64(1), ts("10:24:40")}},
	}
	build := func(df *engine.DataFrame) *engine.DataFrame {
		return df.WithWatermark("eventTime", "20 seconds").DropDuplicatesWithinWatermark("id")
	}
	got := runStream(t, "id bigint, eventTime timestamp", build, "append", batches, -1)
	var emitted []string
	for _, r := range got.rows {
		emitted = append(emitted, fmt.Sprintf("%d@%s", r["id"], r["eventTime"].(time.Time).Format("15:04:05")))
	}
	want := "[1@10:20:40 2@10:20:50 3@10:20:45 4@10:21:50 5@10:21:45 1@10:24:40]"
	if fmt.Sprint(emitted) != want {
		t.Fatalf("emitted %v, want %s", emitted, want)
	}
	op := "dedupeWithinWatermark"
	if n := stateMetric(got.progress, op, droppedDups); n != 2 {
		t.Errorf("numDroppedDuplicateRows %d, want 2", n)
	}
	if n := stateMetric(got.progress, op, func(s progress.StateOperatorProgress) int64 { return s.NumRowsDroppedByWatermark }); n != 1 {
		t.Errorf("numRowsDroppedByWatermark %d, want 1", n)
	}
	if n := stateMetric(got.progress, op, func(s progress.StateOperatorProgress) int64 { return s.NumRowsRemoved }); n != 5 {
		t.Errorf("numRowsRemoved %d, want 5", n)
	}
}

// TestDropDuplicatesEvictsOnEventTimeKey: with the watermarked column
// among the keys, Spark evicts a key once the watermark reaches its event
// time, and a later copy of it is dropped as late instead.
func TestDropDuplicatesEvictsOnEventTimeKey(t *testing.T) {
	batches := [][][]any{
		{{int64(1), ts("10:00:00")}, {int64(1), ts("10:00:00")}, {int64(2), ts("10:00:30")}},
		// watermark after the first batch: 10:00:30 - 10s = 10:00:20: (1,10:00:00) evicted.
		{{int64(1), ts("10:00:00")}, {int64(2), ts("10:00:30")}, {int64(3), ts("10:01:00")}},
	}
	build := func(df *engine.DataFrame) *engine.DataFrame {
		return df.WithWatermark("ts", "10 seconds").DropDuplicates("id", "ts")
	}
	got := runStream(t, "id bigint, ts timestamp", build, "append", batches, -1)
	var ids []int64
	for _, r := range got.rows {
		ids = append(ids, r["id"].(int64))
	}
	if fmt.Sprint(ids) != "[1 2 3]" {
		t.Fatalf("emitted ids %v, want [1 2 3]", ids)
	}
	if n := stateMetric(got.progress, "dedupe", droppedDups); n != 2 {
		t.Errorf("duplicates %d, want 2: (1,10:00:00) in batch 0 and (2,10:00:30) in batch 1", n)
	}
	if n := stateMetric(got.progress, "dedupe", func(s progress.StateOperatorProgress) int64 { return s.NumRowsDroppedByWatermark }); n != 1 {
		t.Errorf("late %d, want 1: (1,10:00:00) after its key was evicted", n)
	}
}

// TestDropDuplicatesWithinWatermarkNeedsWatermark: Start refuses it on a
// stream without a watermark, naming the fix.
func TestDropDuplicatesWithinWatermarkNeedsWatermark(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	ms, err := s.MemoryStream("ev", "id bigint")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ms.ToDF().DropDuplicatesWithinWatermark("id").WriteStream().Format("memory").QueryName("d").Progress(false).Start()
	if err == nil || !strings.Contains(err.Error(), "without watermark") || !strings.Contains(err.Error(), "WithWatermark") {
		t.Fatalf("Start: %v", err)
	}
}

// TestDropDuplicatesThenAggregate: deduplicating before a streaming
// aggregation (the course's "count unique events") counts each key once
// across batches and a restart; progress reports both state operators.
func TestDropDuplicatesThenAggregate(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var batches [][][]any
	distinct := map[string]map[int64]bool{}
	for range 5 {
		var rows [][]any
		for range 300 {
			id := r.Int64N(250)
			k := fmt.Sprintf("k%d", id%3)
			rows = append(rows, []any{id, k})
			if distinct[k] == nil {
				distinct[k] = map[int64]bool{}
			}
			distinct[k][id] = true
		}
		batches = append(batches, rows)
	}
	build := func(df *engine.DataFrame) *engine.DataFrame { return df.DropDuplicates("id").GroupBy("k").Count() }
	got := runStream(t, "id bigint, k string", build, "complete", batches, 2)
	final := map[string]int64{}
	for _, row := range got.rows[len(got.rows)-3:] {
		final[row["k"].(string)] = row["count"].(int64)
	}
	for k, ids := range distinct {
		if final[k] != int64(len(ids)) {
			t.Errorf("%s: counted %d, distinct ids %d", k, final[k], len(ids))
		}
	}
	last := got.progress[len(got.progress)-1]
	if len(last.StateOperators) != 2 || last.StateOperators[0].OperatorName != "dedupe" || last.StateOperators[1].OperatorName != "stateStoreSave" {
		t.Errorf("state operators %+v, want dedupe then stateStoreSave", last.StateOperators)
	}
}

// TestStreamingDistinctIsDropDuplicates: Spark's Dataset.distinct is
// dropDuplicates() over every column, so a stream's Distinct runs in
// append mode without a watermark and emits each distinct row once.
func TestStreamingDistinctIsDropDuplicates(t *testing.T) {
	batches := [][][]any{
		{{int64(1), "a"}, {int64(1), "a"}, {int64(2), "a"}},
		{{int64(1), "a"}, {int64(1), "b"}, {int64(2), "a"}},
	}
	got := runStream(t, "id bigint, s string", func(df *engine.DataFrame) *engine.DataFrame { return df.Distinct() }, "append", batches, -1)
	var lines []string
	for _, r := range got.rows {
		lines = append(lines, fmt.Sprintf("%v%v", r["id"], r["s"]))
	}
	if fmt.Sprint(lines) != "[1a 2a 1b]" {
		t.Fatalf("distinct rows %v, want [1a 2a 1b]", lines)
	}
}
