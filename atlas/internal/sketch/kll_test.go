package sketch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestKLLExactBelowK(t *testing.T) {
	s := NewKLL[int64](DefaultKLLK)
	for _, v := range []int64{5, 1, 4, 2, 3} {
		s.Update(v)
	}
	for _, c := range []struct {
		rank float64
		want int64
	}{{0, 1}, {0.2, 1}, {0.21, 2}, {0.5, 3}, {0.6, 3}, {0.61, 4}, {1, 5}} {
		if got, err := s.Quantile(c.rank); err != nil || got != c.want {
			t.Errorf("quantile(%v) = %v, %v; want %d", c.rank, got, err, c.want)
		}
	}
	if r, _ := s.Rank(3); r != 0.6 {
		t.Errorf("rank(3) = %v, want 0.6", r)
	}
	if r, _ := s.Rank(0); r != 0 {
		t.Errorf("rank(0) = %v, want 0", r)
	}
	if s.N != 5 || len(s.Levels) != 1 {
		t.Errorf("n %d levels %d", s.N, len(s.Levels))
	}
	if _, err := s.Quantile(1.5); err == nil {
		t.Error("rank 1.5 accepted")
	}
	if _, err := NewKLL[float64](200).Quantile(0.5); err == nil {
		t.Error("quantile of an empty sketch")
	}
}

// rankError is the largest difference between the sketch's rank of a
// value and its exact rank among sorted, over 99 evenly spaced values.
func rankError(s *KLL[float64], sorted []float64) float64 {
	worst := 0.0
	n := float64(len(sorted))
	for q := 1; q < 100; q++ {
		v := sorted[int(float64(q)/100*n)]
		exact := float64(sortSearch(sorted, v)) / n
		got, _ := s.Rank(v)
		worst = math.Max(worst, math.Abs(got-exact))
	}
	return worst
}

// sortSearch is the number of items at most v.
func sortSearch(sorted []float64, v float64) int {
	i, _ := slices.BinarySearch(sorted, math.Nextafter(v, math.Inf(1)))
	return i
}

// TestKLLRankError: at k = 200 DataSketches documents a normalized rank
// error of 1.65% (99% confidence); the sketch's worst rank error over 99
// quantiles stays below it, for one sketch and for a merge of ten.
func TestKLLRankError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	vals := make([]float64, n)
	one := NewKLL[float64](DefaultKLLK)
	parts := make([]*KLL[float64], 10)
	for i := range parts {
		parts[i] = NewKLL[float64](DefaultKLLK)
	}
	for i := range vals {
		vals[i] = rng.NormFloat64()
		one.Update(vals[i])
		parts[i%10].Update(vals[i])
	}
	merged := NewKLL[float64](DefaultKLLK)
	for _, p := range parts {
		merged.Merge(p)
	}
	slices.Sort(vals)
	for what, s := range map[string]*KLL[float64]{"one": one, "merged": merged} {
		if s.N != n {
			t.Errorf("%s: n %d", what, s.N)
		}
		if e := rankError(s, vals); e > 0.0165 {
			t.Errorf("%s: rank error %.4f above 1.65%%", what, e)
		}
		if s.retained() > 3*DefaultKLLK+64 {
			t.Errorf("%s: %d items retained", what, s.retained())
		}
		if s.Min != vals[0] || s.Max != vals[n-1] {
			t.Errorf("%s: min/max %v %v", what, s.Min, s.Max)
		}
		med, _ := s.Quantile(0.5)
		if exact := float64(sortSearch(vals, med)) / n; math.Abs(exact-0.5) > 0.0165 {
			t.Errorf("%s: median %v has exact rank %v", what, med, exact)
		}
	}
}

func TestKLLEncoding(t *testing.T) {
	s := NewKLL[int64](50)
	for v := range int64(10000) {
		s.Update(v)
	}
	b := EncodeKLLLongs(s)
	got, err := DecodeKLLLongs(b)
	if err != nil {
		t.Fatal(err)
	}
	q1, _ := s.Quantile(0.3)
	q2, _ := got.Quantile(0.3)
	if q1 != q2 || got.N != s.N || got.K != 50 {
		t.Fatalf("decoded quantile %d n %d, want %d n %d", q2, got.N, q1, s.N)
	}
	// The restored sketch continues as the original would.
	s.Update(-1)
	got.Update(-1)
	if !slices.Equal(EncodeKLLLongs(s), EncodeKLLLongs(got)) {
		t.Error("restored sketch diverges")
	}
	if _, err := DecodeKLLDoubles(b); err == nil {
		t.Error("a bigint sketch decoded as a double one")
	}
	if _, err := DecodeKLLLongs(b[:len(b)-1]); err == nil {
		t.Error("truncated sketch decoded")
	}
	if CheckKLLK("kll_sketch_agg_bigint", 7) == nil || CheckKLLK("kll_sketch_agg_bigint", 65536) == nil || CheckKLLK("f", 8) != nil {
		t.Error("k bounds")
	}
}
