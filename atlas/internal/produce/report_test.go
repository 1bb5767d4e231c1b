package produce

import (
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestProgressPrinterPlainLines(t *testing.T) {
	var out strings.Builder
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := NewProgressPrinter(&out, "events", false)
	p.now = clock.now
	for done := int64(0); done < 1000; done += 100 { // one update every 500 ms
		p.Update(done, 1000)
		clock.t = clock.t.Add(500 * time.Millisecond)
	}
	p.Update(1000, 1000)
	// The second final update is ignored: the printer has finished.
	p.Update(1000, 1000)
	// A short run (under two seconds) prints nothing at all.
	var short strings.Builder
	sp := NewProgressPrinter(&short, "edits", false)
	sp.now = clock.now
	sp.Update(0, 10)
	clock.t = clock.t.Add(300 * time.Millisecond)
	sp.Update(10, 10)
	if short.String() != "" {
		t.Errorf("a short plain run printed %q, want nothing (the summary says it)", short.String())
	}
	// No final line: the caller's summary follows (5 s in).
	want := "events: 400/1,000 records (40%), 200 records/s\n" + // 2 s in
		"events: 800/1,000 records (80%), 200 records/s\n" // 4 s in
	if out.String() != want {
		t.Errorf("plain progress:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestProgressPrinterTerminalBar(t *testing.T) {
	var out strings.Builder
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := NewProgressPrinter(&out, "cdc", true)
	p.now = clock.now
	p.Update(0, 300)
	clock.t = clock.t.Add(50 * time.Millisecond)
	p.Update(100, 300) // too soon after the first draw
	clock.t = clock.t.Add(50 * time.Millisecond)
	p.Update(150, 300)
	clock.t = clock.t.Add(time.Second)
	p.Update(300, 300)
	want := "\rcdc [..............................] 0/300 records (0%), 0 records/s" +
		"\rcdc [###############...............] 150/300 records (50%), 1,500 records/s" +
		"\rcdc [##############################] 300/300 records (100%), 272 records/s\n"
	if out.String() != want {
		t.Errorf("terminal progress:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestSummaryStrings(t *testing.T) {
	ev := EventsSummary{Topic: "events", Elapsed: 2 * time.Second, EventStats: EventStats{
		Records: 1_234_567, Bytes: 98_765_432, InOrder: 1_100_000, OutOfOrder: 120_000, Late: 10_000, Duplicates: 4_567,
		MinTime: DefaultEventsStart(), MaxTime: DefaultEventsStart().Add(2 * time.Hour),
	}}
	want := `produced 1,234,567 records (98.8 MB) to topic "events" in 2s: 617,283 records/s, 49.4 MB/s
event time 2026-11-30T10:00:00.000Z .. 2026-11-30T12:00:00.000Z
intended: 1,100,000 in order, 120,000 out of order, 10,000 late, 4,567 duplicates, 0 malformed
`
	if ev.String() != want {
		t.Errorf("events summary:\n%s\nwant\n%s", ev, want)
	}
	cdc := CDCSummary{Topic: "online_retail_cdc", Elapsed: 500 * time.Millisecond, CDCStats: CDCStats{
		Records: 1000, Bytes: 999, Inserts: 400, Reinserts: 3, Updates: 550, Deletes: 50, DistinctKeys: 397, MaxChangesPerKey: 9,
	}}
	want = `produced 1,000 records (999 B) to topic "online_retail_cdc" in 500ms: 2,000 records/s, 2.0 kB/s
changes: 400 inserts (3 re-inserts), 550 updates, 50 deletes; 397 distinct keys, at most 9 changes per key
`
	if cdc.String() != want {
		t.Errorf("cdc summary:\n%s\nwant\n%s", cdc, want)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := numfmt.Group(n); got != want {
			t.Errorf("numfmt.Group(%d) = %q, want %q", n, got, want)
		}
	}
}
