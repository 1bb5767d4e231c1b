// Package display draws charts in a Jupyter notebook running the GoNB
// kernel: [ShowChart] shows any go-echarts chart (a *charts.Line,
// *charts.Bar, ...) and [ProgressCharts] renders a streaming query's
// progress as the four charts of the live view, under a one-line headline.
//
// Chart options are built with go-echarts and set by a script of Atlas's
// own: each chart's script runs in its own function scope (go-echarts'
// snippet declares a top-level `let`, which throws when a frame is re-run
// in the same page), disposes the chart an earlier frame drew in the same
// place, and draws with animation off.
//
// The echarts JavaScript is not fetched from a CDN: the set-up step
// (`make kernel` or `atlas assets`) installs the npm package echarts under
// $ATLAS_HOME/assets/echarts, and fragments inline its dist/echarts.min.js
// (about 1.1 MB; $ATLAS_ECHARTS_JS names another file) in a loader that
// runs once per page. The loader hides the page's AMD loader (require.js
// in the classic Notebook and VS Code) from the bundle and publishes it as
// window.atlasEcharts. Without the bundle, fragments show a note saying
// how to install it (and, for progress, the numbers in a table).
//
// A cell that imports display links go-echarts and html/template, which
// lengthen its build; the client (package atlas) does not import display:
// its live view gets the progress charts from the server.
package display
