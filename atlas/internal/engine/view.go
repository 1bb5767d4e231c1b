package engine

import (
	"fmt"
	"html"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/progresschart"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// progressView shows a running query: charts updated in place in a
// notebook, one line per batch in a terminal, with the latest output rows
// (closed windows, merge counts) beside them.
type progressView struct {
	live *view.LiveView
	// printed is the last batch whose table writes were printed (terminal).
	printed int64
}

func newProgressView(name, app string) *progressView {
	title := name
	if title == "" {
		title = app
	}
	return &progressView{live: view.NewLiveView(title), printed: -1}
}

func (v *progressView) update(sq *StreamingQuery, _ *progress.StreamingQueryProgress) {
	v.live.SetStatus(sq.Status().Message)
	v.live.Update(v.snapshot(sq))
	if !view.InNotebook() {
		// Under the batch's progress line, what its callback wrote.
		for _, w := range sq.RecentWrites() {
			if w.BatchID > v.printed {
				fmt.Println("  " + w.String())
				v.printed = w.BatchID
			}
		}
	}
}

// snapshot is what the view shows of sq now: its recent progress, the
// charts of it (built here, where go-echarts is linked, and only when the
// view draws charts) and the extra HTML.
func (v *progressView) snapshot(sq *StreamingQuery) view.Snapshot {
	ps := sq.RecentProgress()
	s := view.Snapshot{Progress: ps, ExtraHTML: v.extra(sq, ps)}
	if !v.live.WantsCharts() || len(ps) == 0 {
		return s
	}
	cs, err := progresschart.Build(ps)
	if err != nil {
		s.NoCharts = "Charts could not be built: " + err.Error()
	}
	for _, c := range cs {
		s.Charts = append(s.Charts, view.Chart(c))
	}
	return s
}

// extra is the HTML under the charts: the latest output rows or writes,
// the data loss in ps (the progress the frame shows), the rows not kept.
func (v *progressView) extra(sq *StreamingQuery, ps []progress.StreamingQueryProgress) string {
	var html string
	if fb, ok := sq.tap.inner.(*foreachBatchSink); ok && len(fb.log.recent()) > 0 {
		// A foreachBatch query's output is what its callback wrote.
		html = writesHTML(fb.log.recent())
	} else {
		sq.tap.latest(func(schema *arrow.Schema, recs []arrow.RecordBatch, batchID int64) {
			html = table.HTMLTable(schema, recs, tapRows, true, fmt.Sprintf("latest output rows (batch %d)", batchID))
		})
	}
	html += dataLossHTML(ps)
	t := sq.Totals()
	if t.DroppedLate > 0 || t.Malformed > 0 || t.NullEventTime > 0 || t.FutureEventTime > 0 {
		html += fmt.Sprintf("<p style=\"font-family:sans-serif;font-size:12px;color:#a33\">%d late rows behind the watermark (their window had already been emitted; keep them with the lateRowsTable option), %d malformed records skipped, %d rows without an event time, %d rows with an event time far ahead of processing time (counted, never silently lost).</p>", t.DroppedLate, t.Malformed, t.NullEventTime, t.FutureEventTime)
	}
	return html
}

func (v *progressView) close(sq *StreamingQuery) {
	status := "stopped"
	if err := sq.Exception(); err != nil {
		status = "failed: " + err.Error()
	}
	v.live.SetStatus(status)
	v.live.Update(v.snapshot(sq))
	v.live.Close()
}

// dataLossHTML lists, in red, the offsets the recent batches skipped
// because their records were gone (failOnDataLoss=false), with the reason.
func dataLossHTML(ps []progress.StreamingQueryProgress) string {
	var b strings.Builder
	for _, p := range ps {
		for _, src := range p.Sources {
			for _, d := range src.DataLoss {
				fmt.Fprintf(&b, "<li>batch %d: %s</li>", p.BatchID, html.EscapeString(d.String()))
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "<p style=\"font-family:sans-serif;font-size:12px;color:#a33\">Data loss (failOnDataLoss=false): records that were gone when the query read them</p><ul style=\"font-family:sans-serif;font-size:12px;color:#a33\">" + b.String() + "</ul>"
}
