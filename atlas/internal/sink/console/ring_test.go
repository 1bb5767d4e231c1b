package console

import (
	"fmt"
	"strings"
	"testing"
)

// TestRingKeepsTheLastBatches: a ring of 3 keeps batches 2..4 of 0..4,
// says which were lost, honours limit, keeps the last print of a retried
// batch, and cuts an enormous batch to MaxBatchText plus the note.
func TestRingKeepsTheLastBatches(t *testing.T) {
	r := NewRing(3)
	for id := int64(0); id < 5; id++ {
		r.add(Printed{BatchID: id, Text: fmt.Sprintf("b%d;", id)})
	}
	ids := func(ps []Printed) string {
		var b strings.Builder
		for _, p := range ps {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	if got, missed := r.After(-1, 0); ids(got) != "b2;b3;b4;" || !missed {
		t.Errorf("After(-1) = %q missed=%v, want b2;b3;b4; missed", ids(got), missed)
	}
	if got, missed := r.After(1, 0); ids(got) != "b2;b3;b4;" || missed {
		t.Errorf("After(1) = %q missed=%v, want b2;b3;b4; not missed", ids(got), missed)
	}
	if got, _ := r.After(-1, 1); ids(got) != "b4;" {
		t.Errorf("After(-1, 1) = %q, want b4;", ids(got))
	}
	r.add(Printed{BatchID: 4, Text: "b4again;"})
	if got, _ := r.After(3, 0); ids(got) != "b4again;" {
		t.Errorf("retried batch: %q", ids(got))
	}
	r.add(Printed{BatchID: 5, Text: strings.Repeat("é", MaxBatchText)})
	got, _ := r.After(4, 0)
	if len(got) != 1 || len(got[0].Text) > MaxBatchText+len(truncatedNote) || !strings.HasSuffix(got[0].Text, truncatedNote) {
		t.Errorf("enormous batch kept as %d bytes", len(got[0].Text))
	}
	if none := NewRing(0); true {
		none.add(Printed{BatchID: 0, Text: "x"})
		if got, missed := none.After(-1, 0); len(got) != 0 || !missed {
			t.Errorf("ring of 0: %v %v", got, missed)
		}
	}
}
