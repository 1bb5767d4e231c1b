package displaytest

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// Recorder stands in for the notebook (or the terminal) and records
// everything sent to it; it has the methods of view.Surface. IsHTML and
// IsLive say what it pretends to be: a notebook is both, a terminal
// neither, ATLAS_DISPLAY=html outside a notebook only IsHTML.
type Recorder struct {
	IsHTML, IsLive bool

	mu       sync.Mutex
	updates  []Sent
	displays []string
	syncs    int
	out      bytes.Buffer
}

// Sent is one in-place update: its display id, fragment and time.
type Sent struct {
	ID, HTML string
	At       time.Time
}

// HTML reports IsHTML.
func (r *Recorder) HTML() bool { return r.IsHTML }

// Live reports IsLive.
func (r *Recorder) Live() bool { return r.IsLive }

// DisplayHTML records a new output.
func (r *Recorder) DisplayHTML(f string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.displays = append(r.displays, f)
}

// UpdateHTML records an in-place update.
func (r *Recorder) UpdateHTML(id, f string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, Sent{id, f, time.Now()})
}

// Text returns the recorded text output's writer.
func (r *Recorder) Text() io.Writer { return lockedWriter{r} }

// Sync counts the call.
func (r *Recorder) Sync() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncs++
}

// Frames returns the in-place updates so far.
func (r *Recorder) Frames() []Sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sent(nil), r.updates...)
}

// Displays returns the new outputs so far.
func (r *Recorder) Displays() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.displays...)
}

// Syncs returns how often Sync was called.
func (r *Recorder) Syncs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.syncs
}

// Out returns the text written so far.
func (r *Recorder) Out() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// lockedWriter writes to the recorder's text under its lock.
type lockedWriter struct{ r *Recorder }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.out.Write(p)
}
