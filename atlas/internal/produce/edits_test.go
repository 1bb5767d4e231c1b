package produce

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEditsAreReproducibleAndDecode checks two generators with one seed
// give the same bytes, every value decodes with encoding/json to its Edit,
// timestamps never decrease, and the editors are skewed (the top editor
// makes many more edits than the median one).
func TestEditsAreReproducibleAndDecode(t *testing.T) {
	cfg := EditsConfig{Count: 5000, Seed: 3}
	a, err := NewEditGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewEditGenerator(cfg)
	per := map[string]int{}
	var last int64
	n := 0
	for {
		ea, va, ok := a.Next()
		_, vb, okB := b.Next()
		if ok != okB {
			t.Fatal("streams of one seed differ in length")
		}
		if !ok {
			break
		}
		n++
		if !bytes.Equal(va, vb) {
			t.Fatalf("edit %d differs between generators of one seed", n)
		}
		var got Edit
		if err := json.Unmarshal(va, &got); err != nil || got != ea {
			t.Fatalf("edit %d: %s decodes to %+v (%v), generated %+v", n, va, got, err, ea)
		}
		if got.Timestamp < last {
			t.Fatalf("edit %d goes back in time", n)
		}
		last = got.Timestamp
		if !got.Bot {
			per[got.User]++
		}
	}
	if n != 5000 {
		t.Fatalf("%d edits, want 5000", n)
	}
	top := 0
	for _, c := range per {
		top = max(top, c)
	}
	if len(per) < 50 || top < 10*5000/len(per)/2 {
		t.Errorf("%d human editors, the top one with %d edits: not skewed", len(per), top)
	}
}
