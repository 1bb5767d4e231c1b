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

// Build builds the charts of a progress frame, each over the batches of
// ps: (a) input vs processed rows/s, on a log scale (a processed rate a
// thousand times the input rate would flatten the input to zero on a
// linear one), (b) trigger duration by phase, (c) max event time vs
// watermark, only when the query has a watermark (its batches report
// eventTime), (d) rows in state and rows dropped by the watermark
// (cumulative), only when a batch reports a stateful operator. A query
// without a watermark or state gets no empty panel for them.
//
// A query whose batches report table writes (a foreachBatch with MERGE
// INTO or INSERT: progress.SinkNumWrites in sink.metrics) and that has no
// event time and no state gets charts that fit it instead of (c) and (d):
// rows updated, deleted and inserted per batch, and data files rewritten
// with the write time.
func Build(ps []progress.StreamingQueryProgress) ([]Chart, error) {
	builders := []func([]progress.StreamingQueryProgress, []string) (render.Renderer, bool){
		ratesChart, durationChart,
	}
	if hasEventTime(ps) {
		builders = append(builders, eventTimeChart)
	}
	if hasState(ps) {
		builders = append(builders, stateChart)
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
func commonOpts(title string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: title, Left: "center",
			TitleStyle: &opts.TextStyle{FontSize: 13, FontWeight: "normal"}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "12", Top: "34", Bottom: "30", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
	}
}

// hasEventTime reports whether a batch of ps reports event times: a
// query with a watermark reports eventTime (its watermark at least) for
// every batch, also one that read no rows.
func hasEventTime(ps []progress.StreamingQueryProgress) bool {
	for i := range ps {
		if len(ps[i].EventTime) > 0 {
			return true
		}
	}
	return false
}

// hasState reports whether a batch of ps reports a stateful operator, or
// rows left out for their event time (counted in the state chart).
func hasState(ps []progress.StreamingQueryProgress) bool {
	for i := range ps {
		n, f := ps[i].EventTimeCounts()
		if len(ps[i].StateOperators) > 0 || n > 0 || f > 0 {
			return true
		}
	}
	return false
}

// positiveOrEmpty is v for a log axis: echarts' empty marker when v is
// not positive (a first batch has no input rate; log 0 is undefined).
func positiveOrEmpty(v float64) any {
	if v <= 0 {
		return emptyValue
	}
	return v
}

func ratesChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	in := make([]opts.LineData, len(ps))
	proc := make([]opts.LineData, len(ps))
	for i := range ps {
		in[i] = opts.LineData{Value: positiveOrEmpty(ps[i].InputRowsPerSecond)}
		proc[i] = opts.LineData{Value: positiveOrEmpty(ps[i].ProcessedRowsPerSecond)}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(append(commonOpts("rows / second (log scale)"),
		charts.WithYAxisOpts(opts.YAxis{Type: "log"}))...)
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
	for i := range ps {
		maxT[i] = opts.LineData{Value: eventMillis(ps[i].MaxEventTime())}
		wm[i] = opts.LineData{Value: eventMillis(ps[i].Watermark())}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(append(commonOpts("event time (UTC)"),
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
	for i := range ps {
		r, d := ps[i].StateTotals()
		n, f := ps[i].EventTimeCounts()
		cum, cumNull, cumFuture = cum+d, cumNull+n, cumFuture+f
		rows[i] = opts.LineData{Value: r}
		dropped[i] = opts.LineData{Value: cum}
		nulls[i] = opts.LineData{Value: cumNull}
		futures[i] = opts.LineData{Value: cumFuture}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(append(commonOpts("state rows / late rows dropped"),
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
