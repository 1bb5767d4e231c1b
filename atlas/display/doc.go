// Package display shows what Atlas is doing, in a Jupyter notebook running
// the GoNB kernel (HTML, updated in place) and in a terminal (text). It
// knows nothing of the engine: its inputs are Arrow records and
// progress.StreamingQueryProgress values.
//
// # Where output goes
//
// [InNotebook] reports whether the program runs as a GoNB cell (GoNB passes
// the path of its display pipe in GONB_PIPE); ATLAS_DISPLAY=text|html
// overrides it. [ShowTable] and [LiveView] pick HTML through gonbui there
// and text on stdout elsewhere.
//
// # Tables
//
// [TextTable] prints records exactly as Spark's DataFrame.show() does
// (borders, alignment, 20-character truncation, "only showing top N rows",
// NULL, UTC timestamps, Java-style doubles). [HTMLTable] shows the same
// cell texts as an escaped, compact HTML table.
//
// # Charts
//
// [ProgressCharts] draws a query's progress as four small echarts charts
// (rates, trigger duration by phase, event time vs watermark, state rows
// and late rows dropped) under a one-line headline. Chart options are
// built with go-echarts and set by a script of Atlas's own: each chart's
// script runs in its own function scope (go-echarts' snippet declares a
// top-level `let`, which throws when a frame is re-run in the same page),
// disposes the chart an earlier frame drew in the same place, and draws
// with animation off.
//
// The echarts JavaScript is not fetched from a CDN: the set-up step
// installs the npm package echarts@[EchartsVersion] under
// $ATLAS_HOME/assets/echarts ([FetchEcharts]), and frames inline its
// dist/echarts.min.js ([EchartsPath], about 1.1 MB) in a loader that runs
// once per page. The loader hides the page's AMD loader (require.js in the
// classic Notebook and VS Code) from the bundle and publishes it as
// window.atlasEcharts. Without the bundle, displays show the numbers in a
// table and a note saying how to install it.
//
// A [LiveView] sends the bundle with its first frame, with every 20th, and
// with the final one; the frames in between (at most two a second) only
// draw. The final frame is self-contained because a saved notebook and
// nbconvert keep only the last frame of an updated output.
package display
