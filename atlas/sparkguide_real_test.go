package atlas_test

import (
	"fmt"
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
// hand from the guide's text and written out below.

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
		{clk("ad7", "15:00")},
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
	sameRows(t, "trigger 4", joinTrigger(t, q, imp, clk, c, 3), nil)
}

// TestGuideStreamStreamLeftOuterJoin: "Outer Joins with Watermarking" and
// its caveats: "the outer NULL results will be generated with a delay that
// depends on the specified watermark delay and the time range condition",
// and "if any of the two input streams being joined does not receive data
// for a while, the outer (both cases, left or right) output may get
// delayed". The global watermark is the minimum of both streams' (max
// impression time - 2h, max click time - 3h); an impression can no longer
// match once it is older than that watermark minus the 1 hour range.
//   - trigger 1: ad1 matches; watermark min(10:30-2h, 12:00-3h) = 09:00.
//   - trigger 2: ad4 matches; watermark min(13:00-2h, 14:00-3h) = 11:00, so
//     impressions before 10:00 cannot match any more: ad2 (09:30) is written
//     with nulls (in the no-data batch the moved watermark runs).
//   - trigger 3: only impressions: the watermark stays 11:00 (clicks lag),
//     ad3 (10:30) waits.
//   - trigger 4: a click at 15:00: watermark min(16:00-2h, 15:00-3h) = 12:00,
//     ad3 (10:30 < 11:00) is written with nulls; ad4 matched, ad6 waits.
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
	sameRows(t, "trigger 4", joinTrigger(t, q, imp, clk, c, 3), []string{"ad3@10:30 <nil>@<nil>"})
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
