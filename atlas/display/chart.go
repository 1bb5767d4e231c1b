package display

import (
	"fmt"
	"html"
	"os"

	"github.com/go-echarts/go-echarts/v2/render"
)

// chartStyle sizes a standalone chart like a live-view chart, a bit taller.
const chartStyle = `<style>.atlas-chart-one .atlas-chart{width:100%;max-width:900px;height:360px}</style>`

// ChartHTML renders a go-echarts chart (a *charts.Line, *charts.Bar, ... or
// anything with RenderSnippet) as one self-contained HTML fragment: the
// echarts bundle from [EchartsPath] inlined in the same once-per-page
// loader the live view uses, then the chart, animation off. When the
// bundle cannot be read, the fragment is a note saying how to install it.
func ChartHTML(c render.Renderer) (string, error) {
	return chartHTML(c, EchartsPath())
}

func chartHTML(c render.Renderer, bundlePath string) (string, error) {
	opt, err := finishOption(c.RenderSnippet().Option, false)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(bundlePath)
	if err != nil || len(b) == 0 {
		return missingBundleNote(bundlePath), nil
	}
	id := newDOMID()
	return `<div class="atlas-chart-one">` + chartStyle + loaderScript(b) +
		`<div class="atlas-chart" id="` + html.EscapeString(id) + `"></div>` +
		chartScript(id, id, opt, false) + `</div>`, nil
}

// ShowChart displays a go-echarts chart in the notebook as [ChartHTML]
// (waiting until GoNB has it, so a cell may end right after). Outside a
// notebook it prints one line saying the chart needs one.
func ShowChart(c render.Renderer) error {
	return showChart(detectSurface(), c, EchartsPath())
}

func showChart(s surface, c render.Renderer, bundlePath string) error {
	if !s.html() {
		fmt.Fprintln(s.text(), "(a chart: run this in a notebook to see it)")
		return nil
	}
	frag, err := chartHTML(c, bundlePath)
	if err != nil {
		return err
	}
	s.displayHTML(frag)
	s.sync()
	return nil
}
