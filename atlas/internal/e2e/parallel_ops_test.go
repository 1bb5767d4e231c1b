package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// These tests hold the parallel operators (atlas.streaming.parallelism)
// to two references: an independent Go loop over the produced events that
// applies Spark's rules (windows, counts, late rows judged by the previous
// batch's watermark, null event times, the watermark from the batch's
// maximum event time), and the same query run on one goroutine, whose
// rows (in order), progress and state versions must be identical.

// parallelBatches is how the test feeds the memory stream: one entry per
// query run (AvailableNow, so one data batch each), each a list of record
// sizes; lateRecord stands for a record of lateRows rows older than any
// watermark the batch can have (every one of its rows is late).
const lateRecord = -1

var parallelBatches = [][]int{
	{5000},                          // one record
	{1, 0, 777, 0, 2222, 0},         // many records, some empty
	{lateRecord, 2000, lateRecord},  // records whose rows are all late
	{0},                             // an empty record only: no data
	{1000, 999, 1001, 3000, 7, 993}, // the rest
	{0, lateRecord},                 // only late rows
}

const lateRows = 300

// parallelInput is the generated stream: the values of each run's records.
func parallelInput(t *testing.T) [][][]byte {
	t.Helper()
	g, err := produce.NewEventGenerator(produce.EventsConfig{Count: 18000, Seed: 11, Span: 2 * time.Hour,
		OutOfOrder: 0.1, Late: 0.05, Duplicates: 0.02, Malformed: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var runs [][][]byte
	late := 0
	for _, sizes := range parallelBatches {
		var vals [][]byte
		for _, n := range sizes {
			if n == lateRecord {
				for i := 0; i < lateRows; i++ {
					late++
					ts := start.Add(time.Duration(late) * time.Second).Format(produce.TimeLayout)
					vals = append(vals, []byte(fmt.Sprintf(`{"user_id":"late%d","event":"view","ts":%q}`, late, ts)))
				}
				continue
			}
			for i := 0; i < n; i++ {
				rec, ok := g.Next()
				if !ok {
					t.Fatal("the generator ran out of events")
				}
				vals = append(vals, rec.Value)
			}
		}
		runs = append(runs, vals)
	}
	if _, ok := g.Next(); !ok {
		t.Fatal("the batches use every generated event; keep some for the last one")
	}
	return runs
}

// valueRecord is one record of the memory stream's "value binary" column.
func valueRecord(vals [][]byte) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	b := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	defer b.Release()
	for _, v := range vals {
		b.Append(v)
	}
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
}

// parallelResult is what one configuration's run produced.
type parallelResult struct {
	rows     map[int64][]string // sink rows per batch, in the order received
	progress []engine.StreamingQueryProgress
	state    map[string][]byte // checkpoint state and commit files by path
	late     map[string]int    // the late-rows table as a multiset
}

// runParallelConfig runs scenario 1 over the runs' records with the given
// parallelism settings ("" leaves a setting unset).
func runParallelConfig(t *testing.T, runs [][][]byte, parallelism, chunkRows string) parallelResult {
	t.Helper()
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	defer s.Stop()
	if parallelism != "" {
		s.SetConf(engine.ConfStreamingParallelism, parallelism)
	}
	if chunkRows != "" {
		s.SetConf(engine.ConfStreamingChunkRows, chunkRows)
	}
	ms, err := s.MemoryStream("events", "value binary")
	if err != nil {
		t.Fatal(err)
	}
	res := parallelResult{rows: map[int64][]string{}}
	ck := filepath.Join(home, "ck")
	const lateTable = "lakehouse.gold.parallel_late"
	for i, run := range runs {
		pos := 0
		for _, n := range parallelBatches[i] {
			if n == lateRecord {
				n = lateRows
			}
			rec := valueRecord(run[pos : pos+n])
			pos += n
			if err := ms.AddRecord(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		df := ms.ToDF().
			SelectExpr("CAST(value AS STRING) AS json").
			Select(engine.FromJSON(engine.Col("json"), "user_id string, event string, ts timestamp").Alias("data")).
			Select("data.*").
			WithWatermark("ts", "10 minutes").
			GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).
			Count().
			Select(engine.Col("event"), engine.Col("window.start").Alias("window_start"), engine.Col("count"))
		q, err := df.WriteStream().OutputMode("append").Trigger(engine.AvailableNow()).
			Option("checkpointLocation", ck).Option("lateRowsTable", lateTable).Progress(false).
			ForeachBatch(func(b *engine.DataFrame, id int64) error {
				rows, err := b.Rows(context.Background())
				if err != nil {
					return err
				}
				for _, r := range rows {
					res.rows[id] = append(res.rows[id], windowRow(r["event"].(string), r["window_start"].(time.Time), r["count"].(int64)))
				}
				return nil
			}).Start()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
		res.progress = append(res.progress, q.RecentProgress()...)
	}
	res.state = map[string][]byte{}
	for _, dir := range []string{"state", "commits"} {
		err := filepath.Walk(filepath.Join(ck, dir), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(ck, p)
			res.state[rel] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	res.late = map[string]int{}
	for _, r := range rowsOf(t, s.Table(lateTable)) {
		if r["_reason"] == "null_event_time" {
			res.late[fmt.Sprintf("null_event_time|batch %d", r["_batch_id"].(int64))]++
			continue
		}
		ts, user, event := "null", "null", "null"
		if v, ok := r["ts"].(time.Time); ok {
			ts = v.UTC().Format(time.RFC3339Nano)
		}
		if v, ok := r["user_id"].(string); ok {
			user = v
		}
		if v, ok := r["event"].(string); ok {
			event = v
		}
		res.late[fmt.Sprintf("%s|%s|%s|batch %d|wm %s|%s", user, event, ts, r["_batch_id"].(int64),
			r["_watermark"].(time.Time).UTC().Format(time.RFC3339Nano), r["_reason"])]++
	}
	return res
}

// orNull is a JSON string field as the tests write it: "null" when absent.
func orNull(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func windowRow(event string, start time.Time, count int64) string {
	return fmt.Sprintf("%s %s %d", start.UTC().Format(time.RFC3339), event, count)
}

// parallelReference is scenario 1 computed by a plain loop over the
// values, batch by batch as the progress reports bound them (memory stream
// offsets count rows): each batch drops rows whose window ended at or
// before the previous batch's watermark, emits the windows that end at or
// before its own, and moves the watermark to its largest event time minus
// 10 minutes, never back.
type parallelReference struct {
	windows map[int64][]string // emitted per batch, sorted
	dropped map[int64]int64
	null    map[int64]int64
	wm      map[int64]time.Time // the watermark each batch runs with
	late    map[string]int
}

func referenceParallel(t *testing.T, values [][]byte, batches []engine.StreamingQueryProgress) parallelReference {
	t.Helper()
	const size = 5 * time.Minute
	ref := parallelReference{windows: map[int64][]string{}, dropped: map[int64]int64{}, null: map[int64]int64{}, wm: map[int64]time.Time{}, late: map[string]int{}}
	counts := map[windowKey]int64{}
	wm, prevWM := time.UnixMilli(0), time.UnixMilli(0)
	for _, b := range batches {
		lateWM := prevWM
		prevWM = wm
		ref.wm[b.BatchID] = wm
		var from, to struct{ Rows int }
		if err := json.Unmarshal(b.Sources[0].StartOffset, &from); err != nil {
			t.Fatalf("batch %d start offset %s: %v", b.BatchID, b.Sources[0].StartOffset, err)
		}
		if err := json.Unmarshal(b.Sources[0].EndOffset, &to); err != nil {
			t.Fatalf("batch %d end offset %s: %v", b.BatchID, b.Sources[0].EndOffset, err)
		}
		var maxTS time.Time
		for _, v := range values[from.Rows:to.Rows] {
			var ev struct {
				UserID *string `json:"user_id"`
				Event  *string `json:"event"`
				TS     *string `json:"ts"`
			}
			if json.Unmarshal(v, &ev) != nil || ev.TS == nil {
				ref.null[b.BatchID]++
				ref.late[fmt.Sprintf("null_event_time|batch %d", b.BatchID)]++
				continue
			}
			ts, err := time.Parse(time.RFC3339Nano, *ev.TS)
			if err != nil {
				t.Fatalf("reference: event time %q: %v", *ev.TS, err)
			}
			if ts.After(maxTS) {
				maxTS = ts
			}
			ws := ts.Truncate(size)
			if !ws.Add(size).After(lateWM) {
				ref.dropped[b.BatchID]++
				ref.late[fmt.Sprintf("%s|%s|%s|batch %d|wm %s|late", orNull(ev.UserID), orNull(ev.Event), ts.UTC().Format(time.RFC3339Nano), b.BatchID, lateWM.UTC().Format(time.RFC3339Nano))]++
				continue
			}
			counts[windowKey{orNull(ev.Event), ws}]++
		}
		for k, n := range counts {
			if !k.start.Add(size).After(wm) {
				ref.windows[b.BatchID] = append(ref.windows[b.BatchID], windowRow(k.event, k.start, n))
				delete(counts, k)
			}
		}
		sort.Strings(ref.windows[b.BatchID])
		if !maxTS.IsZero() {
			if next := maxTS.Truncate(time.Millisecond).Add(-10 * time.Minute); next.After(wm) {
				wm = next
			}
		}
	}
	return ref
}

// TestParallelOperatorsMatchReference runs scenario 1 on one goroutine and
// on several with chunks of 7 rows, 100 rows and whole records, over
// records of every shape (one big record, many small and empty ones,
// records whose rows are all late), and checks each run against the
// reference loop and the parallel runs against the one-goroutine run:
// the same rows in the same order, the same progress (watermarks, late and
// null counts, event-time statistics) and byte-identical state versions
// and commit entries.
func TestParallelOperatorsMatchReference(t *testing.T) {
	runs := parallelInput(t)
	var values [][]byte
	for _, r := range runs {
		values = append(values, r...)
	}
	configs := []struct{ parallelism, chunkRows string }{
		{"1", ""}, {"4", "100"}, {"3", "7"}, {"2", ""},
	}
	var first parallelResult
	for i, cfg := range configs {
		name := "parallelism=" + cfg.parallelism + ",chunkRows=" + cfg.chunkRows
		got := runParallelConfig(t, runs, cfg.parallelism, cfg.chunkRows)
		ref := referenceParallel(t, values, got.progress)
		if len(ref.dropped) == 0 || len(ref.null) == 0 {
			t.Fatalf("%s: the reference drops %d batches' late rows and %d batches' null rows: the test needs both", name, len(ref.dropped), len(ref.null))
		}
		var lastBatch int64 = -1
		for _, p := range got.progress {
			id := p.BatchID
			if id != lastBatch+1 {
				t.Fatalf("%s: batch %d follows batch %d", name, id, lastBatch)
			}
			lastBatch = id
			if w := p.EventTime["watermark"]; w != ref.wm[id].UTC().Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("%s: batch %d ran with watermark %s, reference %s", name, id, w, ref.wm[id])
			}
			if d := p.StateOperators[0].NumRowsDroppedByWatermark; d != ref.dropped[id] {
				t.Errorf("%s: batch %d dropped %d late rows, reference %d", name, id, d, ref.dropped[id])
			}
			if n := p.ObservedMetrics["numRowsWithNullEventTime"]; n != ref.null[id] {
				t.Errorf("%s: batch %d counted %d rows without event time, reference %d", name, id, n, ref.null[id])
			}
			if m := p.ObservedMetrics["numMalformedRows"]; m != ref.null[id] {
				t.Errorf("%s: batch %d counted %d malformed rows, reference %d (every row without event time is malformed here)", name, id, m, ref.null[id])
			}
			rows := append([]string(nil), got.rows[id]...)
			sort.Strings(rows)
			if !reflect.DeepEqual(rows, ref.windows[id]) && (len(rows) > 0 || len(ref.windows[id]) > 0) {
				t.Errorf("%s: batch %d emitted %d windows %v,\nreference %d %v", name, id, len(rows), rows, len(ref.windows[id]), ref.windows[id])
			}
		}
		diffMaps(t, name+": late row", got.late, ref.late, func(k string) string { return k })
		if i == 0 {
			first = got
			continue
		}
		if !reflect.DeepEqual(got.rows, first.rows) {
			t.Errorf("%s: the sink's rows (or their order) differ from the one-goroutine run's", name)
		}
		if len(got.progress) != len(first.progress) {
			t.Fatalf("%s: %d batches, one goroutine ran %d", name, len(got.progress), len(first.progress))
		}
		for j, p := range got.progress {
			w := first.progress[j]
			if !reflect.DeepEqual(p.EventTime, w.EventTime) || p.NumInputRows != w.NumInputRows ||
				!reflect.DeepEqual(p.ObservedMetrics, w.ObservedMetrics) || p.StateOperators[0].NumRowsTotal != w.StateOperators[0].NumRowsTotal ||
				p.StateOperators[0].NumRowsUpdated != w.StateOperators[0].NumRowsUpdated || p.StateOperators[0].NumRowsRemoved != w.StateOperators[0].NumRowsRemoved {
				t.Errorf("%s: batch %d progress differs from the one-goroutine run's:\n%+v %+v %+v\n%+v %+v %+v", name, p.BatchID,
					p.EventTime, p.ObservedMetrics, p.StateOperators[0], w.EventTime, w.ObservedMetrics, w.StateOperators[0])
			}
		}
		if len(got.state) != len(first.state) || len(got.state) == 0 {
			t.Errorf("%s: %d state and commit files, one goroutine wrote %d", name, len(got.state), len(first.state))
		}
		for path, b := range first.state {
			if !bytes.Equal(got.state[path], b) {
				t.Errorf("%s: checkpoint file %s differs from the one-goroutine run's", name, path)
			}
		}
	}
}

// TestParallelismSettingIsChecked: a setting that is not a whole number
// >= 1 fails the query's start, naming the key.
func TestParallelismSettingIsChecked(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{engine.ConfStreamingParallelism, "0"},
		{engine.ConfStreamingParallelism, "two"},
		{engine.ConfStreamingChunkRows, "-5"},
	} {
		s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
		s.SetConf(tc.key, tc.value)
		ms, err := s.MemoryStream("e", "value binary")
		if err != nil {
			t.Fatal(err)
		}
		_, err = ms.ToDF().WriteStream().Format("memory").QueryName("p").Trigger(engine.AvailableNow()).Progress(false).Start()
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.key+" = "+strconv.Quote(tc.value))) {
			t.Errorf("%s = %q: start error %v, want one naming the setting", tc.key, tc.value, err)
		}
		s.Stop()
	}
}
