package progresschart

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// writesOnly reports whether ps is a query that writes tables from its
// batches (some batch reports sink write metrics) and has neither event
// time nor state, so its event-time and state charts would stay empty.
func writesOnly(ps []progress.StreamingQueryProgress) bool {
	writes := false
	for i := range ps {
		if len(ps[i].StateOperators) > 0 || !ps[i].MaxEventTime().IsZero() {
			return false
		}
		if _, ok := ps[i].Sink.Metrics[progress.SinkNumWrites]; ok {
			writes = true
		}
	}
	return writes
}

// sinkBars is one sink metric over the batches, as bars.
func sinkBars(ps []progress.StreamingQueryProgress, key string) []opts.BarData {
	out := make([]opts.BarData, len(ps))
	for i := range ps {
		out[i] = opts.BarData{Value: ps[i].SinkMetric(key)}
	}
	return out
}

// writtenRowsChart stacks the rows each batch's writes updated, deleted
// and inserted (MERGE INTO's num_updated_rows, ...).
func writtenRowsChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	c := charts.NewBar()
	c.SetGlobalOptions(append(commonOpts("rows written per batch"),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}))...)
	c.SetXAxis(batches)
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "rows"})
	c.AddSeries("updated", sinkBars(ps, progress.SinkNumUpdatedRows), stack).
		AddSeries("deleted", sinkBars(ps, progress.SinkNumDeletedRows), stack).
		AddSeries("inserted", sinkBars(ps, progress.SinkNumInsertedRows), stack)
	return c, false
}

// writeCostChart shows the data files each batch's writes rewrote (bars,
// left axis) and their wall time (line, right axis).
func writeCostChart(ps []progress.StreamingQueryProgress, batches []string) (render.Renderer, bool) {
	took := make([]opts.LineData, len(ps))
	for i := range ps {
		took[i] = opts.LineData{Value: ps[i].SinkMetric(progress.SinkWriteTimeMs)}
	}
	bars := charts.NewBar()
	bars.SetGlobalOptions(append(commonOpts("files rewritten / write time (ms)"),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}))...)
	bars.ExtendYAxis(opts.YAxis{Type: "value", Position: "right"})
	bars.SetXAxis(batches).AddSeries("files rewritten", sinkBars(ps, progress.SinkNumFilesRewritten))
	line := charts.NewLine()
	line.SetXAxis(batches).AddSeries("write time (ms)", took, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	bars.Overlap(line)
	return bars, false
}
