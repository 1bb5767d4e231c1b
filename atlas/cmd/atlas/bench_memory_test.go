package main

import (
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestPeakWatchReadsOnceWhenReached feeds progress events and checks that
// the peak is read once, at the first batch whose cumulative input reaches
// the mark, and never without a mark.
func TestPeakWatchReadsOnceWhenReached(t *testing.T) {
	w := &peakWatch{at: 500}
	l := w.listener()
	for _, rows := range []int64{200, 200, 200, 200} {
		l.OnQueryProgress(&engine.QueryProgressEvent{Progress: engine.StreamingQueryProgress{NumInputRows: rows}})
	}
	reached, kb, err := w.result()
	if reached != 600 || err != nil {
		t.Fatalf("reached %d (%v), want 600: the third batch is the first at >= 500 events", reached, err)
	}
	if kb <= 0 {
		t.Fatalf("peak %d kB, want the process's VmHWM", kb)
	}
	off := &peakWatch{}
	off.listener().OnQueryProgress(&engine.QueryProgressEvent{Progress: engine.StreamingQueryProgress{NumInputRows: 10}})
	if reached, _, _ := off.result(); reached != 0 {
		t.Fatalf("a watch without --compare-at read a peak at %d events", reached)
	}
}

func TestKilobytes(t *testing.T) {
	for in, want := range map[string]int64{"719224 kB": 719224, " 12 kB\n": 12, "unknown": -1} {
		if got := kilobytes(in); got != want {
			t.Errorf("kilobytes(%q) = %d, want %d", in, got, want)
		}
	}
	if got := mb(719224); got != "736 MB" {
		t.Errorf("mb(719224) = %q, want 736 MB (719224*1024 bytes)", got)
	}
}
