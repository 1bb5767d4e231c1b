package state

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantileSummaryRankBound feeds 200k values (four head-buffer
// flushes and compressions) and checks every answer's rank against the
// sorted input: within relErr*n of ceil(p*n), as Spark's
// QuantileSummaries guarantees; a summary saved and restored half-way
// answers exactly as one that was not.
func TestQuantileSummaryRankBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200_000
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.Floor(r.ExpFloat64() * 1000)
	}
	for _, relErr := range []float64{0.01, 0.001} {
		q := &quantileSummary{relErr: relErr}
		var restored *quantileSummary
		for i, v := range vals {
			q.insert(v)
			if i == n/2 {
				var err error
				if restored, err = decodeQuantileSummary(q.encode(), relErr); err != nil {
					t.Fatal(err)
				}
			}
			if restored != nil && i > n/2 {
				restored.insert(v)
			}
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		for _, p := range []float64{0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1} {
			got, ok := q.query(p)
			if !ok {
				t.Fatal("no answer")
			}
			lo, found := slices.BinarySearch(sorted, got)
			if !found {
				t.Fatalf("p %v: %v is not an input value", p, got)
			}
			hi := lo
			for hi+1 < n && sorted[hi+1] == got {
				hi++
			}
			rank, bound := math.Ceil(p*n), relErr*n
			if float64(hi+1) < rank-bound-1 || float64(lo+1) > rank+bound+1 {
				t.Errorf("relErr %v p %v: %v has ranks %d..%d, want %v ± %v", relErr, p, got, lo+1, hi+1, rank, bound)
			}
			if again, _ := restored.query(p); again != got {
				t.Errorf("relErr %v p %v: restored summary answers %v, uninterrupted %v", relErr, p, again, got)
			}
		}
	}
}
