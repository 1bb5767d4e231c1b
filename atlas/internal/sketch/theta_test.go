package sketch

import (
	"math"
	"testing"
)

// thetaOf sketches the integers [from, to).
func thetaOf(lgK uint8, from, to int64) *Theta {
	k := NewTheta(lgK)
	for v := from; v < to; v++ {
		k.Update(HashInt64(v), struct{}{}, nil)
	}
	return k
}

// within checks an estimate against the exact count: DataSketches
// documents a relative standard error of 1/sqrt(k) for a theta sketch of
// k nominal entries; 3 standard errors bound it here.
func within(t *testing.T, what string, got float64, exact int, lgK uint8) {
	t.Helper()
	rse := 1 / math.Sqrt(float64(int(1)<<lgK))
	if math.Abs(got-float64(exact)) > 3*rse*float64(exact) {
		t.Errorf("%s: estimate %v, exact %d: beyond 3 x rse %.4f", what, got, exact, rse)
	}
}

func TestThetaExactBelowK(t *testing.T) {
	k := NewTheta(DefaultLgK)
	for _, v := range []int64{1, 1, 2, 2, 3, 3, 3} {
		k.Update(HashInt64(v), struct{}{}, nil)
	}
	if k.Estimate() != 3 || k.ThetaFraction() != 1 {
		t.Fatalf("estimate %v theta %v, want 3 and 1.0", k.Estimate(), k.ThetaFraction())
	}
	// 4095 distinct values stay exact at lgK 12.
	if got := thetaOf(12, 0, 4095).Estimate(); got != 4095 {
		t.Fatalf("estimate %v, want exactly 4095", got)
	}
}

func TestThetaEstimateLarge(t *testing.T) {
	for _, n := range []int64{5000, 100000, 1000000} {
		k := thetaOf(10, 0, n)
		if k.ThetaFraction() >= 1 {
			t.Fatalf("n=%d: theta %v, want estimation mode", n, k.ThetaFraction())
		}
		if len(k.Entries) < 1<<10 || len(k.Entries) >= 2<<10 {
			t.Fatalf("n=%d: %d entries retained, want [1024, 2048)", n, len(k.Entries))
		}
		within(t, "distinct", k.Estimate(), int(n), 10)
	}
	// Duplicates do not count.
	k := thetaOf(10, 0, 50000)
	for v := int64(0); v < 50000; v++ {
		k.Update(HashInt64(v), struct{}{}, nil)
	}
	within(t, "with duplicates", k.Estimate(), 50000, 10)
}

func TestThetaSetOperations(t *testing.T) {
	// Exact: a = [0, 100), b = [50, 130).
	a, b := thetaOf(12, 0, 100), thetaOf(12, 50, 130)
	if got := Union(12, a, b, KeepFirst[struct{}]).Estimate(); got != 130 {
		t.Errorf("union %v, want 130", got)
	}
	if got := Intersect(a, b, KeepFirst[struct{}]).Estimate(); got != 50 {
		t.Errorf("intersection %v, want 50", got)
	}
	if got := Difference(a, b).Estimate(); got != 50 {
		t.Errorf("difference %v, want 50", got)
	}
	// Estimated: a = [0, 200000), b = [100000, 300000) at lgK 11. The
	// intersection's and difference's errors are relative to the union
	// (DataSketches' bound for set operations), so check them so.
	a, b = thetaOf(11, 0, 200000), thetaOf(11, 100000, 300000)
	u := Union(11, a, b, KeepFirst[struct{}])
	within(t, "union", u.Estimate(), 300000, 11)
	rse := 1 / math.Sqrt(2048)
	for what, c := range map[string]struct {
		got   float64
		exact float64
	}{
		"intersection": {Intersect(a, b, KeepFirst[struct{}]).Estimate(), 100000},
		"difference":   {Difference(a, b).Estimate(), 100000},
	} {
		if math.Abs(c.got-c.exact) > 3*rse*300000 {
			t.Errorf("%s: %v, exact %v", what, c.got, c.exact)
		}
	}
	// A union with an empty sketch keeps the estimate (trimmed to 2^lgK
	// entries, so within the bound rather than equal).
	within(t, "union with empty", Union(11, a, NewTheta(11), KeepFirst[struct{}]).Estimate(), 200000, 11)
	if got := Intersect(a, NewTheta(11), KeepFirst[struct{}]).Estimate(); got != 0 {
		t.Errorf("intersection with empty %v, want 0", got)
	}
}

func TestThetaMergeEqualsOneSketch(t *testing.T) {
	// Merging the sketches of two halves estimates like one sketch of all.
	whole := thetaOf(10, 0, 80000)
	merged := Union(10, thetaOf(10, 0, 40000), thetaOf(10, 40000, 80000), KeepFirst[struct{}])
	within(t, "merged", merged.Estimate(), 80000, 10)
	within(t, "whole", whole.Estimate(), 80000, 10)
}

func TestThetaEncoding(t *testing.T) {
	k := thetaOf(10, 0, 5000)
	got, err := DecodeTheta(EncodeTheta(k))
	if err != nil {
		t.Fatal(err)
	}
	if got.Theta != k.Theta || len(got.Entries) != len(k.Entries) || got.LgK != 10 || got.Estimate() != k.Estimate() {
		t.Fatalf("decoded %d entries theta %d, want %d and %d", len(got.Entries), got.Theta, len(k.Entries), k.Theta)
	}
	for _, bad := range [][]byte{nil, []byte("x"), EncodeTupleDouble(NewKMV[float64](12)), EncodeTheta(k)[:20]} {
		if _, err := DecodeTheta(bad); err == nil {
			t.Errorf("DecodeTheta(%q) did not fail", bad)
		}
	}
}

func TestHashCanonical(t *testing.T) {
	if HashFloat64(0) != HashFloat64(math.Copysign(0, -1)) {
		t.Error("-0.0 and 0.0 hash differently")
	}
	if HashFloat64(math.NaN()) != HashFloat64(math.Float64frombits(0x7ff8000000000001)) {
		t.Error("two NaNs hash differently")
	}
	if HashInt64(1) == HashFloat64(1) {
		t.Error("1 and 1.0 hash alike")
	}
	if HashBytes([]byte("a")) == HashBytes([]byte("b")) {
		t.Error("a and b hash alike")
	}
}

func TestCheckLgK(t *testing.T) {
	for _, n := range []int64{3, 27, -1} {
		if CheckLgK("theta_sketch_agg", n) == nil {
			t.Errorf("lgK %d accepted", n)
		}
	}
	for _, n := range []int64{4, 12, 26} {
		if err := CheckLgK("theta_sketch_agg", n); err != nil {
			t.Errorf("lgK %d: %v", n, err)
		}
	}
}
