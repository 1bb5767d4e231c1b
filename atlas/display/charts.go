package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// chartSpec is one chart of a progress frame: its echarts option as JSON
// and whether its value axis holds times (the page then formats tooltips
// as UTC date-times).
type chartSpec struct {
	option string
	timeY  bool
}

// durationPhases are the durationMs phases stacked in the duration chart, in
// the order a Spark trigger runs them. Whatever triggerExecution has beyond
// their sum is shown as "other".
var durationPhases = []string{"latestOffset", "walCommit", "getBatch", "queryPlanning", "addBatch", "commitOffsets"}

// emptyValue is echarts' marker for a missing data point.
const emptyValue = "-"

// progressCharts builds the four charts of a progress frame: (a) input vs
// processed rows/s, (b) trigger duration by phase, (c) max event time vs
// watermark, (d) rows in state and rows dropped by the watermark
// (cumulative), each over the batches of ps.
func progressCharts(ps []progress.StreamingQueryProgress) ([]chartSpec, error) {
	builders := []func([]progress.StreamingQueryProgress, []string) (*echartsOption, bool){
		ratesChart, durationChart, eventTimeChart, stateChart,
	}
	batches := make([]string, len(ps))
	for i := range ps {
		batches[i] = strconv.FormatInt(ps[i].BatchID, 10)
	}
	specs := make([]chartSpec, 0, len(builders))
	for _, build := range builders {
		o, timeY := build(ps, batches)
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("display: encoding chart option: %w", err)
		}
		opt, err := finishOption(string(raw), timeY)
		if err != nil {
			return nil, err
		}
		specs = append(specs, chartSpec{option: opt, timeY: timeY})
	}
	return specs, nil
}

// finishOption turns an option's JSON into the option the page sets:
// animation off, and echarts told that times are UTC for time axes. The
// result is plain JSON (no functions) with "</" escaped so it can sit inside
// a <script> element.
func finishOption(option string, timeY bool) (string, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(option)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", fmt.Errorf("display: decoding chart option: %w", err)
	}
	m["animation"] = false
	if timeY {
		m["useUTC"] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return "", fmt.Errorf("display: encoding chart option: %w", err)
	}
	out := bytes.TrimSpace(buf.Bytes())
	return string(bytes.ReplaceAll(out, []byte("</"), []byte(`<\/`))), nil
}

// echartsOption is the part of an Apache ECharts option the progress charts
// set (https://echarts.apache.org/en/option.html), written as plain JSON:
// cells that draw charts link no chart library, only encoding/json.
type echartsOption struct {
	Animation bool            `json:"animation"`
	Color     []string        `json:"color"`
	Grid      []echartsGrid   `json:"grid"`
	Legend    echartsLegend   `json:"legend"`
	Series    []echartsSeries `json:"series"`
	Title     echartsTitle    `json:"title"`
	Toolbox   struct{}        `json:"toolbox"`
	Tooltip   echartsTooltip  `json:"tooltip"`
	XAxis     []echartsAxis   `json:"xAxis"`
	YAxis     []echartsAxis   `json:"yAxis"`
}

type echartsGrid struct {
	Bottom       string `json:"bottom"`
	ContainLabel bool   `json:"containLabel"`
	Left         string `json:"left"`
	Right        string `json:"right"`
	Top          string `json:"top"`
}

type echartsLegend struct {
	Bottom string `json:"bottom"`
	Show   bool   `json:"show"`
	Type   string `json:"type"`
}

type echartsTitle struct {
	Left      string           `json:"left"`
	Text      string           `json:"text"`
	Subtext   string           `json:"subtext,omitempty"`
	TextStyle echartsTextStyle `json:"textStyle"`
}

type echartsTextStyle struct {
	FontSize   int    `json:"fontSize"`
	FontWeight string `json:"fontWeight"`
}

type echartsTooltip struct {
	Show    bool   `json:"show"`
	Trigger string `json:"trigger"`
}

type echartsAxis struct {
	Data        *[]string `json:"data,omitempty"` // category axes only; [] when there are no batches yet
	Position    string    `json:"position,omitempty"`
	Scale       bool      `json:"scale,omitempty"`
	SplitNumber int       `json:"splitNumber,omitempty"`
	Type        string    `json:"type"`
}

// echartsSeries is one line or bar series. Animation is a pointer: line
// series say false, bar series leave it to the chart.
type echartsSeries struct {
	Animation  *bool          `json:"animation,omitempty"`
	Data       []echartsValue `json:"data"`
	Name       string         `json:"name"`
	Stack      string         `json:"stack,omitempty"`
	Step       string         `json:"step,omitempty"`
	Type       string         `json:"type"`
	YAxisIndex int            `json:"yAxisIndex,omitempty"`
}

// echartsValue is one data point: a number, or emptyValue when missing.
type echartsValue struct {
	Value any `json:"value"`
}

// chartPalette is ECharts' default palette, set explicitly so every
// frame draws its series in the same colours.
var chartPalette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// newChart returns the options every progress chart shares: compact grid,
// small title (with a note under it saying why a chart stays flat, when
// note is set), axis tooltip, one-line legend at the bottom, no animation,
// x axis of batch ids, one y axis of yType.
func newChart(title, note string, batches []string, yAxis echartsAxis) *echartsOption {
	top := "34"
	if note != "" {
		top = "52"
	}
	return &echartsOption{
		Color:   chartPalette,
		Grid:    []echartsGrid{{Bottom: "30", ContainLabel: true, Left: "8", Right: "12", Top: top}},
		Legend:  echartsLegend{Bottom: "0", Show: true, Type: "scroll"},
		Title:   echartsTitle{Left: "center", Text: title, Subtext: note, TextStyle: echartsTextStyle{FontSize: 13, FontWeight: "normal"}},
		Tooltip: echartsTooltip{Show: true, Trigger: "axis"},
		XAxis:   []echartsAxis{{Data: &batches, Type: "category"}},
		YAxis:   []echartsAxis{yAxis},
		Series:  []echartsSeries{},
	}
}

var noAnimation = false

// line adds a line series.
func (o *echartsOption) line(name string, data []echartsValue) *echartsSeries {
	o.Series = append(o.Series, echartsSeries{Animation: &noAnimation, Data: data, Name: name, Type: "line"})
	return &o.Series[len(o.Series)-1]
}

// bar adds a bar series to the stack "ms".
func (o *echartsOption) bar(name string, data []echartsValue) {
	o.Series = append(o.Series, echartsSeries{Data: data, Name: name, Stack: "ms", Type: "bar"})
}

// Notes for charts a query has nothing to draw in.
const (
	noEventTimeNote = "no event time: the query has no watermark (WithWatermark)"
	noStateNote     = "no state: the query has no stateful operator"
)

func ratesChart(ps []progress.StreamingQueryProgress, batches []string) (*echartsOption, bool) {
	in := make([]echartsValue, len(ps))
	proc := make([]echartsValue, len(ps))
	for i := range ps {
		in[i] = echartsValue{ps[i].InputRowsPerSecond}
		proc[i] = echartsValue{ps[i].ProcessedRowsPerSecond}
	}
	c := newChart("rows / second", "", batches, echartsAxis{Type: "value"})
	c.line("input rows/s", in)
	c.line("processed rows/s", proc)
	return c, false
}

// triggerMs is the whole trigger's duration: durationMs.triggerExecution,
// or batchDuration when the phase map lacks it.
func triggerMs(p *progress.StreamingQueryProgress) int64 {
	if v, ok := p.DurationMs["triggerExecution"]; ok {
		return v
	}
	return p.BatchDuration
}

func durationChart(ps []progress.StreamingQueryProgress, batches []string) (*echartsOption, bool) {
	var present []string
	for _, phase := range durationPhases {
		for i := range ps {
			if ps[i].DurationMs[phase] != 0 {
				present = append(present, phase)
				break
			}
		}
	}
	c := newChart("trigger duration (ms)", "", batches, echartsAxis{Type: "value"})
	if len(present) == 0 {
		total := make([]echartsValue, len(ps))
		for i := range ps {
			total[i] = echartsValue{triggerMs(&ps[i])}
		}
		c.bar("triggerExecution", total)
		return c, false
	}
	other := make([]echartsValue, len(ps))
	for i := range ps {
		rest := triggerMs(&ps[i])
		for _, phase := range present {
			rest -= ps[i].DurationMs[phase]
		}
		other[i] = echartsValue{max(rest, 0)}
	}
	for _, phase := range present {
		data := make([]echartsValue, len(ps))
		for i := range ps {
			data[i] = echartsValue{ps[i].DurationMs[phase]}
		}
		c.bar(phase, data)
	}
	c.bar("other", other)
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

func eventTimeChart(ps []progress.StreamingQueryProgress, batches []string) (*echartsOption, bool) {
	maxT := make([]echartsValue, len(ps))
	wm := make([]echartsValue, len(ps))
	note := noEventTimeNote
	for i := range ps {
		maxT[i] = echartsValue{eventMillis(ps[i].MaxEventTime())}
		wm[i] = echartsValue{eventMillis(ps[i].Watermark())}
		if !ps[i].MaxEventTime().IsZero() {
			note = ""
		}
	}
	c := newChart("event time (UTC)", note, batches, echartsAxis{Type: "time", Scale: true, SplitNumber: 4})
	c.line("max event time", maxT)
	c.line("watermark", wm).Step = "end"
	return c, true
}

// eventTimeCounts returns, for one batch, the rows without an event time
// and the rows further ahead of processing time than the bound
// (observedMetrics numRowsWithNullEventTime, numRowsWithFutureEventTime).
func eventTimeCounts(p *progress.StreamingQueryProgress) (nullTime, future int64) {
	return p.ObservedMetrics[progress.MetricNullEventTime], p.ObservedMetrics[progress.MetricFutureEventTime]
}

// stateTotals returns, for one batch, the rows held by all stateful
// operators and the rows they dropped as later than the watermark.
func stateTotals(p *progress.StreamingQueryProgress) (rows, dropped int64) {
	for _, op := range p.StateOperators {
		rows += op.NumRowsTotal
		dropped += op.NumRowsDroppedByWatermark
	}
	return rows, dropped
}

func stateChart(ps []progress.StreamingQueryProgress, batches []string) (*echartsOption, bool) {
	rows := make([]echartsValue, len(ps))
	dropped := make([]echartsValue, len(ps))
	nulls := make([]echartsValue, len(ps))
	futures := make([]echartsValue, len(ps))
	var cum, cumNull, cumFuture int64
	note := noStateNote
	for i := range ps {
		r, d := stateTotals(&ps[i])
		n, f := eventTimeCounts(&ps[i])
		cum, cumNull, cumFuture = cum+d, cumNull+n, cumFuture+f
		rows[i] = echartsValue{r}
		dropped[i] = echartsValue{cum}
		nulls[i] = echartsValue{cumNull}
		futures[i] = echartsValue{cumFuture}
		if len(ps[i].StateOperators) > 0 {
			note = ""
		}
	}
	c := newChart("state rows / late rows dropped", note, batches, echartsAxis{Type: "value"})
	c.YAxis = append(c.YAxis, echartsAxis{Type: "value", Position: "right"})
	c.line("rows in state", rows)
	c.line("dropped by watermark (cum.)", dropped).YAxisIndex = 1
	// Rows that joined no window for want of a usable event time: shown
	// only once there are some, so ordinary queries keep two lines.
	if cumNull > 0 {
		c.line("null event time (cum.)", nulls).YAxisIndex = 1
	}
	if cumFuture > 0 {
		c.line("future event time (cum.)", futures).YAxisIndex = 1
	}
	return c, false
}
