package view

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsfetch"
	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// TestWriteDemoPages writes standalone HTML pages with progress frames for
// a manual look in a browser (headless Chromium screenshots). It runs only
// when ATLAS_DISPLAY_DEMO_DIR names the output directory; with
// ATLAS_DISPLAY_DEMO_FETCH=1 it first installs echarts with
// echartsfetch.Fetch (npm) when echartsjs.Path() has no bundle. Pages:
//
//	static.html   one self-contained frame, as a static export keeps it
//	amd.html      the same frame on a page with an AMD define() (require.js)
//	live.html     a first frame, replaced 400 ms later by a drawing-only
//	              frame, as a notebook output update does
//	missing.html  the frame without a bundle: numbers and a note
func TestWriteDemoPages(t *testing.T) {
	out := os.Getenv("ATLAS_DISPLAY_DEMO_DIR")
	if out == "" {
		t.Skip("set ATLAS_DISPLAY_DEMO_DIR to write the demo pages")
	}
	if _, err := os.Stat(echartsjs.Path()); err != nil && os.Getenv("ATLAS_DISPLAY_DEMO_FETCH") == "1" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		start := time.Now()
		if err := echartsfetch.Fetch(ctx, echartsjs.Dir()); err != nil {
			t.Fatal(err)
		}
		t.Logf("echartsfetch.Fetch into %s took %v", echartsjs.Dir(), time.Since(start))
	}
	bundle, err := os.ReadFile(echartsjs.Path())
	if err != nil {
		t.Fatalf("demo pages need the echarts bundle: %v", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ps := displaytest.Sample()
	extra := `<p class="atlas-extra-demo">latest closed windows: see the table tests</p>`
	page := func(head, body string) string {
		return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>atlas display demo</title>" + head +
			"</head><body style=\"margin:12px\">" + body + "</body></html>"
	}
	write := func(name, html string) {
		if err := os.WriteFile(filepath.Join(out, name), []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", filepath.Join(out, name), len(html))
	}

	static := frameWith(t, ps, "atlas-demo", 0, chartsInline, bundle, "stopped", extra)
	write("static.html", page("", static))

	amdHead := `<script>window.define=function(deps,f){window.amdCalls=(window.amdCalls||0)+1;};window.define.amd={};</script>`
	amdCheck := `<p id="amd"></p><script>document.getElementById("amd").textContent=` +
		`"AMD define calls: "+(window.amdCalls||0)+", atlasEcharts "+(window.atlasEcharts?window.atlasEcharts.version:"missing");</script>`
	write("amd.html", page(amdHead, static+amdCheck))

	first := frameWith(t, ps[:4], "atlas-live", 0, chartsInline, bundle, "running", "")
	second := frameWith(t, ps, "atlas-live", 1, chartsExternal, nil, "running (frame 2)", "")
	replace := `<script>setTimeout(function(){var out=document.getElementById("out");out.innerHTML=` +
		strings.ReplaceAll(strconv.Quote(second), "</", `<\/`) + `;out.querySelectorAll("script").forEach(function(old){var s=document.createElement("script");` +
		`s.text=old.text;old.parentNode.replaceChild(s,old);});},400);</script>`
	write("live.html", page("", `<div id="out">`+first+`</div>`+replace))

	write("missing.html", page("", frameWith(t, ps, "atlas-missing", 0, chartsUnavailable, nil,
		"running", "", filepath.Join(out, "no", "echarts.min.js"))))
}

// frameWith renders a frame of ps with the charts progresschart builds,
// a status and extra HTML (and, optionally, the bundle path the note
// names).
func frameWith(t *testing.T, ps []progress.StreamingQueryProgress, prefix string, seq int, mode chartsMode, bundle []byte, status, extra string, path ...string) string {
	f := frame{snap: snap(t, ps, extra), status: status, prefix: prefix, seq: seq, mode: mode, bundle: bundle}
	if len(path) > 0 {
		f.bundlePath = path[0]
	}
	return f.render()
}
