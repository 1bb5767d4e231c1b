package produce

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestMomoIsReproducibleAndShapedAsTheChapter checks two generators of one
// seed give the same bytes; every value decodes with encoding/json to its
// transaction; districts are the chapter's four or null; on-time
// transactions stay within 30 s of the stream's front; the late ones are
// exactly LateBy behind their place, none in the first fifth; and the
// busiest district passes the chapter's 5,000,000 per minute in some
// minutes but not in all.
func TestMomoIsReproducibleAndShapedAsTheChapter(t *testing.T) {
	cfg := MomoConfig{Count: 40_000, Seed: 7}
	a, err := NewMomoGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewMomoGenerator(cfg)
	c := a.Config()
	startMs := c.Start.UnixMilli()
	var front float64
	late, nulls, n := 0, 0, 0
	volume := map[[2]int64]float64{} // (minute, district index) -> sum
	for {
		ta, va, ok := a.Next()
		_, vb, okB := b.Next()
		if ok != okB {
			t.Fatal("streams of one seed differ in length")
		}
		if !ok {
			break
		}
		if !bytes.Equal(va, vb) {
			t.Fatalf("transaction %d differs between generators of one seed", n)
		}
		var got Txn
		if err := json.Unmarshal(va, &got); err != nil || got.TxnID != int64(n) || got.Amount != ta.Amount || got.TS != ta.TS {
			t.Fatalf("transaction %d: %s decodes to %+v (%v), generated %+v", n, va, got, err, ta)
		}
		if got.Amount < 1 || got.Amount != math.Trunc(got.Amount) {
			t.Fatalf("transaction %d: amount %v is not a whole positive number of francs", n, got.Amount)
		}
		d := int64(-1)
		if got.District == nil {
			nulls++
		} else {
			for i, name := range MomoDistricts {
				if name == *got.District {
					d = int64(i)
				}
			}
			if d < 0 {
				t.Fatalf("transaction %d: district %q is not one of the chapter's", n, *got.District)
			}
		}
		ms := int64(math.Round(got.TS * 1000))
		if ta.Late {
			late++
			if n < int(momoLateFrom*float64(c.Count)) || front-float64(ms-startMs) < float64((c.LateBy-time.Minute).Milliseconds()) {
				t.Fatalf("late transaction %d at %d ms, front %v ms: not LateBy behind, or too early in the stream", n, ms-startMs, front)
			}
			n++
			continue
		}
		rel := float64(ms - startMs)
		if rel < front-float64(momoJitter.Milliseconds())-1 || rel > float64(c.Span.Milliseconds())+1 {
			t.Fatalf("on-time transaction %d at %v ms: more than 30 s behind the front %v or beyond the span", n, rel, front)
		}
		front = max(front, rel)
		if d >= 0 {
			volume[[2]int64{(ms - startMs) / 60_000, d}] += got.Amount
		}
		n++
	}
	if n != 40_000 || late < 40 || late > 140 || nulls < 250 || nulls > 550 {
		t.Fatalf("%d transactions, %d late (want about 80), %d null districts (want about 400)", n, late, nulls)
	}
	above, below := 0, 0
	for k, v := range volume {
		if k[1] == 0 && k[0] < 15 { // Gasabo, whole minutes
			if v > 5_000_000 {
				above++
			} else {
				below++
			}
		}
	}
	if above == 0 || below == 0 {
		t.Errorf("Gasabo passes 5,000,000 in %d minutes and not in %d: want some of each", above, below)
	}
}
