package opstest

import (
	"path/filepath"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestLeftRowsBelowTheStateWatermarkStillJoin: impressions left outer
// join clicks on the ad and clickTime BETWEEN impressionTime AND
// impressionTime + 1 hour, both watermarks 30 minutes, one file per side
// per batch:
//
//	batch  impressions     clicks
//	0      a1 10:00        nobody 10:00
//	1      zz 13:00        zz 13:00
//	2      a2 10:00, a3 10:05   a2 10:20
//
// Batch 2 evicts with W = 12:30 and drops input at or below 09:30 (the
// watermark after batch 0), so a2, a3 and the click are not late; but
// the impressions' state watermark (W - 1 hour - 1 ms, 11:29:59.999) is
// already past a2 and a3 when they arrive. Spark 3.4+ still buffers them
// for the batch's clicks, so a2 joins its click, and evicts them at the
// end of the batch, so a3 (and a1, from batch 0) is written with nulls.
// Buffering neither lost a2 and a3 altogether.
func TestLeftRowsBelowTheStateWatermarkStillJoin(t *testing.T) {
	dir := t.TempDir()
	at := func(hhmm string) time.Time {
		d, _ := time.Parse("15:04", hhmm)
		return base.Add(time.Duration(d.Hour())*time.Hour + time.Duration(d.Minute())*time.Minute)
	}
	writeFiles(t, filepath.Join(dir, "imp"), "adId", "impressionTime", [][]event{
		{{k: "a1", ts: at("10:00")}},
		{{k: "zz", ts: at("13:00")}},
		{{k: "a2", ts: at("10:00")}, {k: "a3", ts: at("10:05")}},
	})
	writeFiles(t, filepath.Join(dir, "clk"), "clickAdId", "clickTime", [][]event{
		{{k: "nobody", ts: at("10:00")}},
		{{k: "zz", ts: at("13:00")}},
		{{k: "a2", ts: at("10:20")}},
	})
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, dir).GetOrCreate()
	t.Cleanup(s.Stop)
	q, err := start(s, "leftouter", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	diff(t, output(t, dir), []string{"a1 <nil>", "a2 a2", "a3 <nil>", "zz zz"})
}
