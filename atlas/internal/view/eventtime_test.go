package view

import (
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
)

func TestProgressLineShowsEventTimeCounters(t *testing.T) {
	ps := displaytest.Far()
	want := "[events] batch 7 | 4,070 rows | in 50,701/s | proc 407,000/s | 121 ms | wm 2026-11-30 10:04:00 | state 37 rows | late 1 | null-time 1 | future 4"
	if got := ProgressLine(ps[7]); got != want {
		t.Fatalf("ProgressLine:\n got %q\nwant %q", got, want)
	}
	if got := ProgressLine(ps[10]); !strings.HasSuffix(got, " | WARNING batch 10: event time 294247-01-01T00:00:00.000Z moved the watermark") {
		t.Fatalf("ProgressLine of the jump lacks the warning: %q", got)
	}
	// The watermark past year 9999 reads back (progress times have all
	// the year's digits) and is printed.
	if got := ProgressLine(ps[11]); !strings.Contains(got, "| wm 294246-12-31 23:50:00 |") {
		t.Fatalf("ProgressLine with the far watermark: %q", got)
	}
}

// TestHeadlineShowsEventTimeCounters: the frame's headline sums the null
// and future event-time rows over the batches (2+1+5 and 4, by hand) and
// carries the watermark warning; an ordinary query's stays quiet.
func TestHeadlineShowsEventTimeCounters(t *testing.T) {
	ps := displaytest.Far()
	head := headlineHTML(ps, "", "")
	for _, want := range []string{"8 rows with null event time", "4 rows with future event time", "WARNING batch 10: event time 294247-01-01T00:00:00.000Z moved the watermark"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline lacks %q: %s", want, head)
		}
	}
	if head := headlineHTML(displaytest.Sample(), "", ""); strings.Contains(head, "event time") || strings.Contains(head, "WARNING") {
		t.Errorf("quiet headline expected: %s", head)
	}
}
