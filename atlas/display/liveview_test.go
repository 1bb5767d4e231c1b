package display

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingSurface stands in for the notebook (or terminal) and records
// everything a LiveView sends.
type recordingSurface struct {
	mu       sync.Mutex
	isHTML   bool
	isLive   bool
	updates  []sentFrame
	displays []string
	syncs    int
	out      bytes.Buffer
}

type sentFrame struct {
	id, html string
	at       time.Time
}

func (s *recordingSurface) html() bool { return s.isHTML }
func (s *recordingSurface) live() bool { return s.isLive }
func (s *recordingSurface) displayHTML(f string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.displays = append(s.displays, f)
}
func (s *recordingSurface) updateHTML(id, f string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates = append(s.updates, sentFrame{id, f, time.Now()})
}
func (s *recordingSurface) text() io.Writer { return &s.out }
func (s *recordingSurface) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncs++
}

func (s *recordingSurface) frames() []sentFrame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sentFrame(nil), s.updates...)
}

func fakeBundlePath(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(path, []byte(fakeBundle), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLiveViewNotebookThrottlesAndEndsSelfContained(t *testing.T) {
	const interval = 200 * time.Millisecond
	s := &recordingSurface{isHTML: true, isLive: true}
	v := newLiveView("events", s, fakeBundlePath(t), interval)
	ps := sampleProgress()

	v.Update(ps[:1], "")
	if n := len(s.frames()); n != 1 {
		t.Fatalf("first update sent %d frames, want 1 at once", n)
	}
	// A burst within the interval is held back and coalesced into one
	// frame carrying the latest values.
	for i := 2; i <= 6; i++ {
		v.Update(ps[:i], "<p>extra</p>")
	}
	if n := len(s.frames()); n != 1 {
		t.Fatalf("burst sent %d frames before the interval passed, want still 1", n)
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(s.frames()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	v.Close()
	v.Update(ps, "") // ignored after Close

	fr := s.frames()
	if len(fr) != 3 {
		t.Fatalf("sent %d frames, want 3 (first, coalesced burst, final)", len(fr))
	}
	for i, f := range fr {
		if f.id != fr[0].id {
			t.Fatalf("frame %d uses display id %q, want the single id %q", i, f.id, fr[0].id)
		}
	}
	if gap := fr[1].at.Sub(fr[0].at); gap < interval-10*time.Millisecond {
		t.Errorf("frames 0 and 1 only %v apart, want >= %v", gap, interval)
	}
	hasBundle := func(f sentFrame) bool { return strings.Contains(f.html, "fake echarts for tests") }
	if !hasBundle(fr[0]) || hasBundle(fr[1]) || !hasBundle(fr[2]) {
		t.Errorf("bundle carried by frames: %v %v %v, want first and final only", hasBundle(fr[0]), hasBundle(fr[1]), hasBundle(fr[2]))
	}
	if !strings.Contains(fr[1].html, "batch 5") || !strings.Contains(fr[1].html, "<p>extra</p>") {
		t.Errorf("coalesced frame does not show the latest update (batch 5 and its extra HTML)")
	}
	if !strings.Contains(fr[2].html, "batch 5") || !strings.Contains(fr[2].html, ">stopped<") {
		t.Errorf("final frame should show batch 5 and status stopped")
	}
	if s.syncs != 1 {
		t.Errorf("Close synced %d times, want 1", s.syncs)
	}
	// Every frame draws 4 charts into element ids never used before, in
	// the same 4 slots, so each frame replaces the previous frame's charts.
	seen := map[string]bool{}
	for i, f := range fr {
		elems, slots, _ := parseCharts(t, f.html)
		if len(elems) != 4 {
			t.Fatalf("frame %d draws %d charts", i, len(elems))
		}
		for j, e := range elems {
			if seen[e] {
				t.Errorf("frame %d reuses element id %s", i, e)
			}
			seen[e] = true
			if want := v.prefix + "-c" + string(rune('0'+j)); slots[j] != want {
				t.Errorf("frame %d chart %d slot %s, want %s", i, j, slots[j], want)
			}
		}
	}
}

func TestLiveViewNotebookRateLimit(t *testing.T) {
	const interval = 50 * time.Millisecond
	s := &recordingSurface{isHTML: true, isLive: true}
	v := newLiveView("events", s, fakeBundlePath(t), interval)
	ps := sampleProgress()
	start := time.Now()
	for i := 0; i < 60; i++ {
		v.Update(ps[:1+i%12], "")
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	v.Close()
	n := len(s.frames())
	// At most one frame per interval, plus the first and the final.
	if limit := int(elapsed/interval) + 2; n > limit || n < 3 {
		t.Fatalf("%d frames in %v with a %v interval, want 3..%d", n, elapsed, interval, limit)
	}
}

func TestLiveViewTerminalPrintsOneLinePerBatch(t *testing.T) {
	s := &recordingSurface{}
	v := newLiveView("", s, "", time.Second)
	ps := sampleProgress()
	v.Update(ps[:3], "")
	v.Update(ps[:5], "")
	v.Update(ps[2:6], "") // a sliding window: only batch 5 is new
	v.Close()
	var want strings.Builder
	for _, p := range ps[:6] {
		want.WriteString(ProgressLine(p) + "\n")
	}
	if got := s.out.String(); got != want.String() {
		t.Fatalf("terminal output:\n%s\nwant:\n%s", got, want.String())
	}
	if len(s.frames()) != 0 || len(s.displays) != 0 {
		t.Fatalf("terminal view sent HTML")
	}
}

func TestLiveViewHTMLWithoutNotebookWritesOnlyFinalFrame(t *testing.T) {
	s := &recordingSurface{isHTML: true}
	v := newLiveView("events", s, filepath.Join(t.TempDir(), "missing.js"), time.Millisecond)
	ps := sampleProgress()
	v.Update(ps[:2], "")
	v.Update(ps[:4], "")
	v.Close()
	if len(s.displays) != 1 || len(s.frames()) != 0 {
		t.Fatalf("displays %d updates %d, want exactly one final display", len(s.displays), len(s.frames()))
	}
	if !strings.Contains(s.displays[0], "batch 3") || !strings.Contains(s.displays[0], "make kernel") {
		t.Fatalf("final frame lacks the last batch or the missing-bundle note")
	}
}

// A query waiting for its source between batches says so: a line in a
// terminal (once per distinct notice), the frame's status in a notebook.
func TestLiveViewNotice(t *testing.T) {
	s := &recordingSurface{}
	v := newLiveView("events", s, "", time.Second)
	ps := sampleProgress()
	v.Update(ps[:1], "")
	wait := "Waiting for the Kafka broker 127.0.0.1:9092 (retry 1, next in 250ms): connection refused"
	v.Notice(wait)
	v.Notice(wait)
	v.Notice("")
	v.Close()
	want := ProgressLine(ps[0]) + "\n[events] " + wait + "\n[events] resumed\n"
	if got := s.out.String(); got != want {
		t.Fatalf("terminal output:\n%s\nwant:\n%s", got, want)
	}

	h := &recordingSurface{isHTML: true, isLive: true}
	nv := newLiveView("events", h, "", 0)
	nv.Update(ps[:1], "")
	nv.Notice(wait)
	frames := h.frames()
	if len(frames) != 2 || !strings.Contains(frames[1].html, "Waiting for the Kafka broker 127.0.0.1:9092") {
		t.Fatalf("notebook frames after a notice: %d, last %q", len(frames), frames[len(frames)-1].html)
	}
}
