package display

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/progresschart"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
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
	// ExtraHTML is trusted HTML placed under the charts, such as a table of
	// the latest closed windows or merge counts. It is not escaped.
	ExtraHTML string
}

// ProgressCharts renders a progress display as one self-contained HTML
// fragment: a headline (query, batch, rows so far, current rates,
// watermark, status) over four small charts in a 2x2 grid, drawn with
// echarts from the per-batch values of ps: (a) input vs processed rows/s,
// (b) trigger duration in ms stacked by phase (durationMs), (c) max event
// time vs watermark, (d) rows in state and rows dropped by the watermark,
// cumulative; then opts.ExtraHTML. It is the frame a query's live view
// shows.
//
// The fragment inlines the echarts bundle in a loader that runs once per
// page, so it also works in a static HTML export. When the bundle cannot
// be read, the fragment shows the headline, a table of the latest
// batches' numbers and a note saying how to install it.
func ProgressCharts(ps []progress.StreamingQueryProgress, opts ChartOptions) string {
	s := view.Snapshot{Progress: ps, ExtraHTML: opts.ExtraHTML}
	if len(ps) > 0 {
		cs, err := progresschart.Build(ps)
		if err != nil {
			s.NoCharts = "Charts could not be built: " + err.Error()
		}
		for _, c := range cs {
			s.Charts = append(s.Charts, view.Chart(c))
		}
	}
	return view.ProgressHTML(s, opts.Title, opts.Status)
}
