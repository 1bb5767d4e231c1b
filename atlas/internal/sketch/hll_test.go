package sketch

import (
	"math"
	"testing"
)

func hllOf(t *testing.T, lgK int64, from, to int64) *HLL {
	t.Helper()
	h, err := NewHLL("hll_sketch_agg", lgK)
	if err != nil {
		t.Fatal(err)
	}
	for v := from; v < to; v++ {
		h.S.InsertHash(HashInt64(v))
	}
	return h
}

func TestHLLEstimates(t *testing.T) {
	// Small counts are exact (the sparse representation).
	for _, n := range []int64{0, 1, 3, 100} {
		if got := hllOf(t, 12, 0, n).Estimate(); got != n {
			t.Errorf("n=%d: estimate %d", n, got)
		}
	}
	// Larger ones within 3 standard errors, 1.04/sqrt(2^lgK).
	for _, c := range []struct{ lgK, n int64 }{{10, 50000}, {12, 200000}, {14, 1000000}} {
		got := hllOf(t, c.lgK, 0, c.n).Estimate()
		rse := 1.04 / math.Sqrt(float64(int64(1)<<c.lgK))
		if math.Abs(float64(got-c.n)) > 3*rse*float64(c.n) {
			t.Errorf("lgK %d n %d: estimate %d beyond 3 x %.4f", c.lgK, c.n, got, rse)
		}
	}
}

func TestHLLUnionAndEncoding(t *testing.T) {
	a, b := hllOf(t, 12, 0, 60000), hllOf(t, 12, 40000, 100000)
	u, err := UnionHLL("hll_union", a, b, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Estimate(); math.Abs(float64(got-100000)) > 3*1.04/64*100000 {
		t.Errorf("union estimate %d of 100000", got)
	}
	if a.Estimate() != hllOf(t, 12, 0, 60000).Estimate() {
		t.Error("the union changed its input")
	}
	back, err := DecodeHLL(EncodeHLL(u))
	if err != nil || back.LgK != 12 || back.Estimate() != u.Estimate() {
		t.Fatalf("decoded %v, %v", back, err)
	}
	if _, err := DecodeHLL(EncodeTheta(NewTheta(12))); err == nil {
		t.Error("a theta sketch decoded as HLL")
	}
	c := hllOf(t, 10, 0, 10)
	if _, err := UnionHLL("hll_union", a, c, false); err == nil {
		t.Error("union of lgConfigK 12 and 10 accepted without allowDifferentLgConfigK")
	}
	if _, err := UnionHLL("hll_union", a, c, true); err == nil {
		t.Error("union of different lgConfigK accepted: Atlas cannot downsample")
	}
	for _, lgK := range []int64{3, 19, 21, 22} {
		if _, err := NewHLL("hll_sketch_agg", lgK); err == nil {
			t.Errorf("lgConfigK %d accepted", lgK)
		}
	}
}
