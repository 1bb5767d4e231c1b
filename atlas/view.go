package atlas

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/display"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// progressView shows a running query: charts updated in place in a
// notebook, one line per batch in a terminal, with the latest output rows
// (closed windows, merge counts) beside them.
type progressView struct {
	live *display.LiveView
}

func newProgressView(name, app string) *progressView {
	title := name
	if title == "" {
		title = app
	}
	return &progressView{live: display.NewLiveView(title)}
}

func (v *progressView) update(sq *StreamingQuery, _ *progress.StreamingQueryProgress) {
	v.live.SetStatus(sq.Status().Message)
	v.live.Update(sq.RecentProgress(), v.extra(sq))
}

func (v *progressView) extra(sq *StreamingQuery) string {
	var html string
	sq.tap.latest(func(schema *arrow.Schema, recs []arrow.RecordBatch, batchID int64) {
		html = display.HTMLTable(schema, recs, tapRows, true, fmt.Sprintf("latest output rows (batch %d)", batchID))
	})
	t := sq.Totals()
	if t.DroppedLate > 0 || t.Malformed > 0 {
		html += fmt.Sprintf("<p style=\"font-family:sans-serif;font-size:12px;color:#a33\">%d late rows dropped by the watermark (their window had already been emitted), %d malformed records skipped (counted, never silently lost).</p>", t.DroppedLate, t.Malformed)
	}
	return html
}

func (v *progressView) close(sq *StreamingQuery) {
	status := "stopped"
	if err := sq.Exception(); err != nil {
		status = "failed: " + err.Error()
	}
	v.live.SetStatus(status)
	v.live.Update(sq.RecentProgress(), v.extra(sq))
	v.live.Close()
}
