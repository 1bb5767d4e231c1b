package atlas

import (
	"context"
	"fmt"
	"sync"

	atlaspb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
)

// MetricMalformed is the observed metric counting records whose JSON did
// not parse (the server's progress.ObservedMetrics key).
const MetricMalformed = "numMalformedRows"

// QueryTotals sums the progress of a query run's micro-batches.
type QueryTotals struct {
	Batches     int64
	InputRows   int64
	OutputRows  int64
	DroppedLate int64 // rows behind the watermark
	Malformed   int64 // records whose JSON did not parse
}

// progressLog keeps the progress this handle has seen of its run, by batch.
type progressLog struct {
	mu   sync.Mutex
	seen map[int64]StreamingQueryProgress
}

func (l *progressLog) record(runID string, ps []StreamingQueryProgress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[int64]StreamingQueryProgress{}
	}
	for _, p := range ps {
		if runID == "" || p.RunID == runID {
			l.seen[p.BatchID] = p
		}
	}
}

func (l *progressLog) totals() QueryTotals {
	l.mu.Lock()
	defer l.mu.Unlock()
	var t QueryTotals
	for _, p := range l.seen {
		t.Batches++
		t.InputRows += p.NumInputRows
		t.OutputRows += p.Sink.NumOutputRows
		for _, s := range p.StateOperators {
			t.DroppedLate += s.NumRowsDroppedByWatermark
		}
		t.Malformed += p.ObservedMetrics[MetricMalformed]
	}
	return t
}

// Totals returns counters over every micro-batch of this run, as the
// server counted them. From a server without Atlas's QueryTotals extension
// (Apache Spark) or when the server cannot be reached, it sums the progress
// this handle has seen instead: every batch while AwaitTermination watched
// the query, plus those still in the server's recent progress (the last
// 100) now.
func (q *StreamingQuery) Totals() QueryTotals {
	if q == nil {
		return QueryTotals{}
	}
	if t, err := q.serverTotals(context.Background()); err == nil {
		return t
	}
	q.RecentProgress()
	return q.log.totals()
}

// serverTotals runs the atlas.connect.QueryTotals extension.
func (q *StreamingQuery) serverTotals(ctx context.Context) (QueryTotals, error) {
	b, err := (&atlaspb.QueryTotals{QueryId: q.id}).MarshalVT()
	res := &atlaspb.QueryTotalsResult{}
	if err := q.s.runExtension(ctx, atlaspb.TypeURLQueryTotals, b, err, atlaspb.TypeURLQueryTotalsResult, res.UnmarshalVT); err != nil {
		return QueryTotals{}, fmt.Errorf("query %s: totals: %w", q.displayName(), err)
	}
	return QueryTotals{Batches: res.GetBatches(), InputRows: res.GetInputRows(), OutputRows: res.GetOutputRows(),
		DroppedLate: res.GetDroppedLate(), Malformed: res.GetMalformed()}, nil
}

// CheckpointLocation is the checkpointLocation option the query was
// started with from this handle, or "" (a handle from Streams() or a
// query checkpointing under its name).
func (q *StreamingQuery) CheckpointLocation() string {
	if q == nil {
		return ""
	}
	return q.checkpoint
}
