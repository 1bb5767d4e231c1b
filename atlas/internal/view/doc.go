// Package view shows what a query is doing, in a Jupyter notebook running
// the GoNB kernel (HTML, updated in place) and in a terminal (text): where
// output goes ([Surface]), the live view of a running streaming query
// ([LiveView]: progress frames in a notebook, one [ProgressLine] per
// micro-batch in a terminal), and standalone progress frames
// ([ProgressHTML]). It renders no result tables: the server does
// (ShowString and HtmlString, atlas/internal/table), so the client links
// no table renderer.
//
// # Where output goes
//
// [InNotebook] reports whether the program runs as a GoNB cell (GoNB passes
// the path of its display pipe in GONB_PIPE); ATLAS_DISPLAY=text|html
// overrides it. [DetectSurface] turns that into a [Surface]: gonbui in a
// notebook, stdout elsewhere.
//
// # Frames
//
// A progress frame is a one-line headline (query, batch, rows so far,
// rates, watermark, event-time counters, status) over the query's charts
// in a 2x2 grid, then trusted extra HTML. This package places the charts
// but does not build them: a [Snapshot] carries them as echarts options
// built elsewhere with go-echarts (the Spark Connect server answers the
// client's atlas.connect.ProgressCharts request; the in-process engine
// calls atlas/internal/progresschart), so a notebook cell that imports the
// client links neither go-echarts nor html/template. Without charts (no
// bundle, a server without the extension) a frame shows the latest
// batches' numbers in a table and a note saying why.
//
// Frames load echarts from the offline bundle (atlas/internal/echartsjs):
// a [LiveView] sends the bundle with its first frame, with every 20th,
// and with the final one; the frames in between (at most two a second)
// only draw. The final frame is self-contained because a saved notebook
// and nbconvert keep only the last frame of an updated output.
package view
