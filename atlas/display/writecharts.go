package display

import "github.com/atlas-lakehouse/atlas/atlas/progress"

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

// sinkSeries is one sink metric over the batches.
func sinkSeries(ps []progress.StreamingQueryProgress, key string) []echartsValue {
	out := make([]echartsValue, len(ps))
	for i := range ps {
		out[i] = echartsValue{ps[i].SinkMetric(key)}
	}
	return out
}

// writtenRowsChart stacks the rows each batch's writes updated, deleted
// and inserted (MERGE INTO's num_updated_rows, ...).
func writtenRowsChart(ps []progress.StreamingQueryProgress, batches []string) (*echartsOption, bool) {
	c := newChart("rows written per batch", "", batches, echartsAxis{Type: "value"})
	for _, m := range []struct{ name, key string }{
		{"updated", progress.SinkNumUpdatedRows},
		{"deleted", progress.SinkNumDeletedRows},
		{"inserted", progress.SinkNumInsertedRows},
	} {
		c.Series = append(c.Series, echartsSeries{Data: sinkSeries(ps, m.key), Name: m.name, Stack: "rows", Type: "bar"})
	}
	return c, false
}

// writeCostChart shows the data files each batch's writes rewrote (bars,
// left axis) and their wall time (line, right axis).
func writeCostChart(ps []progress.StreamingQueryProgress, batches []string) (*echartsOption, bool) {
	c := newChart("files rewritten / write time (ms)", "", batches, echartsAxis{Type: "value"})
	c.YAxis = append(c.YAxis, echartsAxis{Type: "value", Position: "right"})
	c.Series = append(c.Series, echartsSeries{Data: sinkSeries(ps, progress.SinkNumFilesRewritten), Name: "files rewritten", Type: "bar"})
	c.line("write time (ms)", sinkSeries(ps, progress.SinkWriteTimeMs)).YAxisIndex = 1
	return c, false
}
