package display

import (
	"fmt"
	"html"

	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
	"github.com/atlas-lakehouse/atlas/atlas/internal/progresschart"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// chartStyle sizes a standalone chart like a live-view chart, a bit taller.
const chartStyle = `<style>.atlas-chart-one .atlas-chart{width:100%;max-width:900px;height:360px}</style>`

// ChartHTML renders a go-echarts chart (a *charts.Line, *charts.Bar, ... or
// anything with RenderSnippet) as one self-contained HTML fragment: the
// echarts bundle inlined in the same once-per-page loader the live view
// uses, then the chart, animation off. When the bundle cannot be read,
// the fragment is a note saying how to install it.
func ChartHTML(c render.Renderer) (string, error) {
	return chartHTML(c, echartsjs.Path(), true)
}

// chartHTML is ChartHTML; inline says whether the fragment carries the
// bundle (else it draws with the page's window.atlasEcharts).
func chartHTML(c render.Renderer, bundlePath string, inline bool) (string, error) {
	opt, err := progresschart.FinishOption(c.RenderSnippet().Option, false)
	if err != nil {
		return "", err
	}
	b := echartsjs.Read(bundlePath)
	if b == nil {
		return echartsjs.MissingNote(bundlePath), nil
	}
	id := view.NewDOMID()
	loader := ""
	if inline {
		loader = echartsjs.Loader(b)
	}
	return `<div class="atlas-chart-one">` + chartStyle + loader +
		`<div class="atlas-chart" id="` + html.EscapeString(id) + `"></div>` +
		echartsjs.ChartScript(id, id, opt, false) + `</div>`, nil
}

// ShowChart displays a go-echarts chart in the notebook as [ChartHTML]
// (waiting until GoNB has it, so a cell may end right after), except that
// the echarts bundle is inlined only when no earlier output of the kernel
// session carried it: a notebook holds it once. Outside a notebook it
// prints one line saying the chart needs one.
func ShowChart(c render.Renderer) error {
	return showChart(view.DetectSurface(), c, echartsjs.Path())
}

func showChart(s view.Surface, c render.Renderer, bundlePath string) error {
	if !s.HTML() {
		fmt.Fprintln(s.Text(), "(a chart: run this in a notebook to see it)")
		return nil
	}
	frag, err := chartHTML(c, bundlePath, echartsjs.ClaimInline())
	if err != nil {
		return err
	}
	s.DisplayHTML(frag)
	s.Sync()
	return nil
}
