// Package echartsjs is the page side of Atlas's charts: where the offline
// echarts bundle is ([Path], [Dir], [Version], [EnvJS]), the once-per-page
// [Loader] that runs it past a notebook's AMD loader and publishes it as
// window.atlasEcharts, and the [ChartScript] that draws one chart from an
// echarts option (plain JSON) in its own function scope, disposing the
// chart an earlier frame drew in the same slot. It builds no chart
// options: atlas/internal/progresschart does, with go-echarts, on the
// server side; a client only reads the bundle file and writes scripts.
//
// The bundle is never fetched from a CDN: the set-up step installs the npm
// package echarts@[Version] under $ATLAS_HOME/assets/echarts
// (atlas/internal/echartsfetch), and a page inlines its
// dist/echarts.min.js (about 1.1 MB). Without it, displays show numbers
// and [MissingNote].
package echartsjs
