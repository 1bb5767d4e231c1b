package progresschart

import (
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// build is Build read back as options.
func build(t *testing.T, ps []progress.StreamingQueryProgress) []displaytest.Option {
	t.Helper()
	cs, err := Build(ps)
	if err != nil {
		t.Fatal(err)
	}
	var out []displaytest.Option
	for _, c := range cs {
		out = append(out, displaytest.DecodeOption(t, c.Option))
	}
	return out
}

func TestStateChartShowsEventTimeCounters(t *testing.T) {
	ps := displaytest.Far()
	options := build(t, ps)
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
	nulls, futures := displaytest.Values(t, state, 2), displaytest.Values(t, state, 3)
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
	if wm := displaytest.Values(t, ev, 1); wm[11] != -1 {
		t.Errorf("far watermark drawn as %d, want missing", wm[11])
	}
	// An ordinary query keeps its two lines (the headline is view's).
	options = build(t, displaytest.Sample())
	if n := len(options[3].Series); n != 2 {
		t.Errorf("state chart of a query without null or future event times has %d series", n)
	}
}
