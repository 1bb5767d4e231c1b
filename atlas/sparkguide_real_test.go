package atlas_test

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

	"github.com/atlas-lakehouse/atlas/atlas"
)

// The examples of Spark's Structured Streaming Programming Guide
// (https://spark.apache.org/docs/latest/streaming/, Spark 3.5 and 4.0;
// docs/streaming/apis-on-dataframes-and-datasets.md and getting-started.md
// in apache/spark) run through the Atlas client against the real server,
// with the outputs the guide states or that its rules imply, computed by
// hand from the guide's text and written out below. Inputs are JSON file
// streams fed one file per trigger; outputs come from foreachBatch (what
// each trigger wrote) or the memory sink.
//
//   - Quick Example and the Programming Model figure: word count with
//     explode(split(...)) in complete and update mode, memory sink,
//     lastProgress and status fields;
//   - windowed word count (10 minutes sliding 5) with a 10-minute watermark,
//     update and append mode, the late (12:04, donkey); a window of windows
//     with window_time;
//   - stream-stream joins (impressions/clicks): inner, leftOuter with the
//     delayed null rows, rightOuter, fullOuter, leftSemi, and the max
//     multiple-watermark policy;
//   - dropDuplicates with and without watermark, dropDuplicatesWithinWatermark;
//   - session windows, 5-minute and dynamic gap;
//   - unsupported operations, refused at Start before any side effect;
//   - recovery semantics after changes, and restarts of the same queries.

// guideWords is the guide's windowed word count input, the events of the
// figures "Watermarking in Update Mode" and "Watermarking in Append Mode"
// (section "Handling Late Data and Watermarking"), one slice per trigger:
// 12:10, 12:15, 12:20, 12:25. The text names (12:14, dog) moving the
// watermark to 12:04, (12:09, cat) late but counted, the watermark moving
// to 12:11 and (12:04, donkey) then dropped. (12:09, emu) is ours: it
// falls in 12:00-12:10, closed at 12:11, and in 12:05-12:15, still open,
// and the guide's rule ("for a specific window ending at time T, the
// engine will ... allow late data to update the state until max event time
// seen - late threshold > T") counts it in the open window only.
func guideWords(t *testing.T) [][]string {
	w := func(hhmm, word string) string { return ev(t, hhmm, "word", word) }
	return [][]string{
		{w("12:07", "dog"), w("12:08", "owl")},
		{w("12:14", "dog"), w("12:09", "cat")},
		{w("12:15", "cat"), w("12:08", "dog"), w("12:13", "owl"), w("12:21", "owl")},
		{w("12:17", "owl"), w("12:04", "donkey"), w("12:09", "emu")},
	}
}

// windowedCounts is the guide's query:
// words.withWatermark("timestamp", "10 minutes")
//
//	.groupBy(window(words.timestamp, "10 minutes", "5 minutes"), words.word).count()
func windowedCounts(spark *atlas.Session, f *feed) *atlas.DataFrame {
	words := f.stream(spark, "timestamp timestamp, word string")
	return words.WithWatermark("timestamp", "10 minutes").
		GroupBy(atlas.Window(atlas.Col("timestamp"), "10 minutes", "5 minutes"), atlas.Col("word")).
		Count()
}

// TestGuideWindowedWordCountUpdateMode: section "Handling Late Data and
// Watermarking", update mode. Each trigger writes the windows its rows
// updated; the watermark of a trigger is the previous trigger's max event
// time minus 10 minutes; (12:04, donkey) is dropped at 12:25.
func TestGuideWindowedWordCountUpdateMode(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	f := newFeed(t)
	c := &collector{format: windowRow("word")}
	q, err := windowedCounts(spark, f).WriteStream().QueryName("windowed").OutputMode("update").Progress(false).ForeachBatch(c.fn).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	in := guideWords(t)
	sameRows(t, "12:10 trigger", trigger(t, q, f, c, in[0]...), []string{
		"12:00-12:10 dog 1", "12:00-12:10 owl 1", "12:05-12:15 dog 1", "12:05-12:15 owl 1",
	})
	sameRows(t, "12:15 trigger", trigger(t, q, f, c, in[1]...), []string{
		"12:00-12:10 cat 1", "12:05-12:15 cat 1", "12:05-12:15 dog 2", "12:10-12:20 dog 1",
	})
	sameRows(t, "12:20 trigger", trigger(t, q, f, c, in[2]...), []string{
		"12:00-12:10 dog 2", "12:05-12:15 dog 3", "12:05-12:15 owl 2", "12:10-12:20 owl 1",
		"12:10-12:20 cat 1", "12:15-12:25 cat 1", "12:15-12:25 owl 1", "12:20-12:30 owl 1",
	})
	sameRows(t, "12:25 trigger (watermark 12:11)", trigger(t, q, f, c, in[3]...), []string{
		"12:10-12:20 owl 2", "12:15-12:25 owl 2", "12:05-12:15 emu 1",
	})
	if wm := q.LastProgress().EventTime["watermark"]; wm != at(t, "12:11").Format("2006-01-02T15:04:05.000Z") {
		t.Errorf("watermark %q, want 12:11", wm)
	}
}

// TestGuideWindowedWordCountAppendMode: the same query in append mode
// ("Watermarking in Append Mode"): a window is written once, with its final
// count, when the watermark passes its end; "the final counts of window
// 12:00 - 12:10 is appended to the Result Table only after the watermark is
// updated to 12:11". Spark 2.4+ runs a no-data batch as soon as the
// watermark moves, so it is written right after the 12:20 trigger's data.
// A last trigger (12:30, ours) moves the watermark to 12:20 and closes
// 12:05-12:15 and 12:10-12:20.
func TestGuideWindowedWordCountAppendMode(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	f := newFeed(t)
	c := &collector{format: windowRow("word")}
	q, err := windowedCounts(spark, f).WriteStream().QueryName("windowed").OutputMode("append").Progress(false).ForeachBatch(c.fn).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	in := guideWords(t)
	sameRows(t, "12:10 trigger", trigger(t, q, f, c, in[0]...), nil)
	sameRows(t, "12:15 trigger", trigger(t, q, f, c, in[1]...), nil)
	sameRows(t, "12:20 trigger", trigger(t, q, f, c, in[2]...), []string{
		"12:00-12:10 cat 1", "12:00-12:10 dog 2", "12:00-12:10 owl 1",
	})
	sameRows(t, "12:25 trigger", trigger(t, q, f, c, in[3]...), nil)
	sameRows(t, "12:30 trigger (watermark 12:20)", trigger(t, q, f, c, ev(t, "12:30", "word", "yak")), []string{
		"12:05-12:15 cat 1", "12:05-12:15 dog 3", "12:05-12:15 owl 2", "12:05-12:15 emu 1",
		"12:10-12:20 cat 1", "12:10-12:20 dog 1", "12:10-12:20 owl 2",
	})
}

// adEvents are impressions and clicks for the guide's ad-monetization join
// (section "Stream-stream Joins"): impressions late by at most 2 hours,
// clicks by 3 hours, a click within 0 seconds to 1 hour of its impression.
// The rows are ours, one slice per trigger; "" means no file that trigger.
func adEvents(t *testing.T) (impressions, clicks [][]string) {
	imp := func(id, hhmm string) string {
		return fmt.Sprintf(`{"impressionAdId":%q,"impressionTime":%q}`, id, at(t, hhmm).Format(time.RFC3339))
	}
	clk := func(id, hhmm string) string {
		return fmt.Sprintf(`{"clickAdId":%q,"clickTime":%q}`, id, at(t, hhmm).Format(time.RFC3339))
	}
	impressions = [][]string{
		{imp("ad1", "10:00"), imp("ad2", "09:30"), imp("ad3", "10:30")},
		{imp("ad4", "13:00")},
		{imp("ad6", "16:00")},
		nil,
	}
	clicks = [][]string{
		// ad1 clicked after 20 minutes; ad3's click comes 90 minutes late: no match.
		{clk("ad1", "10:20"), clk("ad3", "12:00")},
		{clk("ad4", "13:30"), clk("ad5", "14:00")},
		nil,
		// ad4's second click is 45 minutes after its impression.
		{clk("ad7", "15:00"), clk("ad4", "13:45")},
	}
	return impressions, clicks
}

// adJoin is the guide's join, of type how.
func adJoin(spark *atlas.Session, impFeed, clickFeed *feed, how string) *atlas.DataFrame {
	impressions := impFeed.stream(spark, "impressionAdId string, impressionTime timestamp")
	clicks := clickFeed.stream(spark, "clickAdId string, clickTime timestamp")
	return impressions.WithWatermark("impressionTime", "2 hours").Join(
		clicks.WithWatermark("clickTime", "3 hours"),
		atlas.Expr(`clickAdId = impressionAdId AND
    clickTime >= impressionTime AND
    clickTime <= impressionTime + interval 1 hour`), how)
}

func joinRow(r atlas.Row) string {
	return fmt.Sprintf("%v@%s %v@%s", r["impressionAdId"], hm(r["impressionTime"]), r["clickAdId"], hm(r["clickTime"]))
}

// joinTrigger feeds the trigger's files to both streams and waits.
func joinTrigger(t *testing.T, q *atlas.StreamingQuery, imp, clk *feed, c *collector, i int) []string {
	t.Helper()
	impressions, clicks := adEvents(t)
	if impressions[i] != nil {
		imp.add(impressions[i]...)
	}
	if clicks[i] != nil {
		clk.add(clicks[i]...)
	}
	return trigger(t, q, imp, c)
}

// TestGuideStreamStreamInnerJoin: "the result of the join with a streaming
// Dataset/DataFrame will be the exactly the same as if it was with a static
// Dataset/DataFrame containing the same data in the stream": each trigger
// writes the pairs its rows complete.
func TestGuideStreamStreamInnerJoin(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	imp, clk := newFeed(t), newFeed(t)
	c := &collector{format: joinRow}
	q, err := adJoin(spark, imp, clk, "inner").WriteStream().QueryName("adjoin").Progress(false).ForeachBatch(c.fn).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	sameRows(t, "trigger 1", joinTrigger(t, q, imp, clk, c, 0), []string{"ad1@10:00 ad1@10:20"})
	sameRows(t, "trigger 2", joinTrigger(t, q, imp, clk, c, 1), []string{"ad4@13:00 ad4@13:30"})
	sameRows(t, "trigger 3", joinTrigger(t, q, imp, clk, c, 2), nil)
	sameRows(t, "trigger 4", joinTrigger(t, q, imp, clk, c, 3), []string{"ad4@13:00 ad4@13:45"})
}

// TestGuideStreamStreamLeftOuterJoin: "Outer Joins with Watermarking" and
// its caveats: "the outer NULL results will be generated with a delay that
// depends on the specified watermark delay and the time range condition",
// and "if any of the two input streams being joined does not receive data
// for a while, the outer (both cases, left or right) output may get
// delayed". The global watermark is the minimum of both streams' (max
// impression time - 2h, max click time - 3h); an impression can no longer
// match once it is older than that watermark minus the 1 hour range.
//   - trigger 1: ad1 matches; watermark min(10:30-2h, 12:00-3h) = 08:30.
//   - trigger 2: ad4 matches; watermark min(13:00-2h, 14:00-3h) = 11:00, so
//     impressions before 10:00 cannot match any more: ad2 (09:30) is written
//     with nulls (in the no-data batch the moved watermark runs).
//   - trigger 3: only impressions: the watermark stays 11:00 (clicks lag),
//     ad3 (10:30) waits.
//   - trigger 4: ad4's second click (13:45) matches; a click at 15:00 moves
//     the watermark to min(16:00-2h, 15:00-3h) = 12:00: ad3 (10:30 < 11:00)
//     is written with nulls; ad6 waits.
func TestGuideStreamStreamLeftOuterJoin(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	imp, clk := newFeed(t), newFeed(t)
	c := &collector{format: joinRow}
	q, err := adJoin(spark, imp, clk, "leftOuter").WriteStream().QueryName("adjoin").Progress(false).ForeachBatch(c.fn).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	sameRows(t, "trigger 1", joinTrigger(t, q, imp, clk, c, 0), []string{"ad1@10:00 ad1@10:20"})
	sameRows(t, "trigger 2", joinTrigger(t, q, imp, clk, c, 1), []string{"ad4@13:00 ad4@13:30", "ad2@09:30 <nil>@<nil>"})
	sameRows(t, "trigger 3 (no clicks: the outer row of ad3 waits)", joinTrigger(t, q, imp, clk, c, 2), nil)
	sameRows(t, "trigger 4", joinTrigger(t, q, imp, clk, c, 3), []string{"ad3@10:30 <nil>@<nil>", "ad4@13:00 ad4@13:45"})
}

// TestGuideMultipleWatermarkPolicyMax: section "Policy for handling
// multiple watermarks": with spark.sql.streaming.multipleWatermarkPolicy
// set to max, "the global watermark [moves] at the pace of the fastest
// stream. However, as a side effect, data from the slower streams will be
// aggressively dropped." The left outer join above, under max:
//   - trigger 3: impressions alone move the watermark to max(16:00-2h,
//     14:00-3h) = 14:00, so ad3's null row comes now instead of at trigger 4;
//   - trigger 4: ad4's click at 13:45 is older than the watermark 14:00:
//     dropped as late, where the min policy joined it.
//
// The policy is recorded in the checkpoint, and an unknown one is refused
// when set.
func TestGuideMultipleWatermarkPolicyMax(t *testing.T) {
	addr, home := realServer(t)
	spark := connect(t, addr)
	imp, clk := newFeed(t), newFeed(t)
	c := &collector{format: joinRow}
	if err := spark.Conf().Set("spark.sql.streaming.multipleWatermarkPolicy", "bogus"); err == nil ||
		!strings.Contains(err.Error(), "spark.sql.streaming.multipleWatermarkPolicy should be one of min, max") {
		t.Fatalf("an unknown policy: %v", err)
	}
	if err := spark.Conf().Set("spark.sql.streaming.multipleWatermarkPolicy", "max"); err != nil {
		t.Fatal(err)
	}
	q, err := adJoin(spark, imp, clk, "leftOuter").WriteStream().QueryName("adjoin_max").Progress(false).ForeachBatch(c.fn).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	sameRows(t, "trigger 1", joinTrigger(t, q, imp, clk, c, 0), []string{"ad1@10:00 ad1@10:20"})
	sameRows(t, "trigger 2", joinTrigger(t, q, imp, clk, c, 1), []string{"ad4@13:00 ad4@13:30", "ad2@09:30 <nil>@<nil>"})
	sameRows(t, "trigger 3 (the impressions move the watermark)", joinTrigger(t, q, imp, clk, c, 2), []string{"ad3@10:30 <nil>@<nil>"})
	sameRows(t, "trigger 4 (ad4's late click dropped)", joinTrigger(t, q, imp, clk, c, 3), nil)
	if p := q.LastProgress(); p == nil || len(p.StateOperators) != 1 || p.StateOperators[0].NumRowsDroppedByWatermark != 1 {
		t.Errorf("trigger 4: want the join to count one row dropped by the watermark: %+v", p)
	}
	// A restart from the checkpoint keeps the policy it recorded, whatever
	// the session says now (Spark's OffsetSeqMetadata conf).
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := spark.Conf().Set("spark.sql.streaming.multipleWatermarkPolicy", "min"); err != nil {
		t.Fatal(err)
	}
	q, err = adJoin(spark, imp, clk, "leftOuter").WriteStream().QueryName("adjoin_max").Progress(false).ForeachBatch(c.fn).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	imp.add(fmt.Sprintf(`{"impressionAdId":"ad8","impressionTime":%q}`, at(t, "18:00").Format(time.RFC3339)))
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	last := q.LastProgress()
	if last == nil {
		t.Fatal("no progress after the restart")
	}
	offsets, err := os.ReadFile(filepath.Join(home, "checkpoints", "adjoin_max", "offsets", fmt.Sprint(last.BatchID)))
	if err != nil || !strings.Contains(string(offsets), `"spark.sql.streaming.multipleWatermarkPolicy":"max"`) {
		t.Errorf("offsets of batch %d after the restart: %s %v; want the recorded policy max", last.BatchID, offsets, err)
	}
}

// dedupRow renders (guid, eventTime).
func dedupRow(r atlas.Row) string { return fmt.Sprintf("%v@%s", r["guid"], hm(r["eventTime"])) }

func guidEv(t *testing.T, guid, hhmm string) string {
	return fmt.Sprintf(`{"guid":%q,"eventTime":%q}`, guid, at(t, hhmm).Format(time.RFC3339))
}

// TestGuideDropDuplicates: section "Streaming Deduplication". Without a
// watermark every guid is kept for good; with a watermark on eventTime and
// (guid, eventTime) as the key, a duplicate within the watermark is
// dropped, and a row older than the watermark is dropped as late.
func TestGuideDropDuplicates(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)

	t.Run("without watermark", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: dedupRow}
		// streamingDf.dropDuplicates("guid")
		q, err := f.stream(spark, "guid string, eventTime timestamp").DropDuplicates("guid").
			WriteStream().QueryName("dedup_nowm").Progress(false).ForeachBatch(c.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop()
		sameRows(t, "trigger 1", trigger(t, q, f, c, guidEv(t, "g1", "12:00"), guidEv(t, "g2", "12:01"), guidEv(t, "g1", "12:00")),
			[]string{"g1@12:00", "g2@12:01"})
		sameRows(t, "trigger 2: g1 a day later is still a duplicate", trigger(t, q, f, c, guidEv(t, "g1", "23:00"), guidEv(t, "g3", "12:02")),
			[]string{"g3@12:02"})
	})

	t.Run("with watermark", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: dedupRow}
		// streamingDf.withWatermark("eventTime", "10 seconds").dropDuplicates("guid", "eventTime")
		q, err := f.stream(spark, "guid string, eventTime timestamp").WithWatermark("eventTime", "10 seconds").
			DropDuplicates("guid", "eventTime").
			WriteStream().QueryName("dedup_wm").Progress(false).ForeachBatch(c.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop()
		sameRows(t, "trigger 1", trigger(t, q, f, c, guidEv(t, "g1", "12:00:00"), guidEv(t, "g1", "12:00:00"), guidEv(t, "g2", "12:00:05")),
			[]string{"g1@12:00", "g2@12:00:05"})
		sameRows(t, "trigger 2: within the watermark (11:59:55), a duplicate", trigger(t, q, f, c, guidEv(t, "g1", "12:00:00"), guidEv(t, "g1", "12:00:01")),
			[]string{"g1@12:00:01"})
		sameRows(t, "trigger 3", trigger(t, q, f, c, guidEv(t, "g3", "12:01:00")), []string{"g3@12:01"})
		sameRows(t, "trigger 4: older than the watermark (12:00:50), late", trigger(t, q, f, c, guidEv(t, "g1", "12:00:00"), guidEv(t, "g4", "12:00:40")),
			nil)
		if p := q.LastProgress(); p == nil || len(p.StateOperators) == 0 || p.StateOperators[0].NumRowsDroppedByWatermark != 2 {
			t.Errorf("trigger 4: numRowsDroppedByWatermark, want 2: %+v", p)
		}
	})

	t.Run("within watermark", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: dedupRow}
		// streamingDf.withWatermark("eventTime", "10 minutes").dropDuplicatesWithinWatermark("guid"):
		// a guid seen at T is a duplicate until the watermark passes T + 10 minutes,
		// whatever the event time of the duplicate.
		q, err := f.stream(spark, "guid string, eventTime timestamp").WithWatermark("eventTime", "10 minutes").
			DropDuplicatesWithinWatermark("guid").
			WriteStream().QueryName("dedup_within").Progress(false).ForeachBatch(c.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop()
		sameRows(t, "trigger 1", trigger(t, q, f, c, guidEv(t, "g1", "12:00"), guidEv(t, "g1", "12:03")), []string{"g1@12:00"})
		sameRows(t, "trigger 2", trigger(t, q, f, c, guidEv(t, "g1", "12:08")), nil)
		sameRows(t, "trigger 3: the watermark moves to 12:20", trigger(t, q, f, c, guidEv(t, "g2", "12:30")), []string{"g2@12:30"})
		sameRows(t, "trigger 4: g1 expired at 12:10", trigger(t, q, f, c, guidEv(t, "g1", "12:25")), []string{"g1@12:25"})

		// "This feature requires watermark with delay threshold to be set."
		_, err = f.stream(spark, "guid string, eventTime timestamp").DropDuplicatesWithinWatermark("guid").
			WriteStream().QueryName("dedup_within_nowm").ForeachBatch(c.fn).Start()
		if err == nil || !strings.Contains(err.Error(), "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark") {
			t.Errorf("dropDuplicatesWithinWatermark without a watermark: %v", err)
		}
	})
}

func userEv(t *testing.T, user, hhmm string) string {
	return fmt.Sprintf(`{"userId":%q,"timestamp":%q}`, user, at(t, hhmm).Format(time.RFC3339))
}

func sessionRow(r atlas.Row) string {
	w, _ := r["session_window"].(atlas.Row)
	return fmt.Sprintf("%v %s-%s %v", r["userId"], hm(w["start"]), hm(w["end"]), r["count"])
}

// TestGuideSessionWindows: section "Types of time windows". "A session
// window starts with an input, and expands itself if following input has
// been received within gap duration"; with a dynamic gap "a session
// window's range is the union of all events' ranges which are determined by
// event start time and evaluated gap duration". The guide's queries, in
// append mode: a session is written once the watermark passes its end.
func TestGuideSessionWindows(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)

	t.Run("gap 5 minutes", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: sessionRow}
		events := f.stream(spark, "userId string, timestamp timestamp")
		// events.withWatermark("timestamp", "10 minutes")
		//     .groupBy(session_window(events.timestamp, "5 minutes"), events.userId).count()
		sessionized := events.WithWatermark("timestamp", "10 minutes").
			GroupBy(atlas.SessionWindow(atlas.Col("timestamp"), "5 minutes"), atlas.Col("userId")).Count()
		q, err := sessionized.WriteStream().QueryName("sessions").OutputMode("append").Progress(false).ForeachBatch(c.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop()
		sameRows(t, "trigger 1", trigger(t, q, f, c, userEv(t, "u1", "12:00"), userEv(t, "u1", "12:03"), userEv(t, "u2", "12:01")), nil)
		sameRows(t, "trigger 2: the watermark moves to 12:10", trigger(t, q, f, c, userEv(t, "u1", "12:20")),
			[]string{"u1 12:00-12:08 2", "u2 12:01-12:06 1"})
		// u2 at 12:05 is older than the watermark 12:10: dropped.
		sameRows(t, "trigger 3: the watermark moves to 12:30", trigger(t, q, f, c, userEv(t, "u1", "12:23"), userEv(t, "u1", "12:40"), userEv(t, "u2", "12:05")),
			[]string{"u1 12:20-12:28 2"})
	})

	t.Run("dynamic gap", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: sessionRow}
		events := f.stream(spark, "userId string, timestamp timestamp")
		// session_window(events.timestamp, sf.when(events.userId == "user1", "5 seconds")
		//     .when(events.userId == "user2", "20 seconds").otherwise("5 minutes"))
		gap := atlas.When(atlas.Col("userId").EqualTo(atlas.Lit("user1")), "5 seconds").
			When(atlas.Col("userId").EqualTo(atlas.Lit("user2")), "20 seconds").Otherwise("5 minutes")
		sessionized := events.WithWatermark("timestamp", "10 minutes").
			GroupBy(atlas.SessionWindow(atlas.Col("timestamp"), gap), atlas.Col("userId")).Count()
		q, err := sessionized.WriteStream().QueryName("dyn_sessions").OutputMode("append").Progress(false).ForeachBatch(c.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop()
		sameRows(t, "trigger 1", trigger(t, q, f, c,
			userEv(t, "user1", "12:00:00"), userEv(t, "user1", "12:00:04"), userEv(t, "user1", "12:00:10"),
			userEv(t, "user2", "12:00:00"), userEv(t, "user2", "12:00:15"),
			userEv(t, "user3", "12:00:00"), userEv(t, "user3", "12:04:00")), nil)
		sameRows(t, "trigger 2: the watermark moves to 12:20", trigger(t, q, f, c, userEv(t, "user9", "12:30")), []string{
			"user1 12:00-12:00:09 2", "user1 12:00:10-12:00:15 1", "user2 12:00-12:00:35 2", "user3 12:00-12:09 2",
		})
	})
}

// TestGuideRecoveryAfterChanges: section "Recovery Semantics after Changes
// in a Streaming Query" (Spark 3.5/4.0): "any changes (that is, additions,
// deletions, or schema modifications) to the stateful operations of a
// streaming query are not allowed between restarts" ("Any change in number
// or type of grouping keys or aggregates is not allowed", "Any change in
// number or type of deduplicating columns is not allowed"); Spark 4 fails
// such a restart (STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE,
// STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA). Each change
// must fail at Start, naming the checkpoint, instead of running on wrong or
// silently empty state; "Addition / deletion of filters is allowed" and the
// state carries over.
func TestGuideRecoveryAfterChanges(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	words := func(f *feed) *atlas.DataFrame { return f.stream(spark, "timestamp timestamp, word string") }
	counts := func(f *feed) *atlas.DataFrame { return words(f).GroupBy("word").Count() }
	dedup := func(f *feed) *atlas.DataFrame { return words(f).DropDuplicates("word") }
	for _, c := range []struct {
		name        string
		first, next func(f *feed) *atlas.DataFrame
		mode, nmode string
		want        string
	}{
		{"grouping keys added", counts, func(f *feed) *atlas.DataFrame { return words(f).GroupBy("word", "timestamp").Count() }, "complete", "complete", "state of a different aggregation"},
		{"aggregate added", counts, func(f *feed) *atlas.DataFrame {
			return words(f).GroupBy("word").Agg(atlas.Count(atlas.Lit(1)).Alias("count"), atlas.Max(atlas.Col("timestamp")).Alias("last"))
		}, "complete", "complete", "state of a different aggregation"},
		{"grouping key type", counts, func(f *feed) *atlas.DataFrame { return words(f).GroupBy(atlas.Col("timestamp").Alias("word")).Count() }, "complete", "complete", "state of a different aggregation"},
		{"deduplicating columns", dedup, func(f *feed) *atlas.DataFrame { return words(f).DropDuplicates("word", "timestamp") }, "append", "append", "keys of another deduplication"},
		{"aggregation replaced by dropDuplicates", counts, dedup, "complete", "append", "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"},
		{"dropDuplicates replaced by an aggregation", dedup, counts, "append", "complete", "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"},
		{"aggregation removed", counts, words, "complete", "append", "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"},
		{"dropDuplicates removed", dedup, words, "append", "append", "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"},
		{"aggregation added", words, counts, "append", "complete", "written by a query without this aggregation"},
		{"filter added (allowed)", counts, func(f *feed) *atlas.DataFrame {
			return words(f).Where(atlas.Col("word").NotEqual(atlas.Lit("zzz"))).GroupBy("word").Count()
		}, "complete", "complete", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFeed(t)
			ck := filepath.Join(t.TempDir(), "ck")
			f.add(ev(t, "12:00", "word", "a"), ev(t, "12:01", "word", "b"))
			q, err := c.first(f).WriteStream().OutputMode(c.mode).Option("checkpointLocation", ck).Format("memory").QueryName("before").Start()
			if err != nil {
				t.Fatal(err)
			}
			if err := q.ProcessAllAvailable(); err != nil {
				t.Fatal(err)
			}
			if err := q.Stop(); err != nil {
				t.Fatal(err)
			}
			f.add(ev(t, "12:02", "word", "a"))
			q, err = c.next(f).WriteStream().OutputMode(c.nmode).Option("checkpointLocation", ck).Format("memory").QueryName("after").Start()
			if c.want != "" {
				if err == nil {
					q.Stop()
					t.Fatalf("restart after the change started; want a refusal naming %q", c.want)
				}
				if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), ck) {
					t.Fatalf("restart refused with %v; want it to name %q and the checkpoint", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer q.Stop()
			if err := q.ProcessAllAvailable(); err != nil {
				t.Fatal(err)
			}
			rows, err := spark.Table("after").Rows(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, fmt.Sprintf("%v %v", r["word"], r["count"]))
			}
			sort.Strings(got)
			sameRows(t, "counts after the restart (state carried over)", got, []string{"a 2", "b 1"})
		})
	}
}

// TestGuideUnsupportedOperations: section "Unsupported Operations", the
// join support matrix, the output-mode matrix and the session window
// restrictions (Spark 3.5/4.0, with Spark's UnsupportedOperationChecker
// messages). Each query is refused at Start, with the reason, before
// anything is written: its checkpoint directory is never created. The
// actions count(), collect() and show() on a stream fail as Spark's do.
//
// Left out on purpose: distinct() on a stream, which Atlas runs as
// dropDuplicates (README: "a stream's Distinct is DropDuplicates"); limit
// in append mode, which the guide lists as unsupported while Spark 2.4+
// runs it (Atlas follows the guide); chained aggregations and an
// aggregation after a stream-stream join in append mode, which Spark 3.4+
// and Atlas run (atlas/internal/exec/opstest).
func TestGuideUnsupportedOperations(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	f := newFeed(t)
	f.add(ev(t, "12:00", "word", "a"))
	words := func() *atlas.DataFrame { return f.stream(spark, "timestamp timestamp, word string") }
	watermarked := func() *atlas.DataFrame { return words().WithWatermark("timestamp", "10 minutes") }
	static, err := spark.SQL("SELECT 'a' AS word, 1 AS n")
	if err != nil {
		t.Fatal(err)
	}
	selfJoin := func(how string) *atlas.DataFrame {
		return words().Alias("a").Join(words().Alias("b"), atlas.Col("a.word").EqualTo(atlas.Col("b.word")), how)
	}
	for _, c := range []struct {
		rule string
		df   *atlas.DataFrame
		mode string
		want string
	}{
		{"chaining stateful operations in update mode", words().GroupBy("word").Count().GroupBy("count").Count(), "update", "multiple aggregations"},
		{"sorting without aggregation", words().OrderBy("word"), "append", "sorting"},
		{"sorting in update mode", words().GroupBy("word").Count().OrderBy("word"), "update", "complete output mode"},
		{"limit in append mode", words().Limit(3), "append", "limit"},
		{"limit in update mode", words().GroupBy("word").Count().Limit(3), "update", "limit"},
		{"static left outer stream", static.Join(words(), "word", "left"), "append", "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported"},
		{"stream right outer static", words().Join(static, "word", "right"), "append", "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported"},
		{"stream full outer static", words().Join(static, "word", "full"), "append", "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported"},
		{"static left semi stream", static.Join(words(), "word", "left_semi"), "append", "LeftSemi join with a streaming DataFrame/Dataset on the right"},
		{"static left anti stream", static.Join(words(), "word", "left_anti"), "append", "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported"},
		{"stream-stream left outer without watermark", selfJoin("left"), "append", "not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition"},
		{"stream-stream join in update mode", selfJoin("inner"), "update", "Join between two streaming DataFrames/Datasets is not supported in update output mode, only in Append output mode"},
		{"complete mode without aggregation", words(), "complete", "complete output mode not supported when there are no streaming aggregations"},
		{"append mode, aggregation without watermark", words().GroupBy("word").Count(), "append", "append output mode not supported when there are streaming aggregations on streaming DataFrames without watermark"},
		{"distinct aggregation", words().GroupBy().Agg(atlas.CountDistinct(atlas.Col("word"))), "complete", "distinct aggregations are not supported on streaming DataFrames/Datasets"},
		{"session window as the only grouping key", watermarked().GroupBy(atlas.SessionWindow(atlas.Col("timestamp"), "5 minutes")).Count(), "append", "global aggregation with session window in streaming query is not supported"},
		{"dropDuplicatesWithinWatermark without watermark", words().DropDuplicatesWithinWatermark("word"), "append", "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark"},
		// "Conditions for watermarking to clean aggregation state":
		// df.withWatermark("time", "1 min").groupBy("time2").count() and
		// df.groupBy("time").count().withWatermark("time", "1 min") are
		// invalid in Append output mode.
		{"watermark on another column than the aggregation's", words().WithColumn("time2", atlas.Col("timestamp")).WithWatermark("timestamp", "1 minute").GroupBy("time2").Count(), "append", "append output mode needs the watermarked column"},
		{"watermark after the aggregation", words().GroupBy("timestamp").Count().WithWatermark("timestamp", "1 minute"), "append", "withWatermark after groupBy is not supported"},
	} {
		ck := filepath.Join(t.TempDir(), "ck")
		q, err := c.df.WriteStream().OutputMode(c.mode).Option("checkpointLocation", ck).Format("memory").QueryName("refused").Start()
		if err == nil {
			q.Stop()
			t.Errorf("%s: the query started", c.rule)
			continue
		}
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) {
			t.Errorf("%s: refused with %v; want %q", c.rule, err, c.want)
		}
		if _, err := os.Stat(ck); !os.IsNotExist(err) {
			t.Errorf("%s: the refused query created its checkpoint %s (%v)", c.rule, ck, err)
		}
	}
	// "count() - Cannot return a single count from a streaming Dataset",
	// show() and collect(): Spark's "Queries with streaming sources must be
	// executed with writeStream.start()".
	ctx := context.Background()
	const action = "queries with streaming sources must be executed with writeStream.start()"
	if _, err := words().Count(ctx); err == nil || !strings.Contains(err.Error(), action) {
		t.Errorf("count() on a stream: %v", err)
	}
	if _, err := words().Rows(ctx); err == nil || !strings.Contains(err.Error(), action) {
		t.Errorf("collect() on a stream: %v", err)
	}
	if err := words().Show(); err == nil || !strings.Contains(err.Error(), action) {
		t.Errorf("show() on a stream: %v", err)
	}
	// "ds.groupBy().count() ... returns a streaming Dataset containing a running count".
	q, err := words().GroupBy().Count().WriteStream().OutputMode("complete").Format("memory").QueryName("running").Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	if rows, err := spark.Table("running").Rows(ctx); err != nil || fmt.Sprint(rows) != "[map[count:1]]" {
		t.Errorf("running count: %v %v", rows, err)
	}
}

func lineEv(line string) string { return fmt.Sprintf(`{"value":%q}`, line) }

func countRow(key string) func(atlas.Row) string {
	return func(r atlas.Row) string { return fmt.Sprintf("%v %v", r[key], r["count"]) }
}

// TestGuideQuickExampleWordCount: the guide's first example (getting
// started, "Quick Example"), its lines read from a file stream instead of a
// socket: lines.select(explode(split(lines.value, " ")).alias("word"))
// .groupBy("word").count() in complete mode, into the memory sink its
// "Output Sinks" section shows (queryName("aggregates"), then
// spark.sql("select * from aggregates")). The guide prints, after "apache
// spark" then "apache hadoop": batch 0 apache 1, spark 1; batch 1 apache 2,
// spark 1, hadoop 1. The R tab's selectExpr("explode(split(value, ' ')) as
// word") gives the same words.
func TestGuideQuickExampleWordCount(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	ctx := context.Background()
	f := newFeed(t)
	lines := f.stream(spark, "value string")
	words := lines.Select(atlas.Explode(atlas.Split(atlas.Col("value"), " ")).Alias("word"))
	q, err := words.GroupBy("word").Count().WriteStream().QueryName("aggregates").OutputMode("complete").Format("memory").Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	table := func() []string {
		t.Helper()
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
		df, err := spark.SQL("select * from aggregates")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := df.Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, countRow("word")(r))
		}
		sort.Strings(out)
		return out
	}
	f.add(lineEv("apache spark"))
	sameRows(t, "batch 0", table(), []string{"apache 1", "spark 1"})
	f.add(lineEv("apache hadoop"))
	sameRows(t, "batch 1", table(), []string{"apache 2", "spark 1", "hadoop 1"})

	// "Monitoring Streaming Queries": lastProgress holds the fields of the
	// guide's example (Spark 3.0 renamed durationMs.getOffset to
	// latestOffset), and status its three.
	p := q.LastProgress()
	if p == nil {
		t.Fatal("no lastProgress")
	}
	var js map[string]any
	if err := json.Unmarshal([]byte(p.JSON()), &js); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "runId", "name", "timestamp", "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "durationMs", "stateOperators", "sources", "sink", "batchId"} {
		if _, ok := js[k]; !ok {
			t.Errorf("lastProgress has no %q: %s", k, p.JSON())
		}
	}
	if js["name"] != "aggregates" || js["numInputRows"] != 1.0 || js["batchId"] != 1.0 {
		t.Errorf("lastProgress name, numInputRows, batchId: %v %v %v", js["name"], js["numInputRows"], js["batchId"])
	}
	for _, k := range []string{"triggerExecution", "latestOffset", "addBatch"} {
		if _, ok := js["durationMs"].(map[string]any)[k]; !ok {
			t.Errorf("lastProgress.durationMs has no %q", k)
		}
	}
	srcs, _ := js["sources"].([]any)
	if len(srcs) != 1 {
		t.Fatalf("lastProgress.sources: %v", js["sources"])
	}
	src := srcs[0].(map[string]any)
	for _, k := range []string{"description", "startOffset", "endOffset", "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond"} {
		if _, ok := src[k]; !ok {
			t.Errorf("lastProgress.sources[0] has no %q", k)
		}
	}
	if _, ok := js["sink"].(map[string]any)["description"]; !ok {
		t.Errorf("lastProgress.sink has no description")
	}
	ops, _ := js["stateOperators"].([]any)
	if len(ops) != 1 || ops[0].(map[string]any)["numRowsTotal"] != 3.0 {
		t.Errorf("lastProgress.stateOperators: want one operator holding 3 rows (apache, spark, hadoop): %v", js["stateOperators"])
	}
	if st := q.Status(); st.Message != "Waiting for data to arrive" || st.IsTriggerActive {
		t.Errorf("status %+v, want the guide's {Waiting for data to arrive, isDataAvailable false, isTriggerActive false}", st)
	}

	// selectExpr(lines, "explode(split(value, ' ')) as word"), and
	// explode_outer, on a batch DataFrame.
	batch, err := spark.SQL("SELECT 1 AS n, 'apache spark' AS value UNION ALL SELECT 2, '' UNION ALL SELECT 3, CAST(NULL AS STRING)")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := batch.SelectExpr("n", "explode(split(value, ' ')) as word").Rows(ctx)
	if err != nil || fmt.Sprint(rows) != "[map[n:1 word:apache] map[n:1 word:spark] map[n:2 word:]]" {
		t.Errorf("selectExpr explode: %v %v", rows, err)
	}
	rows, err = batch.Select(atlas.Col("n"), atlas.ExplodeOuter(atlas.Split(atlas.Col("value"), " "))).Rows(ctx)
	if err != nil || fmt.Sprint(rows) != "[map[col:apache n:1] map[col:spark n:1] map[col: n:2] map[col:<nil> n:3]]" {
		t.Errorf("explode_outer: %v %v", rows, err)
	}
	if _, err := batch.Where(atlas.Size(atlas.Explode(atlas.Split(atlas.Col("value"), " "))).Gt(0)).Rows(ctx); err == nil || !strings.Contains(err.Error(), "generator") {
		t.Errorf("explode outside select: %v", err)
	}
}

// TestGuideWordCountFigure: the figure of "Programming Model" (Model of
// the Quick Example): lines "cat dog", "dog dog" at time 1, "owl cat" at
// time 2, "dog", "owl" at time 3. Complete mode writes the whole result
// table at each time (cat 1 dog 3; cat 2 dog 3 owl 1; cat 2 dog 4 owl 2);
// update mode writes only the rows that changed.
func TestGuideWordCountFigure(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	inputs := [][]string{{lineEv("cat dog"), lineEv("dog dog")}, {lineEv("owl cat")}, {lineEv("dog"), lineEv("owl")}}
	for _, c := range []struct {
		mode string
		want [][]string
	}{
		{"complete", [][]string{{"cat 1", "dog 3"}, {"cat 2", "dog 3", "owl 1"}, {"cat 2", "dog 4", "owl 2"}}},
		{"update", [][]string{{"cat 1", "dog 3"}, {"cat 2", "owl 1"}, {"dog 4", "owl 2"}}},
	} {
		f := newFeed(t)
		col := &collector{format: countRow("word")}
		words := f.stream(spark, "value string").Select(atlas.Explode(atlas.Split(atlas.Col("value"), " ")).Alias("word"))
		q, err := words.GroupBy("word").Count().WriteStream().QueryName("wordcount_" + c.mode).OutputMode(c.mode).Progress(false).ForeachBatch(col.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		for i, in := range inputs {
			sameRows(t, fmt.Sprintf("%s mode, time %d", c.mode, i+1), trigger(t, q, f, col, in...), c.want[i])
		}
		q.Stop()
	}
}

// TestGuideRestartSameQuery: "Recovering from Failures with Checkpointing":
// "you can recover the previous progress and state of a previous query, and
// continue where it left off". Each stateful example is stopped after two
// triggers and started again from its checkpoint, built anew as a notebook
// cell run again builds it (new plan ids); the triggers after the restart
// write what they wrote without it.
func TestGuideRestartSameQuery(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	restart := func(t *testing.T, name, mode string, build func() *atlas.DataFrame, c *collector) *atlas.StreamingQuery {
		t.Helper()
		q, err := build().WriteStream().QueryName(name).OutputMode(mode).Progress(false).ForeachBatch(c.fn).Start()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}

	t.Run("windowed word count, update mode", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: windowRow("word")}
		build := func() *atlas.DataFrame { return windowedCounts(spark, f) }
		in := guideWords(t)
		q := restart(t, "windowed_restart", "update", build, c)
		trigger(t, q, f, c, in[0]...)
		trigger(t, q, f, c, in[1]...)
		if err := q.Stop(); err != nil {
			t.Fatal(err)
		}
		q = restart(t, "windowed_restart", "update", build, c)
		defer q.Stop()
		sameRows(t, "12:20 trigger after the restart", trigger(t, q, f, c, in[2]...), []string{
			"12:00-12:10 dog 2", "12:05-12:15 dog 3", "12:05-12:15 owl 2", "12:10-12:20 owl 1",
			"12:10-12:20 cat 1", "12:15-12:25 cat 1", "12:15-12:25 owl 1", "12:20-12:30 owl 1",
		})
		sameRows(t, "12:25 trigger after the restart", trigger(t, q, f, c, in[3]...), []string{
			"12:10-12:20 owl 2", "12:15-12:25 owl 2", "12:05-12:15 emu 1",
		})
	})

	t.Run("stream-stream left outer join", func(t *testing.T) {
		imp, clk := newFeed(t), newFeed(t)
		c := &collector{format: joinRow}
		build := func() *atlas.DataFrame { return adJoin(spark, imp, clk, "leftOuter") }
		q := restart(t, "adjoin_restart", "append", build, c)
		joinTrigger(t, q, imp, clk, c, 0)
		joinTrigger(t, q, imp, clk, c, 1)
		if err := q.Stop(); err != nil {
			t.Fatal(err)
		}
		q = restart(t, "adjoin_restart", "append", build, c)
		defer q.Stop()
		sameRows(t, "trigger 3 after the restart", joinTrigger(t, q, imp, clk, c, 2), nil)
		sameRows(t, "trigger 4 after the restart", joinTrigger(t, q, imp, clk, c, 3), []string{"ad3@10:30 <nil>@<nil>", "ad4@13:00 ad4@13:45"})
	})

	t.Run("session windows", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: sessionRow}
		build := func() *atlas.DataFrame {
			return f.stream(spark, "userId string, timestamp timestamp").WithWatermark("timestamp", "10 minutes").
				GroupBy(atlas.SessionWindow(atlas.Col("timestamp"), "5 minutes"), atlas.Col("userId")).Count()
		}
		q := restart(t, "sessions_restart", "append", build, c)
		trigger(t, q, f, c, userEv(t, "u1", "12:00"), userEv(t, "u1", "12:03"), userEv(t, "u2", "12:01"))
		if err := q.Stop(); err != nil {
			t.Fatal(err)
		}
		q = restart(t, "sessions_restart", "append", build, c)
		defer q.Stop()
		sameRows(t, "trigger 2 after the restart", trigger(t, q, f, c, userEv(t, "u1", "12:20")), []string{"u1 12:00-12:08 2", "u2 12:01-12:06 1"})
	})

	t.Run("dropDuplicates with watermark", func(t *testing.T) {
		f := newFeed(t)
		c := &collector{format: dedupRow}
		build := func() *atlas.DataFrame {
			return f.stream(spark, "guid string, eventTime timestamp").WithWatermark("eventTime", "10 seconds").DropDuplicates("guid", "eventTime")
		}
		q := restart(t, "dedup_restart", "append", build, c)
		trigger(t, q, f, c, guidEv(t, "g1", "12:00:00"), guidEv(t, "g2", "12:00:05"))
		if err := q.Stop(); err != nil {
			t.Fatal(err)
		}
		q = restart(t, "dedup_restart", "append", build, c)
		defer q.Stop()
		sameRows(t, "a duplicate after the restart", trigger(t, q, f, c, guidEv(t, "g1", "12:00:00"), guidEv(t, "g3", "12:00:06")), []string{"g3@12:00:06"})
	})
}

// TestGuideStreamStreamOtherJoinTypes: the guide's join "can be "inner",
// "leftOuter", "rightOuter", "fullOuter", "leftSemi"", with the ad join's
// watermarks and range condition. Our rows, two triggers:
//   - trigger 1: impressions a@10:00, c@09:00; clicks a@10:30, a@10:40,
//     b@10:10 (b has no impression). Watermark after: min(10:00-2h,
//     10:40-3h) = 07:40.
//   - trigger 2: impression z@14:00, clicks z@14:20, a@10:50. Watermark
//     after: min(14:00-2h, 14:20-3h) = 11:20: a click before 11:20 can no
//     longer meet an impression (which would be at most its own time and
//     at least 11:20), an impression before 10:20 no click (at most an
//     hour later, at least 11:20).
//
// rightOuter writes b with nulls after trigger 2; fullOuter writes b and
// c; leftSemi writes each matched impression once, however many clicks.
func TestGuideStreamStreamOtherJoinTypes(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	imp := func(id, hhmm string) string {
		return fmt.Sprintf(`{"impressionAdId":%q,"impressionTime":%q}`, id, at(t, hhmm).Format(time.RFC3339))
	}
	clk := func(id, hhmm string) string {
		return fmt.Sprintf(`{"clickAdId":%q,"clickTime":%q}`, id, at(t, hhmm).Format(time.RFC3339))
	}
	for _, c := range []struct {
		how  string
		want [2][]string
	}{
		{"rightOuter", [2][]string{
			{"a@10:00 a@10:30", "a@10:00 a@10:40"},
			{"z@14:00 z@14:20", "a@10:00 a@10:50", "<nil>@<nil> b@10:10"},
		}},
		{"fullOuter", [2][]string{
			{"a@10:00 a@10:30", "a@10:00 a@10:40"},
			{"z@14:00 z@14:20", "a@10:00 a@10:50", "<nil>@<nil> b@10:10", "c@09:00 <nil>@<nil>"},
		}},
		{"leftSemi", [2][]string{
			{"a@10:00 <nil>@<nil>"},
			{"z@14:00 <nil>@<nil>"},
		}},
	} {
		t.Run(c.how, func(t *testing.T) {
			impFeed, clkFeed := newFeed(t), newFeed(t)
			col := &collector{format: joinRow}
			q, err := adJoin(spark, impFeed, clkFeed, c.how).WriteStream().QueryName("adjoin_" + c.how).Progress(false).ForeachBatch(col.fn).Start()
			if err != nil {
				t.Fatal(err)
			}
			defer q.Stop()
			impFeed.add(imp("a", "10:00"), imp("c", "09:00"))
			clkFeed.add(clk("a", "10:30"), clk("a", "10:40"), clk("b", "10:10"))
			sameRows(t, "trigger 1", trigger(t, q, impFeed, col), c.want[0])
			impFeed.add(imp("z", "14:00"))
			clkFeed.add(clk("z", "14:20"), clk("a", "10:50"))
			sameRows(t, "trigger 2", trigger(t, q, impFeed, col), c.want[1])
		})
	}
}

// TestGuideWindowOfWindows: section "Representation of the time for time
// window": windowedCounts.groupBy(window(window_time(windowedCounts.window),
// "1 hour"), windowedCounts.word).count(), and the same with
// window(windowedCounts.window, "1 hour"). window_time is a window's end
// minus one microsecond, so every 10-minute window of the guide's words
// (11:55-12:05 to 12:20-12:30) falls in 12:00-13:00, and the count per word
// is the number of 10-minute windows holding it: dog (12:07, 12:08, 12:14)
// 3, owl (12:08, 12:13, 12:17, 12:21) 5, cat (12:09, 12:15) 4, donkey
// (12:04) 2, emu (12:09) 2. A batch query: chaining two streaming
// aggregations is not supported (see TestGuideUnsupportedOperations).
func TestGuideWindowOfWindows(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	f := newFeed(t)
	for _, in := range guideWords(t) {
		f.add(in...)
	}
	words := spark.Read().Schema("timestamp timestamp, word string").JSON(f.dir)
	windowedCounts := words.GroupBy(atlas.Window(atlas.Col("timestamp"), "10 minutes", "5 minutes"), atlas.Col("word")).Count()
	want := []string{"12:00-13:00 cat 4", "12:00-13:00 dog 3", "12:00-13:00 donkey 2", "12:00-13:00 emu 2", "12:00-13:00 owl 5"}
	for name, hour := range map[string]atlas.Column{
		"window(window_time(window))": atlas.Window(atlas.WindowTime(atlas.Col("window")), "1 hour"),
		"window(window)":              atlas.Window(atlas.Col("window"), "1 hour"),
	} {
		rows, err := windowedCounts.GroupBy(hour, atlas.Col("word")).Count().Rows(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, windowRow("word")(r))
		}
		sort.Strings(got)
		sameRows(t, name, got, want)
	}
	df, err := spark.SQL("SELECT window_time(window(TIMESTAMP '2026-12-01 12:07:00', '10 minutes')) AS t")
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := df.Rows(context.Background()); err != nil || len(rows) != 1 || rows[0]["t"].(time.Time).Format("15:04:05.000000") != "12:09:59.999999" {
		t.Errorf("window_time in SQL: %v %v", rows, err)
	}
}
