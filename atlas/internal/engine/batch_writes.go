package engine

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// BatchWrite is one table write (MERGE INTO or INSERT) that a foreachBatch
// callback made through the session: what the live view of a foreachBatch
// query shows per micro-batch.
type BatchWrite struct {
	// BatchID is the micro-batch whose callback wrote.
	BatchID int64
	// Op is "merge" or "insert"; Table is the target.
	Op, Table string
	// Updated, Deleted and Inserted are Spark's MERGE/INSERT metrics.
	Updated, Deleted, Inserted int64
	// FilesRewritten counts data files the write replaced (copy-on-write).
	FilesRewritten int
	// Skipped is set when the write had already committed before a crash
	// and the replayed batch skipped it (exactly-once).
	Skipped bool
	// Duration is the write's wall time.
	Duration time.Duration
}

// noteWrite records w for the foreachBatch callback running now, if any.
func (s *Session) noteWrite(w BatchWrite) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch == nil {
		return
	}
	w.BatchID = s.batch.batchID
	s.batch.writes = append(s.batch.writes, w)
}

// writeLog keeps the writes of a foreachBatch query's latest batches.
type writeLog struct {
	mu     sync.Mutex
	writes []BatchWrite
}

// writeLogBatches is how many batches the log (and the live view) keeps.
const writeLogBatches = 10

func (l *writeLog) add(ws []BatchWrite) {
	if len(ws) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, ws...)
	// Keep the writes of the last writeLogBatches batches.
	first := ws[0].BatchID - writeLogBatches + 1
	i := 0
	for i < len(l.writes) && l.writes[i].BatchID < first {
		i++
	}
	l.writes = append([]BatchWrite(nil), l.writes[i:]...)
}

// recent returns a copy of the kept writes, oldest first.
func (l *writeLog) recent() []BatchWrite {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]BatchWrite(nil), l.writes...)
}

// writeMetrics sums the writes of batch batchID as sink metrics, or nil
// when there are none.
func writeMetrics(ws []BatchWrite, batchID int64) map[string]string {
	var n, updated, deleted, inserted, files, skipped int64
	var took time.Duration
	for _, w := range ws {
		if w.BatchID != batchID {
			continue
		}
		n++
		updated += w.Updated
		deleted += w.Deleted
		inserted += w.Inserted
		files += int64(w.FilesRewritten)
		took += w.Duration
		if w.Skipped {
			skipped++
		}
	}
	if n == 0 {
		return nil
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return map[string]string{
		progress.SinkNumWrites: i(n), progress.SinkNumUpdatedRows: i(updated), progress.SinkNumDeletedRows: i(deleted),
		progress.SinkNumInsertedRows: i(inserted), progress.SinkNumFilesRewritten: i(files),
		progress.SinkNumSkippedWrites: i(skipped), progress.SinkWriteTimeMs: i(took.Milliseconds()),
	}
}

// writesHTML is the live view's table of the latest batches' writes.
func writesHTML(ws []BatchWrite) string {
	if len(ws) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(`<table class="atlas-table" style="font-family:sans-serif;font-size:12px;border-collapse:collapse">` +
		`<caption style="text-align:left">table writes per micro-batch (foreachBatch)</caption><thead><tr>`)
	for _, h := range []string{"batch", "write", "table", "updated", "deleted", "inserted", "files rewritten", "ms", "note"} {
		sb.WriteString(`<th style="padding:2px 8px;text-align:right">` + h + `</th>`)
	}
	sb.WriteString(`</tr></thead><tbody>`)
	for _, w := range ws {
		note := ""
		if w.Skipped {
			note = "already committed: skipped (exactly-once replay)"
		}
		cells := []string{strconv.FormatInt(w.BatchID, 10), w.Op, w.Table, numfmt.Group(w.Updated), numfmt.Group(w.Deleted),
			numfmt.Group(w.Inserted), strconv.Itoa(w.FilesRewritten), numfmt.Group(w.Duration.Milliseconds()), note}
		sb.WriteString("<tr>")
		for _, c := range cells {
			sb.WriteString(`<td style="padding:2px 8px;text-align:right">` + html.EscapeString(c) + `</td>`)
		}
		sb.WriteString("</tr>")
	}
	sb.WriteString("</tbody></table>")
	return sb.String()
}

// String is one line per write, for terminals and logs.
func (w BatchWrite) String() string {
	s := fmt.Sprintf("batch %d %s %s: %s updated, %s deleted, %s inserted, %d files rewritten, %s",
		w.BatchID, w.Op, w.Table, numfmt.Group(w.Updated), numfmt.Group(w.Deleted), numfmt.Group(w.Inserted),
		w.FilesRewritten, w.Duration.Round(time.Millisecond))
	if w.Skipped {
		s += " (already committed: skipped)"
	}
	return s
}

// maintenanceOf sums the automatic maintenance totals of the tables the
// writes ws of batch batchID went to; ok is false when it never ran on
// any of them (or the session has no lakehouse open).
func (s *Session) maintenanceOf(ws []BatchWrite, batchID int64) (st lakehouse.MaintenanceStats, ok bool) {
	s.mu.Lock()
	lh := s.lh
	s.mu.Unlock()
	if lh == nil {
		return st, false
	}
	seen := map[string]bool{}
	for _, w := range ws {
		if w.BatchID != batchID || seen[w.Table] {
			continue
		}
		seen[w.Table] = true
		if t, found := lh.MaintenanceStats(w.Table); found {
			st, ok = st.Plus(t), true
		}
	}
	return st, ok
}
