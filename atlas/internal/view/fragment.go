package view

import (
	"crypto/rand"
	"encoding/hex"
	"html"
	"strconv"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tablecss"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Chart is one chart a frame draws: its title (also in the option; kept
// apart for tests and logs), its echarts option as JSON (as
// echartsjs.ChartScript takes it) and whether its value axis holds times. The options come from where go-echarts is linked: the server
// (the atlas.connect.ProgressCharts extension) or the in-process engine
// (atlas/internal/progresschart); this package only places them.
type Chart struct {
	Title  string
	Option string
	TimeY  bool
}

// Snapshot is what one frame shows: a query's recent progress (oldest
// first), the charts drawn over it, and trusted HTML under the charts.
type Snapshot struct {
	Progress []progress.StreamingQueryProgress
	// Charts are drawn when the page has the echarts bundle. When they are
	// nil and Progress is not empty, the frame shows the latest batches'
	// numbers in a table instead, under NoCharts.
	Charts []Chart
	// NoCharts says why Charts is nil (plain text, escaped when shown),
	// such as a server that does not draw charts; "" says nothing more.
	NoCharts string
	// ExtraHTML is trusted HTML placed under the charts, such as a
	// table.HTMLTable of the latest closed windows or merge counts. It is
	// not escaped.
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
	snap   Snapshot
	title  string
	status string
	// prefix is stable for a live view: chart slots are prefix-c0..c3.
	prefix string
	// seq numbers the frames of a live view so element ids never repeat.
	seq    int
	mode   chartsMode
	bundle []byte
	// bundlePath is where the bundle was looked for (for the note).
	bundlePath string
}

// ProgressHTML renders a progress display as one self-contained HTML
// fragment: a headline (title, else the query's name; batch, rows so far,
// current rates, watermark, status) over s's charts in a 2x2 grid, then
// s.ExtraHTML.
//
// The fragment inlines the echarts bundle read from echartsjs.Path() in a
// loader that runs once per page, so it also works in a static HTML
// export. When the bundle cannot be read (or s has no charts), the
// fragment shows the headline, a table of the latest batches' numbers and
// a note saying why.
func ProgressHTML(s Snapshot, title, status string) string {
	f := frame{snap: s, title: title, status: status, prefix: NewDOMID(), bundlePath: echartsjs.Path()}
	if f.bundle = echartsjs.Read(f.bundlePath); f.bundle != nil {
		f.mode = chartsInline
	} else {
		f.mode = chartsUnavailable
	}
	return f.render()
}

// NewDOMID returns a fresh id usable as a DOM id prefix.
func NewDOMID() string {
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
	sb.WriteString(`<div class="atlas-headline">` + headlineHTML(f.snap.Progress, f.title, f.status) + `</div>`)
	if len(f.snap.Progress) == 0 {
		sb.WriteString(`<div class="atlas-note">No micro-batch has completed yet.</div>`)
	} else {
		f.renderBody(&sb)
	}
	if f.snap.ExtraHTML != "" {
		sb.WriteString(`<div class="atlas-extra">` + f.snap.ExtraHTML + `</div>`)
	}
	sb.WriteString(`</div>`)
	return sb.String()
}

func (f *frame) renderBody(sb *strings.Builder) {
	ps := f.snap.Progress
	if f.mode == chartsUnavailable {
		sb.WriteString(echartsjs.MissingNote(f.bundlePath))
		sb.WriteString(numbersTable(ps, 10))
		return
	}
	if len(f.snap.Charts) == 0 {
		if f.snap.NoCharts != "" {
			sb.WriteString(`<div class="atlas-note">` + html.EscapeString(f.snap.NoCharts) + `</div>`)
		}
		sb.WriteString(numbersTable(ps, 10))
		return
	}
	if f.mode == chartsInline {
		sb.WriteString(echartsjs.Loader(f.bundle))
	}
	sb.WriteString(`<div class="atlas-grid">`)
	for i, c := range f.snap.Charts {
		slot := f.prefix + "-c" + strconv.Itoa(i)
		elem := slot + "-f" + strconv.Itoa(f.seq)
		sb.WriteString(`<div class="atlas-chart" id="` + html.EscapeString(elem) + `"></div>`)
		sb.WriteString(echartsjs.ChartScript(elem, slot, c.Option, c.TimeY))
	}
	sb.WriteString(`</div>`)
}

// headlineHTML is the one-line summary above the charts.
func headlineHTML(ps []progress.StreamingQueryProgress, title, status string) string {
	name := title
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
			busyMs += ps[i].TriggerMs()
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
			n, f := ps[i].EventTimeCounts()
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
	if status != "" {
		parts = append(parts, `<span class="atlas-status">`+html.EscapeString(status)+`</span>`)
	}
	return strings.Join(parts, " &middot; ")
}

// numbersTable shows the last n batches' numbers: what the charts would
// have drawn, as a table.
func numbersTable(ps []progress.StreamingQueryProgress, n int) string {
	start := max(len(ps)-n, 0)
	var sb strings.Builder
	sb.WriteString(tablecss.Style)
	sb.WriteString(`<table class="atlas-table"><caption>latest batches</caption><thead><tr>` +
		`<th>batch</th><th>rows</th><th>input rows/s</th><th>processed rows/s</th><th>duration ms</th>` +
		`<th>max event time</th><th>watermark</th><th>state rows</th><th>dropped (cum.)</th></tr></thead><tbody>`)
	var cum int64
	for i := 0; i < start; i++ {
		_, d := ps[i].StateTotals()
		cum += d
	}
	for i := start; i < len(ps); i++ {
		p := &ps[i]
		rows, d := p.StateTotals()
		cum += d
		cells := []string{
			strconv.FormatInt(p.BatchID, 10),
			numfmt.Group(p.NumInputRows),
			formatRate(p.InputRowsPerSecond),
			formatRate(p.ProcessedRowsPerSecond),
			numfmt.Group(p.TriggerMs()),
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
