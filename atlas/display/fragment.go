package display

import (
	"crypto/rand"
	"encoding/hex"
	"html"
	"os"
	"strconv"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// ChartOptions adds context to [ProgressCharts].
type ChartOptions struct {
	// Title names the query in the headline; "" uses the query name of the
	// latest progress (else the start of its id).
	Title string
	// Status is shown at the end of the headline, e.g. "running",
	// "waiting for data", "stopped"; "" shows nothing.
	Status string
	// ExtraHTML is trusted HTML placed under the charts, such as an
	// [HTMLTable] of the latest closed windows or merge counts. It is not
	// escaped.
	ExtraHTML string
}

// chartsMode says how a frame gets echarts.
type chartsMode int

const (
	// chartsInline carries the bundle in a guarded loader: the frame works
	// alone (static HTML export, nbconvert, a saved page).
	chartsInline chartsMode = iota
	// chartsExternal relies on a loader sent in another output earlier.
	chartsExternal
	// chartsUnavailable has no bundle: numbers and a note instead of charts.
	chartsUnavailable
)

// frame is everything one rendering of a progress display needs.
type frame struct {
	ps   []progress.StreamingQueryProgress
	opts ChartOptions
	// prefix is stable for a live view: chart slots are prefix-c0..c3.
	prefix string
	// seq numbers the frames of a live view so element ids never repeat.
	seq    int
	mode   chartsMode
	bundle []byte
	// bundlePath is where the bundle was looked for (for the note).
	bundlePath string
}

// ProgressCharts renders a progress display as one self-contained HTML
// fragment: a headline (query, batch, rows so far, current rates,
// watermark, status) over four small charts in a 2x2 grid, drawn with
// echarts from the per-batch values of ps: (a) input vs processed rows/s,
// (b) trigger duration in ms stacked by phase (durationMs), (c) max event
// time vs watermark, (d) rows in state and rows dropped by the watermark,
// cumulative; then opts.ExtraHTML.
//
// The fragment inlines the echarts bundle read from [EchartsPath] in a
// loader that runs once per page, so it also works in a static HTML export.
// When the bundle cannot be read, the fragment shows the headline, a table
// of the latest batches' numbers and a note saying how to install it.
func ProgressCharts(ps []progress.StreamingQueryProgress, opts ChartOptions) string {
	f := frame{ps: ps, opts: opts, prefix: newDOMID()}
	f.bundlePath = EchartsPath()
	if b, err := os.ReadFile(f.bundlePath); err == nil && len(b) > 0 {
		f.mode, f.bundle = chartsInline, b
	} else {
		f.mode = chartsUnavailable
	}
	return f.render()
}

// newDOMID returns a fresh id usable as a DOM id prefix.
func newDOMID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "atlas-" + hex.EncodeToString(b[:])
}

// frameStyle is the scoped style of progress frames.
const frameStyle = `<style>
.atlas-progress{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;color:#1f2328}
.atlas-headline{padding:4px 0 6px;font-variant-numeric:tabular-nums}
.atlas-headline .atlas-status{color:#0969da}
.atlas-grid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:6px 14px}
.atlas-chart{width:100%;height:230px}
.atlas-note{margin:6px 0;padding:4px 8px;background:#fff8c5;border:1px solid #d4a72c;border-radius:4px;color:#4d2d00}
.atlas-note code{font-size:12px}
</style>`

func (f *frame) render() string {
	var sb strings.Builder
	sb.WriteString(`<div class="atlas-progress" id="` + html.EscapeString(f.prefix+"-f"+strconv.Itoa(f.seq)) + `">`)
	sb.WriteString(frameStyle)
	sb.WriteString(`<div class="atlas-headline">` + headlineHTML(f.ps, f.opts) + `</div>`)
	if len(f.ps) == 0 {
		sb.WriteString(`<div class="atlas-note">No micro-batch has completed yet.</div>`)
	} else {
		f.renderBody(&sb)
	}
	if f.opts.ExtraHTML != "" {
		sb.WriteString(`<div class="atlas-extra">` + f.opts.ExtraHTML + `</div>`)
	}
	sb.WriteString(`</div>`)
	return sb.String()
}

func (f *frame) renderBody(sb *strings.Builder) {
	if f.mode == chartsUnavailable {
		sb.WriteString(missingBundleNote(f.bundlePath))
		sb.WriteString(numbersTable(f.ps, 10))
		return
	}
	specs, err := progressCharts(f.ps)
	if err != nil {
		sb.WriteString(`<div class="atlas-note">Charts could not be built: ` + html.EscapeString(err.Error()) + `</div>`)
		sb.WriteString(numbersTable(f.ps, 10))
		return
	}
	if f.mode == chartsInline {
		sb.WriteString(loaderScript(f.bundle))
	}
	sb.WriteString(`<div class="atlas-grid">`)
	for i, spec := range specs {
		slot := f.prefix + "-c" + strconv.Itoa(i)
		elem := slot + "-f" + strconv.Itoa(f.seq)
		sb.WriteString(`<div class="atlas-chart" id="` + html.EscapeString(elem) + `"></div>`)
		sb.WriteString(chartScript(elem, slot, spec.option, spec.timeY))
	}
	sb.WriteString(`</div>`)
}

// missingBundleNote tells the reader why there are no charts and how to get
// them.
func missingBundleNote(path string) string {
	return `<div class="atlas-note">Charts are off: the echarts bundle (echarts ` + EchartsVersion +
		`) is not at <code>` + html.EscapeString(path) + `</code>. Run <code>make kernel</code> or ` +
		`<code>atlas assets</code> to fetch it, or set <code>` + EnvEchartsJS +
		`</code> to an echarts.min.js file.</div>`
}

// headlineHTML is the one-line summary above the charts.
func headlineHTML(ps []progress.StreamingQueryProgress, opts ChartOptions) string {
	name := opts.Title
	var parts []string
	if len(ps) == 0 {
		if name == "" {
			name = "query"
		}
		parts = append(parts, "<b>"+html.EscapeString(name)+"</b>", "waiting for the first batch")
	} else {
		last := &ps[len(ps)-1]
		if name == "" {
			name = queryLabel(last)
		}
		rows, busyMs := int64(0), int64(0)
		for i := range ps {
			rows += ps[i].NumInputRows
			busyMs += triggerMs(&ps[i])
		}
		parts = append(parts,
			"<b>"+html.EscapeString(name)+"</b>",
			"batch "+strconv.FormatInt(last.BatchID, 10),
			numfmt.Group(rows)+" rows so far",
		)
		// The run's processing rate over all batches: the last batch alone
		// under-reports at the end of a run, when it holds a few stragglers
		// or none (a no-data batch that only closes windows).
		if busyMs > 0 {
			parts = append(parts, "avg proc "+formatRate(float64(rows)*1000/float64(busyMs))+"/s")
		}
		parts = append(parts,
			"last batch: in "+formatRate(last.InputRowsPerSecond)+"/s, proc "+formatRate(last.ProcessedRowsPerSecond)+"/s")
		if wm, ok := watermarkOf(last); ok {
			parts = append(parts, "watermark "+formatUTC(wm))
		}
		var nullTime, future int64
		var warning *progress.WatermarkWarning
		for i := range ps {
			n, f := eventTimeCounts(&ps[i])
			nullTime, future = nullTime+n, future+f
			if ps[i].WatermarkWarning != nil {
				warning = ps[i].WatermarkWarning
			}
		}
		if nullTime > 0 {
			parts = append(parts, numfmt.Group(nullTime)+" rows with null event time")
		}
		if future > 0 {
			parts = append(parts, numfmt.Group(future)+" rows with future event time")
		}
		if warning != nil {
			parts = append(parts, `<span class="atlas-warning" style="color:#a33">WARNING `+html.EscapeString(warning.Message)+`</span>`)
		}
	}
	if opts.Status != "" {
		parts = append(parts, `<span class="atlas-status">`+html.EscapeString(opts.Status)+`</span>`)
	}
	return strings.Join(parts, " &middot; ")
}

// numbersTable shows the last n batches' numbers: what the charts would
// have drawn, as a table.
func numbersTable(ps []progress.StreamingQueryProgress, n int) string {
	start := max(len(ps)-n, 0)
	var sb strings.Builder
	sb.WriteString(tableStyle)
	sb.WriteString(`<table class="atlas-table"><caption>latest batches</caption><thead><tr>` +
		`<th>batch</th><th>rows</th><th>input rows/s</th><th>processed rows/s</th><th>duration ms</th>` +
		`<th>max event time</th><th>watermark</th><th>state rows</th><th>dropped (cum.)</th></tr></thead><tbody>`)
	var cum int64
	for i := 0; i < start; i++ {
		_, d := stateTotals(&ps[i])
		cum += d
	}
	for i := start; i < len(ps); i++ {
		p := &ps[i]
		rows, d := stateTotals(p)
		cum += d
		cells := []string{
			strconv.FormatInt(p.BatchID, 10),
			numfmt.Group(p.NumInputRows),
			formatRate(p.InputRowsPerSecond),
			formatRate(p.ProcessedRowsPerSecond),
			numfmt.Group(triggerMs(p)),
			timeOrDash(p.MaxEventTime().IsZero(), formatUTC(p.MaxEventTime())),
			"",
			numfmt.Group(rows),
			numfmt.Group(cum),
		}
		if wm, ok := watermarkOf(p); ok {
			cells[6] = formatUTC(wm)
		} else {
			cells[6] = "-"
		}
		sb.WriteString("<tr>")
		for j, c := range cells {
			if j == 5 || j == 6 {
				sb.WriteString("<td>" + html.EscapeString(c) + "</td>")
			} else {
				sb.WriteString(`<td class="num">` + html.EscapeString(c) + "</td>")
			}
		}
		sb.WriteString("</tr>")
	}
	sb.WriteString("</tbody></table>")
	return sb.String()
}

func timeOrDash(zero bool, s string) string {
	if zero {
		return "-"
	}
	return s
}
