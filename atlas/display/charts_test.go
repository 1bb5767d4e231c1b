package display

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// withFakeBundle points the bundle path at a copy of the fake bundle.
func withFakeBundle(t *testing.T) string {
	t.Helper()
	path := displaytest.FakeBundlePath(t)
	t.Setenv(echartsjs.EnvJS, path)
	return path
}

// parseCharts reads back every chart call of a frame.
func parseCharts(t *testing.T, fragment string) (elems, slots []string, options []displaytest.Option) {
	t.Helper()
	for _, d := range displaytest.ParseCharts(t, fragment) {
		elems, slots, options = append(elems, d.Elem), append(slots, d.Slot), append(options, d.Option)
	}
	return elems, slots, options
}

// values returns a series' data as numbers times 100; "-" (missing) becomes -1.
func values(t *testing.T, o displaytest.Option, series int) []int64 {
	t.Helper()
	return displaytest.Values(t, o, series)
}

func TestProgressChartsCarryTheNumbers(t *testing.T) {
	withFakeBundle(t)
	ps := displaytest.Sample()
	frag := ProgressCharts(ps, ChartOptions{Status: "running", ExtraHTML: `<p id="extra">latest windows</p>`})

	if n := strings.Count(frag, "ec.init("); n != 4 {
		t.Fatalf("fragment has %d echarts init calls, want 4 (one per chart)", n)
	}
	if n := strings.Count(frag, "fake echarts for tests"); n != 1 {
		t.Fatalf("fragment inlines the bundle %d times, want 1", n)
	}
	if i, j := strings.Index(frag, "fake echarts for tests"), strings.Index(frag, "ec.init("); i > j {
		t.Fatalf("the bundle loader must come before the chart scripts")
	}
	elems, slots, opts := parseCharts(t, frag)
	if len(opts) != 4 {
		t.Fatalf("parsed %d chart options, want 4", len(opts))
	}
	for i, e := range elems {
		if !strings.Contains(frag, `<div class="atlas-chart" id="`+e+`"></div>`) {
			t.Errorf("chart %d draws into %q, which the fragment lacks", i, e)
		}
		if !strings.HasPrefix(e, slots[i]) {
			t.Errorf("element %q is not in slot %q", e, slots[i])
		}
	}

	wantBatches := make([]string, len(ps))
	for i := range ps {
		wantBatches[i] = strconv.FormatInt(ps[i].BatchID, 10)
	}
	for c, o := range opts {
		if o.Animation == nil || *o.Animation {
			t.Errorf("chart %d: animation not off", c)
		}
		if got := strings.Join(o.XAxis[0].Data, ","); got != strings.Join(wantBatches, ",") {
			t.Errorf("chart %d: x axis %s, want batches %s", c, got, strings.Join(wantBatches, ","))
		}
	}

	// (a) rates, two decimals kept exactly.
	in, proc := values(t, opts[0], 0), values(t, opts[0], 1)
	for i, p := range ps {
		if in[i] != int64(p.InputRowsPerSecond*100) || proc[i] != int64(p.ProcessedRowsPerSecond*100) {
			t.Errorf("rates batch %d: got %d,%d want %v,%v", i, in[i], proc[i], p.InputRowsPerSecond, p.ProcessedRowsPerSecond)
		}
	}

	// (b) durations: one stacked series per phase present plus "other";
	// each phase's values are durationMs[phase] and the stack adds up to
	// triggerExecution.
	dur := opts[1]
	var names []string
	sums := make([]int64, len(ps))
	for s, series := range dur.Series {
		names = append(names, series.Name)
		if series.Stack == "" || series.Type != "bar" {
			t.Errorf("duration series %s: type %s stack %q, want a stacked bar", series.Name, series.Type, series.Stack)
		}
		vals := values(t, dur, s)
		for i, p := range ps {
			sums[i] += vals[i] / 100
			if series.Name != "other" && vals[i]/100 != p.DurationMs[series.Name] {
				t.Errorf("duration %s batch %d: got %d want %d", series.Name, i, vals[i]/100, p.DurationMs[series.Name])
			}
		}
	}
	if got := strings.Join(names, ","); got != "latestOffset,walCommit,getBatch,addBatch,commitOffsets,other" {
		t.Errorf("duration series %s", got)
	}
	for i, p := range ps {
		if sums[i] != p.DurationMs["triggerExecution"] {
			t.Errorf("duration stack batch %d sums to %d, want triggerExecution %d", i, sums[i], p.DurationMs["triggerExecution"])
		}
	}

	// (c) event time: Unix ms on a UTC time axis, "-" where unknown or
	// where the watermark is still the epoch.
	ev := opts[2]
	if !ev.UseUTC || ev.YAxis[0].Type != "time" {
		t.Errorf("event-time chart: useUTC %v, y axis %q", ev.UseUTC, ev.YAxis[0].Type)
	}
	maxT, wm := values(t, ev, 0), values(t, ev, 1)
	for i, p := range ps {
		wantMax, wantWM := int64(-1), int64(-1)
		if p.EventTime != nil {
			wantMax = p.MaxEventTime().UnixMilli() * 100
			if w := p.Watermark().UnixMilli(); w != 0 {
				wantWM = w * 100
			}
		}
		if maxT[i] != wantMax || wm[i] != wantWM {
			t.Errorf("event time batch %d: got %d,%d want %d,%d", i, maxT[i], wm[i], wantMax, wantWM)
		}
	}

	// (d) state rows and cumulative late rows on a second axis.
	st := opts[3]
	rows, dropped := values(t, st, 0), values(t, st, 1)
	var cum int64
	for i, p := range ps {
		cum += p.StateOperators[0].NumRowsDroppedByWatermark
		if rows[i]/100 != p.StateOperators[0].NumRowsTotal || dropped[i]/100 != cum {
			t.Errorf("state batch %d: got %d,%d want %d,%d", i, rows[i]/100, dropped[i]/100, p.StateOperators[0].NumRowsTotal, cum)
		}
	}
	if st.Series[1].YAxisIndex != 1 || len(st.YAxis) != 2 {
		t.Errorf("dropped rows should use the second y axis")
	}

	// Headline: 48,660 = sum of 4000+10i for i in 0..11; the run's average
	// processing rate is those rows over the summed trigger times; last
	// batch rates rounded; watermark of batch 11 is 10:22 - 10 min.
	var busyMs int64
	for _, p := range ps {
		busyMs += p.DurationMs["triggerExecution"]
	}
	avg := numfmt.Group(int64(math.Round(48660 * 1000 / float64(busyMs))))
	for _, w := range []string{"<b>events</b>", "batch 11", "48,660 rows so far", "avg proc " + avg + "/s", "last batch: in 51,101/s, proc 411,000/s",
		"watermark 2026-11-30 10:12:00", `<span class="atlas-status">running</span>`, `<p id="extra">latest windows</p>`} {
		if !strings.Contains(frag, w) {
			t.Errorf("fragment lacks %q", w)
		}
	}
}

func TestProgressChartsWithoutBundleShowsNumbersAndNote(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere", "echarts.min.js")
	t.Setenv(echartsjs.EnvJS, missing)
	ps := displaytest.Sample()
	frag := ProgressCharts(ps, ChartOptions{Title: "clicks"})
	for _, w := range []string{"make kernel", "atlas assets", missing, echartsjs.EnvJS, "<b>clicks</b>", "batch 11"} {
		if !strings.Contains(frag, w) {
			t.Errorf("fragment without bundle lacks %q", w)
		}
	}
	if strings.Contains(frag, "ec.init(") || strings.Contains(frag, "<script") {
		t.Errorf("fragment without bundle must not try to draw charts")
	}
	body := frag[strings.Index(frag, "<tbody>"):strings.Index(frag, "</tbody>")]
	if n := strings.Count(body, "<tr>"); n != 10 {
		t.Errorf("numbers table has %d rows, want the last 10 batches", n)
	}
	// Batch 11's row: cumulative dropped over all 12 batches is 12.
	if !strings.Contains(body, `<td class="num">11</td><td class="num">4,110</td><td class="num">51,101</td><td class="num">411,000</td><td class="num">133</td><td>2026-11-30 10:22:00</td><td>2026-11-30 10:12:00</td><td class="num">41</td><td class="num">12</td>`) {
		t.Errorf("numbers table lacks batch 11's row:\n%s", body)
	}
}

func TestProgressChartsBeforeFirstBatch(t *testing.T) {
	withFakeBundle(t)
	frag := ProgressCharts(nil, ChartOptions{Title: "events", Status: "waiting for data"})
	if !strings.Contains(frag, "waiting for the first batch") || !strings.Contains(frag, "No micro-batch has completed yet") {
		t.Errorf("empty progress fragment: %s", frag)
	}
	if strings.Contains(frag, "ec.init(") {
		t.Errorf("empty progress must draw no charts")
	}
}

// TestNoEmptyPanels: a query without a watermark or state (a plain copy)
// gets the rates and duration charts only, a query with state but no
// watermark adds the state chart, a windowed query has all four.
func TestNoEmptyPanels(t *testing.T) {
	withFakeBundle(t) // the charts belong to a frame with the bundle; never depend on an installed bundle
	titles := func(ps []progress.StreamingQueryProgress) string {
		_, _, opts := parseCharts(t, ProgressCharts(ps, ChartOptions{Title: "q"}))
		var out []string
		for _, o := range opts {
			out = append(out, o.Title.Text)
		}
		return strings.Join(out, "|")
	}
	stateless := displaytest.Sample()
	for i := range stateless {
		stateless[i].EventTime = nil
		stateless[i].StateOperators = nil
	}
	if got, want := titles(stateless), "rows / second (log scale)|trigger duration (ms)"; got != want {
		t.Errorf("stateless query charts %q, want %q", got, want)
	}
	dedup := displaytest.Sample()
	for i := range dedup {
		dedup[i].EventTime = nil
	}
	if got, want := titles(dedup), "rows / second (log scale)|trigger duration (ms)|state rows / late rows dropped"; got != want {
		t.Errorf("stateful query without a watermark: charts %q, want %q", got, want)
	}
	all := "rows / second (log scale)|trigger duration (ms)|event time (UTC)|state rows / late rows dropped"
	if got := titles(displaytest.Sample()); got != all {
		t.Errorf("windowed query charts %q, want %q", got, all)
	}
	// Batches that read no rows still report the watermark: a watched
	// windowed query that has caught up keeps its event-time chart.
	idle := displaytest.Sample()
	for i := range idle {
		idle[i].EventTime = map[string]string{"watermark": idle[i].EventTime["watermark"]}
	}
	if got := titles(idle); got != all {
		t.Errorf("caught-up windowed query charts %q, want %q", got, all)
	}
}

// TestRatesChartIsLog: the rates share one log axis, so an input of 40/s
// stays visible next to 40,000/s processed, and a zero rate (no previous
// trigger) is a gap, never log 0.
func TestRatesChartIsLog(t *testing.T) {
	withFakeBundle(t)
	ps := displaytest.Sample()
	ps[0].InputRowsPerSecond = 0
	frag := ProgressCharts(ps, ChartOptions{Title: "q"})
	if !strings.Contains(frag, `"yAxis":[{"type":"log"`) {
		t.Errorf("the rates chart has no log value axis:\n%s", frag)
	}
	_, _, opts := parseCharts(t, frag)
	if got := values(t, opts[0], 0); got[0] != -1 || got[1] <= 0 {
		t.Errorf("input rates %v: want a gap for the zero rate, then positive values", got)
	}
}

// TestForeachBatchQueryChartsItsWrites: a query that reports table writes
// in sink.metrics and has no event time and no state charts rows updated,
// deleted and inserted per batch and files rewritten with the write time,
// with the numbers of its progress, instead of two empty charts; a
// windowed query keeps its event-time and state charts.
func TestForeachBatchQueryChartsItsWrites(t *testing.T) {
	withFakeBundle(t)
	ps := displaytest.Sample()
	for i := range ps {
		ps[i].EventTime = nil
		ps[i].StateOperators = nil
		ps[i].Sink.Metrics = map[string]string{
			progress.SinkNumWrites:         "1",
			progress.SinkNumUpdatedRows:    strconv.Itoa(10 * (i + 1)),
			progress.SinkNumDeletedRows:    strconv.Itoa(i),
			progress.SinkNumInsertedRows:   strconv.Itoa(100 + i),
			progress.SinkNumFilesRewritten: strconv.Itoa(2 * i),
			progress.SinkWriteTimeMs:       strconv.Itoa(40 + i),
		}
	}
	frag := ProgressCharts(ps, ChartOptions{Title: "cdc"})
	_, _, opts := parseCharts(t, frag)
	if len(opts) != 4 || opts[2].Title.Text != "rows written per batch" || opts[3].Title.Text != "files rewritten / write time (ms)" {
		t.Fatalf("charts %+v", opts)
	}
	want := func(f func(i int) int) []int64 {
		var out []int64
		for i := range ps {
			out = append(out, int64(f(i)*100))
		}
		return out
	}
	for s, w := range [][]int64{want(func(i int) int { return 10 * (i + 1) }), want(func(i int) int { return i }), want(func(i int) int { return 100 + i })} {
		if got := values(t, opts[2], s); !slicesEqual(got, w) {
			t.Errorf("rows chart series %s = %v, want %v", opts[2].Series[s].Name, got, w)
		}
	}
	if got := values(t, opts[3], 0); !slicesEqual(got, want(func(i int) int { return 2 * i })) {
		t.Errorf("files rewritten = %v", got)
	}
	if got := values(t, opts[3], 1); !slicesEqual(got, want(func(i int) int { return 40 + i })) || opts[3].Series[1].YAxisIndex != 1 {
		t.Errorf("write time = %v on axis %d", got, opts[3].Series[1].YAxisIndex)
	}
	_, _, opts = parseCharts(t, ProgressCharts(displaytest.Sample(), ChartOptions{Title: "events"}))
	if len(opts) != 4 || opts[2].Title.Text != "event time (UTC)" {
		t.Fatalf("windowed query charts %+v", opts)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
