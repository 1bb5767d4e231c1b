package display

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
)

// TestShowChartDrawsOneChartWithTheBundle checks that a go-echarts chart
// shown in a notebook becomes one fragment holding the inlined bundle once,
// one chart container and the chart's own series data in its option.
func TestShowChartDrawsOneChartWithTheBundle(t *testing.T) {
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: "error vs memory"}))
	line.SetXAxis([]string{"a", "b"}).AddSeries("hll", []opts.LineData{{Value: 0.125}, {Value: 0.0625}})
	s := &displaytest.Recorder{IsHTML: true}
	if err := showChart(s, line, displaytest.FakeBundlePath(t)); err != nil {
		t.Fatal(err)
	}
	if len(s.Displays()) != 1 || s.Syncs() != 1 {
		t.Fatalf("%d displays and %d syncs, want one of each", len(s.Displays()), s.Syncs())
	}
	frag := s.Displays()[0]
	if n := strings.Count(frag, displaytest.FakeBundle); n != 1 {
		t.Errorf("the bundle is inlined %d times, want once", n)
	}
	if n := strings.Count(frag, `class="atlas-chart"`); n != 1 {
		t.Errorf("%d chart containers, want 1", n)
	}
	m := regexp.MustCompile(`option=(\{.*?\}),timeY`).FindStringSubmatch(frag)
	if m == nil {
		t.Fatalf("no option in the chart script:\n%s", frag)
	}
	var opt struct {
		Animation bool `json:"animation"`
		Series    []struct {
			Name string `json:"name"`
			Data []struct {
				Value float64 `json:"value"`
			} `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(m[1]), &opt); err != nil {
		t.Fatalf("option %s: %v", m[1], err)
	}
	if opt.Animation || len(opt.Series) != 1 || opt.Series[0].Name != "hll" ||
		len(opt.Series[0].Data) != 2 || opt.Series[0].Data[0].Value != 0.125 || opt.Series[0].Data[1].Value != 0.0625 {
		t.Errorf("option %s: want animation off and series hll = [0.125 0.0625]", m[1])
	}
}

// TestShowChartWithoutBundleOrNotebook checks the two fallbacks: a note
// naming the missing bundle, and one text line outside a notebook.
func TestShowChartWithoutBundleOrNotebook(t *testing.T) {
	line := charts.NewLine()
	missing := filepath.Join(t.TempDir(), "none.js")
	s := &displaytest.Recorder{IsHTML: true}
	if err := showChart(s, line, missing); err != nil {
		t.Fatal(err)
	}
	if len(s.Displays()) != 1 || !strings.Contains(s.Displays()[0], missing) || strings.Contains(s.Displays()[0], `class="atlas-chart"`) {
		t.Errorf("without the bundle: %q, want the note naming %s and no chart", s.Displays(), missing)
	}
	txt := &displaytest.Recorder{}
	if err := showChart(txt, line, missing); err != nil {
		t.Fatal(err)
	}
	if len(txt.Displays()) != 0 || !strings.Contains(txt.Out(), "notebook") {
		t.Errorf("outside a notebook: displays %q, text %q", txt.Displays(), txt.Out())
	}
}
