package view

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/progresschart"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// snap is ps with the charts progresschart builds for it, as the server
// or the engine sends them.
func snap(t *testing.T, ps []progress.StreamingQueryProgress, extra string) Snapshot {
	t.Helper()
	cs, err := progresschart.Build(ps)
	if err != nil {
		t.Fatal(err)
	}
	out := Snapshot{Progress: ps, ExtraHTML: extra}
	for _, c := range cs {
		out.Charts = append(out.Charts, Chart(c))
	}
	return out
}

func TestLiveViewNotebookThrottlesAndEndsSelfContained(t *testing.T) {
	const interval = 200 * time.Millisecond
	s := &displaytest.Recorder{IsHTML: true, IsLive: true}
	v := NewLiveViewOn(s, "events", displaytest.FakeBundlePath(t), interval)
	ps := displaytest.Sample()

	// The snapshots are built before the clock starts: building charts is
	// slow on a loaded machine, and the burst must fit in the interval.
	var burst []Snapshot
	for i := 2; i <= 6; i++ {
		burst = append(burst, snap(t, ps[:i], "<p>extra</p>"))
	}
	first := snap(t, ps[:1], "")
	v.Update(first)
	if n := len(s.Frames()); n != 1 {
		t.Fatalf("first update sent %d frames, want 1 at once", n)
	}
	// A burst within the interval is held back and coalesced into one
	// frame carrying the latest values.
	for _, b := range burst {
		v.Update(b)
	}
	if n := len(s.Frames()); n != 1 {
		t.Fatalf("burst sent %d frames before the interval passed, want still 1", n)
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(s.Frames()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	v.Close()
	v.Update(snap(t, ps, "")) // ignored after Close

	fr := s.Frames()
	if len(fr) != 3 {
		t.Fatalf("sent %d frames, want 3 (first, coalesced burst, final)", len(fr))
	}
	for i, f := range fr {
		if f.ID != fr[0].ID {
			t.Fatalf("frame %d uses display id %q, want the single id %q", i, f.ID, fr[0].ID)
		}
	}
	if gap := fr[1].At.Sub(fr[0].At); gap < interval-10*time.Millisecond {
		t.Errorf("frames 0 and 1 only %v apart, want >= %v", gap, interval)
	}
	hasBundle := func(f displaytest.Sent) bool { return strings.Contains(f.HTML, "fake echarts for tests") }
	if !hasBundle(fr[0]) || hasBundle(fr[1]) || !hasBundle(fr[2]) {
		t.Errorf("bundle carried by frames: %v %v %v, want first and final only", hasBundle(fr[0]), hasBundle(fr[1]), hasBundle(fr[2]))
	}
	if !strings.Contains(fr[1].HTML, "batch 5") || !strings.Contains(fr[1].HTML, "<p>extra</p>") {
		t.Errorf("coalesced frame does not show the latest update (batch 5 and its extra HTML)")
	}
	if !strings.Contains(fr[2].HTML, "batch 5") || !strings.Contains(fr[2].HTML, ">stopped<") {
		t.Errorf("final frame should show batch 5 and status stopped")
	}
	if s.Syncs() != 1 {
		t.Errorf("Close synced %d times, want 1", s.Syncs())
	}
	// Every frame draws 4 charts into element ids never used before, in
	// the same 4 slots, so each frame replaces the previous frame's charts.
	seen := map[string]bool{}
	for i, f := range fr {
		drawn := displaytest.ParseCharts(t, f.HTML)
		if len(drawn) != 4 {
			t.Fatalf("frame %d draws %d charts", i, len(drawn))
		}
		for j, d := range drawn {
			if seen[d.Elem] {
				t.Errorf("frame %d reuses element id %s", i, d.Elem)
			}
			seen[d.Elem] = true
			if want := v.prefix + "-c" + string(rune('0'+j)); d.Slot != want {
				t.Errorf("frame %d chart %d slot %s, want %s", i, j, d.Slot, want)
			}
		}
	}
}

func TestLiveViewNotebookRateLimit(t *testing.T) {
	const interval = 50 * time.Millisecond
	s := &displaytest.Recorder{IsHTML: true, IsLive: true}
	v := NewLiveViewOn(s, "events", displaytest.FakeBundlePath(t), interval)
	ps := displaytest.Sample()
	start := time.Now()
	for i := 0; i < 60; i++ {
		v.Update(snap(t, ps[:1+i%12], ""))
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	v.Close()
	n := len(s.Frames())
	// At most one frame per interval, plus the first and the final.
	if limit := int(elapsed/interval) + 2; n > limit || n < 3 {
		t.Fatalf("%d frames in %v with a %v interval, want 3..%d", n, elapsed, interval, limit)
	}
}

func TestLiveViewTerminalPrintsOneLinePerBatch(t *testing.T) {
	s := &displaytest.Recorder{}
	v := NewLiveViewOn(s, "", "", time.Second)
	ps := displaytest.Sample()
	v.Update(snap(t, ps[:3], ""))
	v.Update(snap(t, ps[:5], ""))
	v.Update(snap(t, ps[2:6], "")) // a sliding window: only batch 5 is new
	v.Close()
	var want strings.Builder
	for _, p := range ps[:6] {
		want.WriteString(ProgressLine(p) + "\n")
	}
	if got := s.Out(); got != want.String() {
		t.Fatalf("terminal output:\n%s\nwant:\n%s", got, want.String())
	}
	if len(s.Frames()) != 0 || len(s.Displays()) != 0 {
		t.Fatalf("terminal view sent HTML")
	}
}

func TestLiveViewHTMLWithoutNotebookWritesOnlyFinalFrame(t *testing.T) {
	s := &displaytest.Recorder{IsHTML: true}
	v := NewLiveViewOn(s, "events", filepath.Join(t.TempDir(), "missing.js"), time.Millisecond)
	ps := displaytest.Sample()
	v.Update(snap(t, ps[:2], ""))
	v.Update(snap(t, ps[:4], ""))
	v.Close()
	if len(s.Displays()) != 1 || len(s.Frames()) != 0 {
		t.Fatalf("displays %d updates %d, want exactly one final display", len(s.Displays()), len(s.Frames()))
	}
	if !strings.Contains(s.Displays()[0], "batch 3") || !strings.Contains(s.Displays()[0], "make kernel") {
		t.Fatalf("final frame lacks the last batch or the missing-bundle note")
	}
}

// A query waiting for its source between batches says so: a line in a
// terminal (once per distinct notice), the frame's status in a notebook.
func TestLiveViewNotice(t *testing.T) {
	s := &displaytest.Recorder{}
	v := NewLiveViewOn(s, "events", "", time.Second)
	ps := displaytest.Sample()
	v.Update(snap(t, ps[:1], ""))
	wait := "Waiting for the Kafka broker 127.0.0.1:9092 (retry 1, next in 250ms): connection refused"
	v.Notice(wait)
	v.Notice(wait)
	v.Notice("")
	v.Close()
	want := ProgressLine(ps[0]) + "\n[events] " + wait + "\n[events] resumed\n"
	if got := s.Out(); got != want {
		t.Fatalf("terminal output:\n%s\nwant:\n%s", got, want)
	}

	h := &displaytest.Recorder{IsHTML: true, IsLive: true}
	nv := NewLiveViewOn(h, "events", "", 0)
	nv.Update(snap(t, ps[:1], ""))
	nv.Notice(wait)
	frames := h.Frames()
	if len(frames) != 2 || !strings.Contains(frames[1].HTML, "Waiting for the Kafka broker 127.0.0.1:9092") {
		t.Fatalf("notebook frames after a notice: %d, last %q", len(frames), frames[len(frames)-1].HTML)
	}
}

// TestLiveViewsInlineTheBundleOncePerKernel: in one kernel session (one
// GONB_TMP_DIR) the first view's frames carry the bundle, the final one
// included; a second view's frames never do and draw with the page's.
func TestLiveViewsInlineTheBundleOncePerKernel(t *testing.T) {
	t.Setenv("GONB_TMP_DIR", t.TempDir())
	ps := displaytest.Sample()
	bundles := func() []int {
		s := &displaytest.Recorder{IsHTML: true, IsLive: true}
		v := NewLiveViewOn(s, "events", displaytest.FakeBundlePath(t), 0)
		v.Update(snap(t, ps[:2], ""))
		v.Update(snap(t, ps, ""))
		v.Close()
		var out []int
		for _, f := range s.Frames() {
			out = append(out, strings.Count(f.HTML, displaytest.FakeBundle))
		}
		return out
	}
	first, second := bundles(), bundles()
	if len(first) < 2 || first[0] != 1 || first[len(first)-1] != 1 {
		t.Errorf("the first view's frames carry the bundle %v times each, want the first and the final one once", first)
	}
	for i, n := range second {
		if n != 0 {
			t.Errorf("the second view's frame %d carries the bundle: %v", i, second)
		}
	}
}
