// Package progresschart builds a streaming query's progress charts with
// go-echarts: from a progress list ([]progress.StreamingQueryProgress,
// oldest first) the four echarts options of a progress frame ([Build]):
// input vs processed rows/s, trigger duration by phase, max event time vs
// watermark, and rows in state with rows dropped by the watermark (or, for
// a query that only writes tables from foreachBatch, the rows and files
// its writes touched).
//
// It runs where go-echarts is linked: the Spark Connect server (which
// answers the client's atlas.connect.ProgressCharts request), the
// in-process engine's live view and atlas/display. A notebook cell that
// imports the client does not link it: go-echarts renders through
// html/template, whose reflection keeps every exported method in the
// binary and lengthens every cell's link.
package progresschart
