package exec

import (
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// TestRecentProgressKeepsTheLast100 reports 250 batches and checks that the
// query keeps the last 100 reports only, as Spark's
// spark.sql.streaming.numRecentProgressUpdates does (a history growing
// with the stream would grow the query's memory with it), while the
// totals count every batch.
func TestRecentProgressKeepsTheLast100(t *testing.T) {
	q := &Query{}
	const batches = 250
	var wantRows int64
	for b := range batches {
		rows := int64(b%7 + 1)
		wantRows += rows
		q.report(&progress.StreamingQueryProgress{BatchID: int64(b), NumInputRows: rows})
		if got := len(q.RecentProgress()); got != min(b+1, 100) {
			t.Fatalf("after batch %d RecentProgress holds %d reports, want %d", b, got, min(b+1, 100))
		}
	}
	recent := q.RecentProgress()
	for i, p := range recent {
		b := batches - 100 + i
		if p.BatchID != int64(b) || p.NumInputRows != int64(b%7+1) {
			t.Fatalf("report %d: batch %d with %d rows, want batch %d with %d rows", i, p.BatchID, p.NumInputRows, b, b%7+1)
		}
	}
	if got := q.Totals(); got.Batches != batches || got.InputRows != wantRows {
		t.Fatalf("totals %d batches, %d rows; want %d, %d", got.Batches, got.InputRows, batches, wantRows)
	}
	// The kept reports do not pin an ever larger array either.
	if c := cap(q.recent); c > 2*numRecentProgressUpdates {
		t.Fatalf("the history's array has room for %d reports after %d batches, want at most %d", c, batches, 2*numRecentProgressUpdates)
	}
}
