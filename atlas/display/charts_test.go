package display

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// fakeBundle is a stand-in for echarts.min.js with the same UMD header as
// the real bundle: CommonJS first, then AMD, then a browser global. Its
// init records what the page asks of it so a test can run frames in node.
const fakeBundle = `/* fake echarts for tests */
!function(t,e){"object"==typeof exports&&"undefined"!=typeof module?e(exports):"function"==typeof define&&define.amd?define(["exports"],e):e((t="undefined"!=typeof globalThis?globalThis:t||self).echarts={})}(this,function(t){"use strict";
var byDom=new Map();t.version="fake";t.inits=[];t.disposed=0;
t.getInstanceByDom=function(el){return byDom.get(el);};
t.init=function(el,theme,opts){var c={dom:el,gone:false,options:[],
 setOption:function(o){this.options.push(o);},isDisposed:function(){return this.gone;},
 dispose:function(){this.gone=true;byDom.delete(el);t.disposed++;},getDom:function(){return el;},resize:function(){}};
 byDom.set(el,c);t.inits.push(c);return c;};
});
`

// withFakeBundle points EchartsPath at a copy of fakeBundle.
func withFakeBundle(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(path, []byte(fakeBundle), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvEchartsJS, path)
	return path
}

var chartCallRE = regexp.MustCompile(`var elemId="([^"]+)",slot="([^"]+)",option=(.*?),timeY=(true|false),tries=0;`)

// chartOption is the part of an echarts option the tests read back.
type chartOption struct {
	Animation *bool `json:"animation"`
	UseUTC    bool  `json:"useUTC"`
	Title     struct {
		Text string `json:"text"`
	} `json:"title"`
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	YAxis []struct {
		Type string `json:"type"`
	} `json:"yAxis"`
	Series []struct {
		Name       string `json:"name"`
		Type       string `json:"type"`
		Stack      string `json:"stack"`
		YAxisIndex int    `json:"yAxisIndex"`
		Data       []struct {
			Value json.RawMessage `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

// parseCharts reads back every chart call of a frame.
func parseCharts(t *testing.T, fragment string) (elems, slots []string, options []chartOption) {
	t.Helper()
	for _, m := range chartCallRE.FindAllStringSubmatch(fragment, -1) {
		var o chartOption
		if err := json.Unmarshal([]byte(m[3]), &o); err != nil {
			t.Fatalf("chart option is not valid JSON: %v\n%s", err, m[3])
		}
		elems, slots, options = append(elems, m[1]), append(slots, m[2]), append(options, o)
	}
	return elems, slots, options
}

// values returns a series' data as numbers; "-" (missing) becomes -1.
func values(t *testing.T, o chartOption, series int) []int64 {
	t.Helper()
	var out []int64
	for _, d := range o.Series[series].Data {
		if string(d.Value) == `"-"` {
			out = append(out, -1)
			continue
		}
		f, err := strconv.ParseFloat(string(d.Value), 64)
		if err != nil {
			t.Fatalf("series %s value %s: %v", o.Series[series].Name, d.Value, err)
		}
		out = append(out, int64(f*100)) // rates carry two decimals
	}
	return out
}

func TestProgressChartsCarryTheNumbers(t *testing.T) {
	withFakeBundle(t)
	ps := sampleProgress()
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
	t.Setenv(EnvEchartsJS, missing)
	ps := sampleProgress()
	frag := ProgressCharts(ps, ChartOptions{Title: "clicks"})
	for _, w := range []string{"make kernel", "atlas assets", missing, EnvEchartsJS, "<b>clicks</b>", "batch 11"} {
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

func TestLoaderShadowsAMDAndCommonJS(t *testing.T) {
	s := loaderScript([]byte(fakeBundle))
	if !strings.Contains(s, "(function(define,module,exports){") {
		t.Fatalf("loader does not shadow define/module/exports:\n%s", s)
	}
	if !strings.Contains(s, "if(window.atlasEcharts){return;}") {
		t.Fatalf("loader does not guard against loading twice")
	}
	withClose := loaderScript([]byte(`var s="</script><!--";`))
	if strings.Count(withClose, "</script") != 1 || strings.Contains(withClose, "<!--") {
		t.Fatalf("loader must escape </script and <!-- inside the bundle:\n%s", withClose)
	}
}

func TestFinishOptionEscapesScriptEnd(t *testing.T) {
	got, err := finishOption(`{"title":{"text":"a</script>b"}}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "</") {
		t.Fatalf("option keeps </: %s", got)
	}
	var back struct {
		Title struct{ Text string } `json:"title"`
	}
	if err := json.Unmarshal([]byte(got), &back); err != nil || back.Title.Text != "a</script>b" {
		t.Fatalf("escaped option does not parse back: %v %q", err, back.Title.Text)
	}
}

// frameScripts returns the bodies of a fragment's scripts, in order.
func frameScripts(fragment string) []string {
	re := regexp.MustCompile(`(?s)<script type="text/javascript">(.*?)</script>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(fragment, -1) {
		out = append(out, m[1])
	}
	return out
}

// progressFrame renders a frame of a live view directly.
func progressFrame(ps []progress.StreamingQueryProgress, prefix string, seq int, mode chartsMode, bundle []byte) string {
	f := frame{ps: ps, prefix: prefix, seq: seq, mode: mode, bundle: bundle}
	return f.render()
}

// TestFlatChartsSayWhy: a query without a watermark or state (a
// foreachBatch upsert) gets a note under those two charts, a windowed
// query none.
func TestFlatChartsSayWhy(t *testing.T) {
	withFakeBundle(t) // the notes belong to drawn charts; never depend on an installed bundle
	stateless := sampleProgress()
	for i := range stateless {
		stateless[i].EventTime = nil
		stateless[i].StateOperators = nil
	}
	frag := ProgressCharts(stateless, ChartOptions{Title: "cdc"})
	for _, note := range []string{noEventTimeNote, noStateNote} {
		if !strings.Contains(frag, note) {
			t.Errorf("stateless query: fragment lacks the note %q", note)
		}
	}
	frag = ProgressCharts(sampleProgress(), ChartOptions{Title: "events"})
	for _, note := range []string{noEventTimeNote, noStateNote} {
		if strings.Contains(frag, note) {
			t.Errorf("windowed query: fragment has the note %q", note)
		}
	}
}

// TestForeachBatchQueryChartsItsWrites: a query that reports table writes
// in sink.metrics and has no event time and no state charts rows updated,
// deleted and inserted per batch and files rewritten with the write time,
// with the numbers of its progress, instead of two empty charts; a
// windowed query keeps its event-time and state charts.
func TestForeachBatchQueryChartsItsWrites(t *testing.T) {
	withFakeBundle(t)
	ps := sampleProgress()
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
	for _, note := range []string{noEventTimeNote, noStateNote} {
		if strings.Contains(frag, note) {
			t.Errorf("foreachBatch query: fragment has the empty-chart note %q", note)
		}
	}
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
	_, _, opts = parseCharts(t, ProgressCharts(sampleProgress(), ChartOptions{Title: "events"}))
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
