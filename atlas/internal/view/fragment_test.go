package view

import (
	"html"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
)

// TestFrameWithoutChartsShowsNumbersAndWhy: a snapshot without charts (a
// server that does not draw them) shows, even with the bundle at hand, no
// chart and no loader but the reason and the latest 10 batches' numbers;
// with charts the same frame draws them and shows no table.
func TestFrameWithoutChartsShowsNumbersAndWhy(t *testing.T) {
	ps := displaytest.Sample()
	why := "the server's charts are <off> & out"
	f := frame{snap: Snapshot{Progress: ps, NoCharts: why}, prefix: "x", mode: chartsInline, bundle: []byte(displaytest.FakeBundle)}
	got := f.render()
	if n := len(displaytest.ParseCharts(t, got)); n != 0 || strings.Contains(got, displaytest.FakeBundle) {
		t.Errorf("a frame without charts draws %d charts or loads the bundle", n)
	}
	if !strings.Contains(got, `<div class="atlas-note">`+html.EscapeString(why)+`</div>`) {
		t.Errorf("the frame lacks the escaped reason:\n%s", got)
	}
	body := got[strings.Index(got, "<tbody>"):strings.Index(got, "</tbody>")]
	if n := strings.Count(body, "<tr>"); n != 10 || !strings.Contains(body, `<td class="num">2</td>`) || strings.Contains(body, `<td class="num">1</td><td class="num">4,010</td>`) {
		t.Errorf("the numbers table has %d rows, want batches 2 to 11", n)
	}

	with := snap(t, ps, "")
	f = frame{snap: with, prefix: "x", mode: chartsInline, bundle: []byte(displaytest.FakeBundle)}
	got = f.render()
	if n := len(displaytest.ParseCharts(t, got)); n != 4 || strings.Contains(got, "<tbody>") {
		t.Errorf("a frame with charts draws %d charts (table shown: %v)", n, strings.Contains(got, "<tbody>"))
	}
}
