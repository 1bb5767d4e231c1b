package echartsjs

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// scriptCloser matches what would end an inline <script> element early.
var scriptCloser = regexp.MustCompile(`(?i)</script`)

// Loader returns a <script> element that runs the echarts bundle once
// per page and publishes it as window.atlasEcharts; when atlasEcharts is
// already there it does nothing (the browser still parses the text).
//
// The bundle is UMD: on a page with an AMD loader (require.js, as in the
// classic Notebook and VS Code) it would register itself with define() and
// leave no global. So it runs inside a function whose parameters define,
// module and exports shadow the page's and are undefined; the bundle then
// takes its browser-global branch and sets window.echarts, which is copied
// to window.atlasEcharts and restored to any previous value.
func Loader(bundle []byte) string {
	safe := scriptCloser.ReplaceAll(bundle, []byte(`<\/script`))
	safe = bytes.ReplaceAll(safe, []byte("<!--"), []byte(`<\!--`))
	var sb strings.Builder
	sb.Grow(len(safe) + 512)
	sb.WriteString(`<script type="text/javascript">` +
		`(function(){if(window.atlasEcharts){return;}` +
		`var hadPrev=Object.prototype.hasOwnProperty.call(window,"echarts"),prev=window.echarts;` +
		`(function(define,module,exports){` + "\n")
	sb.Write(safe)
	sb.WriteString("\n" + `}).call(window,undefined,undefined,undefined);` +
		`window.atlasEcharts=window.echarts;` +
		`if(hadPrev){window.echarts=prev;}` +
		`})();</script>`)
	return sb.String()
}

// chartScriptTemplate draws one chart. It waits (up to 5 s) until its
// element is in the document and has a width, because the classic Notebook
// runs an output's scripts before it attaches the output to the page. It
// disposes the chart drawn in the same slot by an earlier frame, and any
// chart whose element has left the page, before drawing. Placeholders:
// ELEM, SLOT, OPTION, TIMEY.
const chartScriptTemplate = `<script type="text/javascript">(function(){` +
	`var elemId=ELEM,slot=SLOT,option=OPTION,timeY=TIMEY,tries=0;` +
	`function utc(v){if(typeof v!=="number"){return v;}return new Date(v).toISOString().slice(0,19).replace("T"," ");}` +
	`function draw(){` +
	`var ec=window.atlasEcharts,el=document.getElementById(elemId);` +
	`if(!ec||!el||!el.isConnected||el.clientWidth===0){` +
	`if(tries++<100){setTimeout(draw,50);return;}` +
	`if(!el){return;}` +
	`if(!ec){el.textContent="echarts did not load: a kernel session inlines the echarts bundle once, in its first chart output; that output is not on this page (cleared or re-run). Kernel > Restart & Run All draws every chart again.";return;}}` +
	`var reg=window.atlasCharts||(window.atlasCharts={});` +
	`for(var k in reg){var o=reg[k];if(o&&!o.isDisposed()&&(k===slot||!o.getDom().isConnected)){o.dispose();delete reg[k];}}` +
	`var stale=ec.getInstanceByDom(el);if(stale){stale.dispose();}` +
	`if(timeY){option.tooltip=option.tooltip||{};option.tooltip.valueFormatter=utc;}` +
	`var chart=ec.init(el,null,{renderer:"canvas"});chart.setOption(option);reg[slot]=chart;` +
	`if(!window.atlasChartsResize){window.atlasChartsResize=true;window.addEventListener("resize",function(){` +
	`var r=window.atlasCharts||{};for(var k in r){if(r[k]&&!r[k].isDisposed()){r[k].resize();}}});}` +
	`}draw();})();</script>`

// ChartScript returns the <script> that draws option (plain JSON) into the
// element elemID, replacing the chart previously drawn in slot.
func ChartScript(elemID, slot, option string, timeY bool) string {
	return strings.NewReplacer(
		"ELEM", strconv.Quote(elemID),
		"SLOT", strconv.Quote(slot),
		"OPTION", option,
		"TIMEY", strconv.FormatBool(timeY),
	).Replace(chartScriptTemplate)
}
