package progresschart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Chart is one chart of a progress frame: its title, its echarts option
// as JSON (animation off, "</" escaped, ready for echartsjs.ChartScript),
// and whether its value axis holds times (the page then formats tooltips
// as UTC date-times).
type Chart struct {
	Title  string
	Option string
	TimeY  bool
}

// durationPhases are the durationMs phases stacked in the duration chart, in
// the order a Spark trigger runs them. Whatever triggerExecution has beyond
// their sum is shown as "other".
var durationPhases = []string{"latestOffset", "walCommit", "getBatch", "queryPlanning", "addBatch", "commitOffsets"}

// emptyValue is echarts' marker for a missing data point.
const emptyValue = "-"

// Build builds the four charts of a progress frame: (a) input vs
// processed rows/s, (b) trigger duration by phase, (c) max event time vs
// watermark, (d) rows in state and rows dropped by the watermark
// (cumulative), each over the batches of ps.
//
// A query whose batches report table writes (a foreachBatch with MERGE
// INTO or INSERT: progress.SinkNumWrites in sink.metrics) and that has no
// event time and no state gets charts that fit it instead of (c) and (d):
// rows updated, deleted and inserted per batch, and data files rewritten
// with the write time.
func Build(ps []progress.StreamingQueryProgress) ([]Chart, error) {
	builders := []func([]progress.StreamingQueryProgress, []string) (render.Renderer, bool){
		ratesChart, durationChart, eventTimeChart, stateChart,
	}
	if writesOnly(ps) {
		builders = []func([]progress.StreamingQueryProgress, []string) (render.Renderer, bool){
			ratesChart, durationChart, writtenRowsChart, writeCostChart,
		}
	}
	batches := make([]string, len(ps))
	for i := range ps {
		batches[i] = strconv.FormatInt(ps[i].BatchID, 10)
	}
	out := make([]Chart, 0, len(builders))
	for _, build := range builders {
		r, timeY := build(ps, batches)
		opt, title, err := finish(r.RenderSnippet().Option, timeY)
		if err != nil {
			return nil, err
		}
		out = append(out, Chart{Title: title, Option: opt, TimeY: timeY})
	}
	return out, nil
}

// FinishOption turns go-echarts' option JSON into the option the page sets:
// animation off, and echarts told that times are UTC for time axes. The
// result is plain JSON (no functions) with "</" escaped so it can sit inside
// a <script> element.
func FinishOption(option string, timeY bool) (string, error) {
	opt, _, err := finish(option, timeY)
	return opt, err
}

// finish is FinishOption that also returns the chart's title text.
func finish(option string, timeY bool) (opt, title string, err error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(option)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", "", fmt.Errorf("progresschart: decoding go-echarts option: %w", err)
	}
	if t, ok := m["title"].(map[string]any); ok {
		title, _ = t["text"].(string)
	}
	m["animation"] = false
	if timeY {
		m["useUTC"] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return "", "", fmt.Errorf("progresschart: encoding chart option: %w", err)
	}
	out := bytes.TrimSpace(buf.Bytes())
	return string(bytes.ReplaceAll(out, []byte("</"), []byte(`<\/`))), title, nil
}

// commonOpts are the options every progress chart shares: compact grid,
// small title, axis tooltip, one-line legend at the bottom, no animation,
// x axis of batch ids.
func commonOpts(title string) []charts.GlobalOpts { return notedOpts(title, "") }

// notedOpts is commonOpts with a note under the title, saying why a chart
// stays flat (a query without a watermark has no event time to draw).
func notedOpts(title, note string) []charts.GlobalOpts {
	top := "34"
	if note != "" {
		top = "52"
	}
	return []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: note, Left: "center",
			TitleStyle: &opts.TextStyle{FontSize: 13, FontWeight: "normal"}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "12", Top: top, Bottom: "30", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
	}
}

// Notes for charts a query has nothing to draw in.
const (
	// NoEventTimeNote is under the event-time chart of a query without a watermark.
	NoEventTimeNote = "no event time: the query has no watermark (WithWatermark)"
	// NoStateNote is under the state chart of a query without state.
	NoStateNote = "no state: the query has no stateful operator"
)

func ratesChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	in := make([]opts.LineData, len(ps))
	proc := make([]opts.LineData, len(ps))
	for i := range ps {
		in[i] = opts.LineData{Value: ps[i].InputRowsPerSecond}
		proc[i] = opts.LineData{Value: ps[i].ProcessedRowsPerSecond}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(append(commonOpts("rows / second"),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}))...)
	c.SetXAxis(batches).
		AddSeries("input rows/s", in).
		AddSeries("processed rows/s", proc)
	return c, false
}

func durationChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	var present []string
	for _, phase := range durationPhases {
		for i := range ps {
			if ps[i].DurationMs[phase] != 0 {
				present = append(present, phase)
				break
			}
		}
	}
	c := charts.NewBar()
	c.SetGlobalOptions(append(commonOpts("trigger duration (ms)"),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}))...)
	c.SetXAxis(batches)
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "ms"})
	if len(present) == 0 {
		total := make([]opts.BarData, len(ps))
		for i := range ps {
			total[i] = opts.BarData{Value: ps[i].TriggerMs()}
		}
		c.AddSeries("triggerExecution", total, stack)
		return c, false
	}
	other := make([]opts.BarData, len(ps))
	for i := range ps {
		rest := ps[i].TriggerMs()
		for _, phase := range present {
			rest -= ps[i].DurationMs[phase]
		}
		other[i] = opts.BarData{Value: max(rest, 0)}
	}
	for _, phase := range present {
		data := make([]opts.BarData, len(ps))
		for i := range ps {
			data[i] = opts.BarData{Value: ps[i].DurationMs[phase]}
		}
		c.AddSeries(phase, data, stack)
	}
	c.AddSeries("other", other, stack)
	return c, false
}

// eventMillis is t as Unix milliseconds for a time axis, or echarts' empty
// marker when t is unset. Spark reports the watermark as the Unix epoch
// until it first moves; that is shown as missing too.
func eventMillis(t time.Time) any {
	if t.IsZero() || t.UnixMilli() == 0 || t.UnixMilli() > maxJSMillis {
		return emptyValue
	}
	return t.UnixMilli()
}

// maxJSMillis is the last instant a JavaScript Date (and so an echarts
// time axis) holds, +275760-09-13: a watermark dragged to Spark's largest
// timestamp (year 294247) is drawn as missing; the headline names it.
const maxJSMillis = 8_640_000_000_000_000

func eventTimeChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	maxT := make([]opts.LineData, len(ps))
	wm := make([]opts.LineData, len(ps))
	note := NoEventTimeNote
	for i := range ps {
		maxT[i] = opts.LineData{Value: eventMillis(ps[i].MaxEventTime())}
		wm[i] = opts.LineData{Value: eventMillis(ps[i].Watermark())}
		if !ps[i].MaxEventTime().IsZero() {
			note = ""
		}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(append(notedOpts("event time (UTC)", note),
		charts.WithYAxisOpts(opts.YAxis{Type: "time", Scale: opts.Bool(true), SplitNumber: 4}))...)
	c.SetXAxis(batches).
		AddSeries("max event time", maxT).
		AddSeries("watermark", wm, charts.WithLineChartOpts(opts.LineChart{Step: "end"}))
	return c, true
}

func stateChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	rows := make([]opts.LineData, len(ps))
	dropped := make([]opts.LineData, len(ps))
	nulls := make([]opts.LineData, len(ps))
	futures := make([]opts.LineData, len(ps))
	var cum, cumNull, cumFuture int64
	note := NoStateNote
	for i := range ps {
		r, d := ps[i].StateTotals()
		n, f := ps[i].EventTimeCounts()
		cum, cumNull, cumFuture = cum+d, cumNull+n, cumFuture+f
		rows[i] = opts.LineData{Value: r}
		dropped[i] = opts.LineData{Value: cum}
		nulls[i] = opts.LineData{Value: cumNull}
		futures[i] = opts.LineData{Value: cumFuture}
		if len(ps[i].StateOperators) > 0 {
			note = ""
		}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(append(notedOpts("state rows / late rows dropped", note),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}))...)
	c.ExtendYAxis(opts.YAxis{Type: "value", Position: "right"})
	c.SetXAxis(batches).
		AddSeries("rows in state", rows).
		AddSeries("dropped by watermark (cum.)", dropped, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	// Rows that joined no window for want of a usable event time: shown
	// only once there are some, so ordinary queries keep two lines.
	if cumNull > 0 {
		c.AddSeries("null event time (cum.)", nulls, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	}
	if cumFuture > 0 {
		c.AddSeries("future event time (cum.)", futures, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	}
	return c, false
}
