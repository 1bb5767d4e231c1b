package view

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// nodeHarness runs frames' scripts as a browser would (each script in the
// global scope, in order) on a page made hostile the way notebooks are: an
// AMD define() (require.js) and CommonJS module/exports globals, and a
// pre-existing window.echarts. document.getElementById hands out stub
// elements; before each frame the previous frame's elements leave the page.
const nodeHarness = `
globalThis.window = globalThis;
var resizeHooks = 0;
globalThis.addEventListener = function(ev){ if (ev === "resize") resizeHooks++; };
var defineCalls = 0;
globalThis.define = function(){ defineCalls++; };
globalThis.define.amd = {};
globalThis.module = {exports: {}};
globalThis.exports = globalThis.module.exports;
globalThis.echarts = {sentinel: true};
var els = {};
globalThis.document = {getElementById: function(id){
  return els[id] || (els[id] = {id: id, isConnected: true, clientWidth: 480});
}};
var frames = JSON.parse(require("fs").readFileSync(0, "utf8"));
var after = [];
frames.forEach(function(scripts){
  Object.keys(els).forEach(function(k){ els[k].isConnected = false; });
  scripts.forEach(function(s){ (0, eval)(s); });
  var ec = window.atlasEcharts;
  after.push({inits: ec ? ec.inits.length : 0, disposed: ec ? ec.disposed : 0});
});
var ec = window.atlasEcharts;
var fmt = ec.inits[2].options[0].tooltip.valueFormatter;
process.stdout.write(JSON.stringify({
  defineCalls: defineCalls,
  moduleExports: Object.keys(globalThis.module.exports).length,
  echartsRestored: window.echarts && window.echarts.sentinel === true,
  version: ec.version,
  after: after,
  doms: ec.inits.map(function(c){ return c.dom.id; }),
  options: ec.inits.map(function(c){ return c.options[0]; }),
  utc: fmt(1796032800000),
  live: Object.keys(window.atlasCharts).length,
  resizeHooks: resizeHooks
}));
`

// TestFramesRunInNode runs a live view's first (bundle-carrying) and
// second (drawing-only) frame in node and checks that the bundle loaded
// past AMD and CommonJS, that each chart was drawn into its element with
// the option the fragment carries, and that the second frame disposed the
// first frame's charts.
func TestFramesRunInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	ps := displaytest.Sample()
	first := progressFrame(t, ps[:6], "atlas-test", 0, chartsInline, []byte(displaytest.FakeBundle))
	second := progressFrame(t, ps, "atlas-test", 1, chartsExternal, nil)
	frames := [][]string{frameScripts(first), frameScripts(second)}
	if len(frames[0]) != 5 || len(frames[1]) != 4 {
		t.Fatalf("frames have %d and %d scripts, want 5 (loader + 4 charts) and 4", len(frames[0]), len(frames[1]))
	}
	in, _ := json.Marshal(frames)
	dir := t.TempDir()
	script := filepath.Join(dir, "harness.js")
	if err := os.WriteFile(script, []byte(nodeHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got struct {
		DefineCalls     int  `json:"defineCalls"`
		ModuleExports   int  `json:"moduleExports"`
		EchartsRestored bool `json:"echartsRestored"`
		Version         string
		After           []struct{ Inits, Disposed int }
		Doms            []string
		Options         []json.RawMessage
		UTC             string
		Live            int
		ResizeHooks     int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("harness output %s: %v", out, err)
	}
	if got.DefineCalls != 0 || got.ModuleExports != 0 || got.Version != "fake" || !got.EchartsRestored {
		t.Fatalf("bundle did not load as a browser global past AMD/CommonJS: %+v", got)
	}
	if got.After[0].Inits != 4 || got.After[0].Disposed != 0 || got.After[1].Inits != 8 || got.After[1].Disposed != 4 || got.Live != 4 {
		t.Fatalf("charts drawn/disposed per frame %+v, live %d; want 4/0 then 8/4, 4 live", got.After, got.Live)
	}
	var wantDoms []string
	for _, d := range append(displaytest.ParseCharts(t, first), displaytest.ParseCharts(t, second)...) {
		wantDoms = append(wantDoms, d.Elem)
	}
	for i, d := range got.Doms {
		if d != wantDoms[i] {
			t.Errorf("chart %d drawn into %s, want %s", i, d, wantDoms[i])
		}
	}
	// What echarts received equals the JSON option in the fragment.
	for i, d := range displaytest.ParseCharts(t, second) {
		var want, have any
		_ = json.Unmarshal([]byte(d.Raw), &want)
		_ = json.Unmarshal(got.Options[4+i], &have)
		wb, _ := json.Marshal(want)
		hb, _ := json.Marshal(have) // JSON.stringify dropped the tooltip's valueFormatter
		if !bytes.Equal(wb, hb) {
			t.Errorf("chart %d: echarts got\n%s\nwant\n%s", i, hb, wb)
		}
	}
	if got.ResizeHooks != 1 {
		t.Errorf("%d resize listeners, want 1 per page", got.ResizeHooks)
	}
	if got.UTC != "2026-11-30 10:00:00" {
		t.Errorf("time tooltip formats 1796032800000 as %q", got.UTC)
	}
}

// frameScripts returns the bodies of a fragment's scripts, in order.
func frameScripts(fragment string) []string {
	re := regexp.MustCompile(`(?s)<script type="text/javascript">(.*?)</script>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(fragment, -1) {
		out = append(out, m[1])
	}
	return out
}

// progressFrame renders a frame of a live view directly, with the charts
// progresschart builds for ps.
func progressFrame(t *testing.T, ps []progress.StreamingQueryProgress, prefix string, seq int, mode chartsMode, bundle []byte) string {
	f := frame{snap: snap(t, ps, ""), prefix: prefix, seq: seq, mode: mode, bundle: bundle}
	return f.render()
}
