package sketch

import (
	"math"
	"testing"
)

func TestTupleModes(t *testing.T) {
	// Keys 1 (values 5, 1), 2 (2, 3), 3 (2.5): Spark's example data.
	rows := []struct {
		k int64
		v float64
	}{{1, 5}, {1, 1}, {2, 2}, {2, 3}, {3, 2.5}}
	for _, c := range []struct {
		mode Mode
		sum  float64 // the summaries folded by the same mode
	}{{ModeSum, 13.5}, {ModeMin, 1}, {ModeMax, 5}, {ModeAlwaysOne, 3}} {
		k := NewKMV[float64](DefaultLgK)
		for _, r := range rows {
			k.Update(HashInt64(r.k), r.v, c.mode.CombineDouble)
		}
		if k.Estimate() != 3 {
			t.Errorf("mode %d: estimate %v, want 3", c.mode, k.Estimate())
		}
		if got := AggregateDouble(k, c.mode); got != c.sum {
			t.Errorf("mode %d: summary %v, want %v", c.mode, got, c.sum)
		}
	}
}

func TestTupleIntegerWrapsAsJava(t *testing.T) {
	k := NewKMV[int32](DefaultLgK)
	k.Update(HashInt64(1), math.MaxInt32, ModeSum.CombineInteger)
	k.Update(HashInt64(1), 1, ModeSum.CombineInteger)
	if got := AggregateInteger(k, ModeSum); got != math.MinInt32 {
		t.Errorf("sum %d, want Java's wrapped %d", got, math.MinInt32)
	}
}

func TestTupleSetOperations(t *testing.T) {
	a, b := NewKMV[int32](12), NewKMV[int32](12)
	for v := int64(0); v < 10; v++ {
		a.Update(HashInt64(v), 1, ModeSum.CombineInteger)
		b.Update(HashInt64(v+5), 10, ModeSum.CombineInteger)
	}
	u := Union(12, a, b, ModeSum.CombineInteger)
	if u.Estimate() != 15 || AggregateInteger(u, ModeSum) != 10+100 {
		t.Errorf("union: %v keys, sum %d; want 15 and 110", u.Estimate(), AggregateInteger(u, ModeSum))
	}
	i := Intersect(a, b, ModeSum.CombineInteger)
	if i.Estimate() != 5 || AggregateInteger(i, ModeSum) != 55 {
		t.Errorf("intersection: %v keys, sum %d; want 5 and 55", i.Estimate(), AggregateInteger(i, ModeSum))
	}
	d := Difference(a, b)
	if d.Estimate() != 5 || AggregateInteger(d, ModeSum) != 5 {
		t.Errorf("difference: %v keys, sum %d; want 5 and 5", d.Estimate(), AggregateInteger(d, ModeSum))
	}
	// With a theta sketch: its keys get the mode's initial summary.
	th := thetaOf(12, 5, 15)
	wt := WithSummary(th, ModeMin.InitialInteger())
	if got := AggregateInteger(Intersect(a, wt, ModeMin.CombineInteger), ModeMin); got != 1 {
		t.Errorf("min over intersection with theta %d, want 1", got)
	}
	if AggregateDouble(NewKMV[float64](12), ModeMin) != 0 {
		t.Error("an empty sketch's summary is not 0")
	}
}

func TestTupleEncoding(t *testing.T) {
	k := NewKMV[float64](8)
	for v := int64(0); v < 3000; v++ {
		k.Update(HashInt64(v), float64(v), ModeSum.CombineDouble)
	}
	got, err := DecodeTupleDouble(EncodeTupleDouble(k))
	if err != nil {
		t.Fatal(err)
	}
	if got.Theta != k.Theta || AggregateDouble(got, ModeSum) != AggregateDouble(k, ModeSum) {
		t.Fatal("decoded sketch differs")
	}
	if _, err := DecodeTupleInteger(EncodeTupleDouble(k)); err == nil {
		t.Error("a double tuple sketch decoded as an integer one")
	}
	if _, err := ParseMode("f", "SUM"); err == nil {
		t.Error("mode SUM accepted; Spark requires lower case")
	}
}
