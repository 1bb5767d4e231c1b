package display

import (
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// farProgress is sampleProgress with null and future event times counted
// in batches 3 (2 null), 7 (1 null, 4 future) and 9 (5 null), and the
// watermark dragged to year 294247 by batch 10, which carries the warning.
func farProgress() []progress.StreamingQueryProgress {
	ps := sampleProgress()
	ps[3].ObservedMetrics = map[string]int64{progress.MetricNullEventTime: 2}
	ps[7].ObservedMetrics = map[string]int64{progress.MetricNullEventTime: 1, progress.MetricFutureEventTime: 4}
	ps[9].ObservedMetrics = map[string]int64{progress.MetricNullEventTime: 5}
	far := time.Date(294247, 1, 1, 0, 0, 0, 0, time.UTC)
	ps[10].WatermarkWarning = &progress.WatermarkWarning{
		MaxEventTime: progress.FormatTime(far), OldWatermark: ps[10].EventTime["watermark"],
		NewWatermark: progress.FormatTime(far.Add(-10 * time.Minute)), ProcessingTime: ps[10].Timestamp,
		Message: "batch 10: event time 294247-01-01T00:00:00.000Z moved the watermark",
	}
	ps[11].EventTime["watermark"] = progress.FormatTime(far.Add(-10 * time.Minute))
	ps[11].EventTime["max"] = progress.FormatTime(far)
	return ps
}

func TestProgressLineShowsEventTimeCounters(t *testing.T) {
	ps := farProgress()
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

func TestLiveViewShowsEventTimeCounters(t *testing.T) {
	ps := farProgress()
	frag := progressFrame(ps, "x", 0, chartsExternal, nil)
	_, _, options := parseCharts(t, frag)
	state := options[3]
	var names []string
	for s := range state.Series {
		names = append(names, state.Series[s].Name)
	}
	if got := strings.Join(names, ","); got != "rows in state,dropped by watermark (cum.),null event time (cum.),future event time (cum.)" {
		t.Fatalf("state chart series: %s", got)
	}
	// Cumulative by hand: nulls 2 from batch 3, 3 from 7, 8 from 9;
	// futures 4 from batch 7.
	nulls, futures := values(t, state, 2), values(t, state, 3)
	for i := range ps {
		wantN, wantF := int64(0), int64(0)
		switch {
		case i >= 9:
			wantN = 8
		case i >= 7:
			wantN = 3
		case i >= 3:
			wantN = 2
		}
		if i >= 7 {
			wantF = 4
		}
		if nulls[i] != wantN*100 || futures[i] != wantF*100 { // values keeps two decimals
			t.Errorf("batch %d: null %d future %d, want %d %d", i, nulls[i], futures[i], wantN, wantF)
		}
	}
	// The event-time chart cannot draw past JavaScript's last date.
	ev := options[2]
	if wm := values(t, ev, 1); wm[11] != -1 {
		t.Errorf("far watermark drawn as %d, want missing", wm[11])
	}
	head := headlineHTML(ps, ChartOptions{})
	for _, want := range []string{"8 rows with null event time", "4 rows with future event time", "WARNING batch 10: event time 294247-01-01T00:00:00.000Z moved the watermark"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline lacks %q: %s", want, head)
		}
	}
	// An ordinary query keeps its two lines and a quiet headline.
	_, _, options = parseCharts(t, progressFrame(sampleProgress(), "x", 0, chartsExternal, nil))
	if n := len(options[3].Series); n != 2 {
		t.Errorf("state chart of a query without null or future event times has %d series", n)
	}
	if head := headlineHTML(sampleProgress(), ChartOptions{}); strings.Contains(head, "event time") || strings.Contains(head, "WARNING") {
		t.Errorf("quiet headline expected: %s", head)
	}
}
