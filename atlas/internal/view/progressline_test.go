package view

import (
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

func TestProgressLine(t *testing.T) {
	ps := displaytest.Sample()
	// Batch 11 by hand: 4000+110 rows; 50000.5+1100 and 400000.25+11000
	// rows/s rounded; triggerExecution 100+33; max event time 10:00+22 min,
	// watermark 10 min behind; 30+11 rows in state; 11 % 3 = 2 dropped.
	want := "[events] batch 11 | 4,110 rows | in 51,101/s | proc 411,000/s | 133 ms | wm 2026-11-30 10:12:00 | state 41 rows | late 2"
	if got := ProgressLine(ps[11]); got != want {
		t.Fatalf("ProgressLine:\n got %q\nwant %q", got, want)
	}
	// Batch 0: 50000.5 rounds half away from zero; the watermark is still
	// the epoch, so it is left out.
	want = "[events] batch 0 | 4,000 rows | in 50,001/s | proc 400,000/s | 100 ms | state 30 rows | late 0"
	if got := ProgressLine(ps[0]); got != want {
		t.Fatalf("ProgressLine batch 0:\n got %q\nwant %q", got, want)
	}
	// A stateless query without a name: id prefix, slow rates with one
	// decimal, batchDuration when durationMs lacks triggerExecution,
	// malformed rows counted.
	p := progress.StreamingQueryProgress{
		ID: "0123456789abcdef", BatchID: 1234, BatchDuration: 2500, NumInputRows: 1234567,
		InputRowsPerSecond: 3.75, ProcessedRowsPerSecond: 99.94,
		ObservedMetrics: map[string]int64{"numMalformedRows": 1200},
	}
	want = "[01234567] batch 1234 | 1,234,567 rows | in 3.8/s | proc 99.9/s | 2,500 ms | malformed 1,200"
	if got := ProgressLine(p); got != want {
		t.Fatalf("ProgressLine stateless:\n got %q\nwant %q", got, want)
	}
	// A source that skipped records that were gone (failOnDataLoss=false).
	p.Sources = []progress.SourceProgress{{DataLoss: []progress.DataLoss{
		{Partition: "events-0", FromOffset: 30, ToOffset: 50, Reason: "recreated"},
		{Partition: "events-1", FromOffset: 40, ToOffset: -1, Reason: "recreated"},
	}}}
	want += " | data loss events-0 [30, 50), events-1 [40, end of the deleted topic)"
	if got := ProgressLine(p); got != want {
		t.Fatalf("ProgressLine with data loss:\n got %q\nwant %q", got, want)
	}
}

func TestGroupThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 100000: "100,000"} {
		if got := numfmt.Group(n); got != want {
			t.Errorf("numfmt.Group(%d) = %q, want %q", n, got, want)
		}
	}
}
