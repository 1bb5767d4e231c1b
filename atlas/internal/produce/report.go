package produce

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

const (
	// barWidth is the number of cells of the terminal progress bar.
	barWidth = 30
	// barRedraw is the shortest time between two redraws of the bar.
	barRedraw = 100 * time.Millisecond
	// lineEvery is the time between two plain progress lines.
	lineEvery = 2 * time.Second
)

// ProgressPrinter renders the progress of a produce run. On a terminal it
// redraws one bar line in place, ending at the final state; elsewhere (a
// notebook, a log file) it writes a plain line every two seconds while the
// run lasts and nothing at the end, where the caller's summary says what
// was produced (a notebook cell then shows the summary alone).
// Its Update method fits the progress argument of ProduceEvents and
// ProduceCDC; a ProgressPrinter is not safe for concurrent use.
type ProgressPrinter struct {
	w        io.Writer
	label    string
	terminal bool
	now      func() time.Time

	start, last time.Time
	drawn       bool // a bar line is on screen and not yet ended
	finished    bool
}

// NewProgressPrinter returns a printer writing to w. label names the stream
// ("events", "cdc"); terminal selects the redrawn bar over plain lines.
func NewProgressPrinter(w io.Writer, label string, terminal bool) *ProgressPrinter {
	return &ProgressPrinter{w: w, label: label, terminal: terminal, now: time.Now}
}

// Update reports that done of total records are acknowledged.
func (p *ProgressPrinter) Update(done, total int64) {
	if p.finished {
		return
	}
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	complete := done >= total
	every := lineEvery
	if p.terminal {
		every = barRedraw
	}
	// A bar draws at once; plain lines start one interval in.
	due := (p.terminal && p.last.IsZero()) || (!p.last.IsZero() && now.Sub(p.last) >= every)
	if p.last.IsZero() {
		p.last = now
	}
	if !complete && !due {
		return
	}
	if complete && !p.terminal {
		p.Finish()
		return
	}
	p.last = now
	rate := perSecond(done, now.Sub(p.start))
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s %s %s", p.label, bar(done, total), counts(done, total, rate))
		p.drawn = true
	} else {
		fmt.Fprintf(p.w, "%s: %s\n", p.label, counts(done, total, rate))
	}
	if complete {
		p.Finish()
	}
}

// Finish ends the bar line, if one is drawn; later Updates are ignored.
func (p *ProgressPrinter) Finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
	p.finished = true
}

// bar draws [#####.....] filled to done/total.
func bar(done, total int64) string {
	filled := barWidth
	if total > 0 {
		filled = int(min(done, total) * barWidth / total)
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled) + "]"
}

// counts formats "450,000/1,000,000 records (45%), 612,345 records/s".
func counts(done, total int64, rate float64) string {
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	return fmt.Sprintf("%s/%s records (%.0f%%), %s records/s",
		numfmt.Group(done), numfmt.Group(total), pct, numfmt.Group(int64(rate)))
}
