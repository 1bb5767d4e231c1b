package view

import (
	"fmt"
	"sync"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// MinUpdateInterval is the shortest time between two frames a [LiveView]
// sends to a notebook: at most two updates a second.
const MinUpdateInterval = 500 * time.Millisecond

// bundleEvery is how often (in frames) a live frame carries the echarts
// bundle again, so that a page opened or reloaded while the query runs gets
// charts within a few seconds. The first and the final frame always carry it.
const bundleEvery = 20

// LiveView shows a running query's progress and keeps it current. In a
// GoNB notebook it is one output, replaced in place (gonbui.UpdateHTML with
// one display id) by a [ProgressHTML]-like frame at most every
// [MinUpdateInterval]; in a terminal it prints one [ProgressLine] per new
// micro-batch. Close renders the final state. A LiveView is safe for
// concurrent use.
//
// In a notebook the frames load echarts this way. The bundle (about 1 MB)
// is inlined once per kernel session (echartsjs.ClaimInline): the first
// view or chart of the session carries it, in a guarded loader that
// publishes window.atlasEcharts once per page, and every later output
// draws with it, so a notebook run from the top holds it once. In the
// carrying view, the first frame has it, then every 20th (for pages opened
// mid-run), and the final frame, sent by Close, because the notebook (and
// nbconvert) keeps only the final frame of an updated output.
type LiveView struct {
	mu       sync.Mutex
	title    string
	out      Surface
	interval time.Duration

	displayID string
	prefix    string
	seq       int

	bundle     []byte
	bundlePath string
	// claim decides, at the first frame, whether this view carries the
	// bundle (carries); echartsjs.ClaimInline unless a test sets it.
	claim   func() bool
	claimed bool
	carries bool

	status string
	snap   Snapshot
	dirty  bool
	last   time.Time
	timer  *time.Timer
	closed bool

	printed     bool
	lastPrinted int64
	everUpdated bool
}

// NewLiveView returns a LiveView for the query named title ("" uses the
// query name from the progress). It decides between notebook and terminal
// output with [DetectSurface], and in a notebook reads the echarts bundle
// from echartsjs.Path() once (charts degrade to a table and a note without
// it). Nothing is shown until the first Update or Close.
func NewLiveView(title string) *LiveView {
	return NewLiveViewOn(DetectSurface(), title, echartsjs.Path(), MinUpdateInterval)
}

// NewLiveViewOn is NewLiveView showing on out, with the bundle read from
// bundlePath and at most one frame per interval: for tests and for
// programs that pick their own surface.
func NewLiveViewOn(out Surface, title, bundlePath string, interval time.Duration) *LiveView {
	v := &LiveView{
		title:      title,
		out:        out,
		interval:   interval,
		prefix:     NewDOMID(),
		bundlePath: bundlePath,
		status:     "running",
		claim:      echartsjs.ClaimInline,
	}
	v.displayID = "atlas_progress_" + v.prefix
	if out.HTML() {
		v.bundle = echartsjs.Read(bundlePath)
	}
	return v
}

// WantsCharts reports whether the frames draw charts: the view shows HTML
// and has the echarts bundle. When it does not (a terminal, or no bundle),
// callers need not build or fetch charts for Update.
func (v *LiveView) WantsCharts() bool {
	return v.out.HTML() && v.bundle != nil
}

// SetStatus sets the status text shown at the end of the headline, such
// as "waiting for data" or "failed: <reason>". A LiveView starts as
// "running", and Close turns "running" into "stopped". It takes effect with
// the next frame.
func (v *LiveView) SetStatus(status string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.status = status
	v.dirty = true
}

// Update shows s: the query's recent progress (oldest first, as
// StreamingQuery.RecentProgress returns it) with its charts and extra HTML.
// In a notebook a frame is sent now if the previous one is at least
// [MinUpdateInterval] old, otherwise once that interval has passed, always
// with the latest values. In a terminal it prints a line for each batch
// newer than those already printed (charts are not used). Updates after
// Close are ignored.
func (v *LiveView) Update(s Snapshot) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	v.everUpdated = true
	s.Progress = append([]progress.StreamingQueryProgress(nil), s.Progress...)
	s.Charts = append([]Chart(nil), s.Charts...)
	v.snap = s
	if !v.out.HTML() {
		v.printNewLines()
		return
	}
	v.dirty = true
	if !v.out.Live() {
		return // HTML to a plain writer: only the final frame is written.
	}
	wait := v.interval - time.Since(v.last)
	if wait <= 0 {
		v.sendFrameLocked(false)
		return
	}
	if v.timer == nil {
		v.timer = time.AfterFunc(wait, v.flushPending)
	}
}

// Notice shows something the query is doing between batches, such as
// "Waiting for the Kafka broker 127.0.0.1:9092 (retry 3, next in 2s): ...":
// in a notebook as the status of the next frame (sent now, or once
// MinUpdateInterval has passed since the last one), in a terminal as a
// line "[title] notice". The empty notice ends it: the status goes back to
// "running" (a terminal prints "[title] resumed").
func (v *LiveView) Notice(notice string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	status := notice
	if status == "" {
		status = "running"
	}
	if status == v.status {
		return
	}
	v.status = status
	if !v.out.HTML() {
		if notice == "" {
			notice = "resumed"
		}
		fmt.Fprintf(v.out.Text(), "[%s] %s\n", v.label(), notice)
		return
	}
	v.dirty = true
	if !v.out.Live() {
		return
	}
	if wait := v.interval - time.Since(v.last); wait <= 0 {
		v.sendFrameLocked(false)
	} else if v.timer == nil {
		v.timer = time.AfterFunc(wait, v.flushPending)
	}
}

// flushPending sends the frame an Update held back.
func (v *LiveView) flushPending() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.timer = nil
	if v.closed || !v.dirty {
		return
	}
	v.sendFrameLocked(false)
}

// Close sends the final frame (in a notebook, a self-contained one that
// carries the echarts bundle) and waits until GoNB has it (gonbui.Sync), so
// the cell may end right after. Later calls do nothing.
func (v *LiveView) Close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	v.closed = true
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	if v.status == "running" {
		v.status = "stopped"
	}
	if !v.out.HTML() {
		v.printNewLines()
		if !v.everUpdated {
			fmt.Fprintf(v.out.Text(), "[%s] no micro-batch completed\n", v.label())
		}
		return
	}
	v.sendFrameLocked(true)
	v.out.Sync()
}

func (v *LiveView) label() string {
	if v.title != "" {
		return v.title
	}
	return "query"
}

// sendFrameLocked renders the current state and sends it; the final frame
// of the view that carries the bundle has it.
func (v *LiveView) sendFrameLocked(final bool) {
	f := frame{
		snap:       v.snap,
		title:      v.title,
		status:     v.status,
		prefix:     v.prefix,
		seq:        v.seq,
		bundlePath: v.bundlePath,
	}
	if v.bundle != nil && !v.claimed {
		v.claimed, v.carries = true, v.claim()
	}
	switch {
	case v.bundle == nil:
		f.mode = chartsUnavailable
	case v.carries && (final || v.seq%bundleEvery == 0):
		f.mode, f.bundle = chartsInline, v.bundle
	default:
		f.mode = chartsExternal
	}
	fragment := f.render()
	if v.out.Live() {
		v.out.UpdateHTML(v.displayID, fragment)
	} else {
		v.out.DisplayHTML(fragment)
	}
	v.seq++
	v.dirty = false
	v.last = time.Now()
}

// printNewLines prints a ProgressLine for every batch of v.snap newer than
// the last one printed.
func (v *LiveView) printNewLines() {
	w := v.out.Text()
	for _, p := range v.snap.Progress {
		if v.printed && p.BatchID <= v.lastPrinted {
			continue
		}
		if p.Name == "" && v.title != "" {
			p.Name = v.title
		}
		fmt.Fprintln(w, ProgressLine(p))
		v.printed, v.lastPrinted = true, p.BatchID
	}
}
