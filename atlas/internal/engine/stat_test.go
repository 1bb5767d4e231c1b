package engine_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/sketch"
)

// TestCountMinSketchBounds: every estimate is at least the exact count (a
// map over the rows), and at most exact + eps*total for all but about
// 1-confidence of the items; nulls are not counted.
func TestCountMinSketchBounds(t *testing.T) {
	rows := aggRows(50_000, 5000, 21)
	rec := aggRecord(rows)
	defer rec.Release()
	df := engine.NewSession().CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})
	const eps, conf = 0.0005, 0.99
	for _, col := range []string{"v", "s"} {
		cms, err := df.Stat().CountMinSketch(t.Context(), col, eps, conf, 42)
		if err != nil {
			t.Fatal(err)
		}
		exact := map[any]int64{}
		var total int64
		for _, r := range rows {
			switch {
			case col == "v" && !r.vNil:
				exact[r.v]++
				total++
			case col == "s" && !r.sNil:
				exact[r.s]++
				total++
			}
		}
		if cms.TotalCount() != total {
			t.Fatalf("%s: totalCount %d, want %d non-null rows", col, cms.TotalCount(), total)
		}
		over := 0
		for item, n := range exact {
			est, err := cms.EstimateCount(item)
			if err != nil {
				t.Fatal(err)
			}
			if est < n {
				t.Fatalf("%s: estimateCount(%v) = %d below the exact %d", col, item, est, n)
			}
			if float64(est-n) > eps*float64(total) {
				over++
			}
		}
		if frac := float64(over) / float64(len(exact)); frac > 2*(1-conf) {
			t.Errorf("%s: %.3f of the items overestimated by more than eps*total, confidence allows %.3f", col, frac, 1-conf)
		}
		if cms.Depth() != 7 || cms.Width() != 4000 {
			t.Errorf("depth %d width %d, Spark sizes ceil(-ln(0.01)/ln 2) = 7 and ceil(2/eps) = 4000", cms.Depth(), cms.Width())
		}
		data, _ := cms.MarshalBinary()
		var back sketch.CountMinSketch
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		for item := range exact {
			a, _ := cms.EstimateCount(item)
			b, _ := back.EstimateCount(item)
			if a != b {
				t.Fatalf("round trip changed estimateCount(%v): %d != %d", item, a, b)
			}
		}
	}
	if _, err := df.Stat().CountMinSketch(t.Context(), "x", eps, conf, 1); err == nil {
		t.Error("countMinSketch of a double column: no error, Spark refuses non-integral numbers")
	}
}

// TestBloomFilterMembership: no false negatives, and false positives near
// the requested probability.
func TestBloomFilterMembership(t *testing.T) {
	rows := aggRows(20_000, 1_000_000, 22)
	rec := aggRecord(rows)
	defer rec.Release()
	df := engine.NewSession().CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})
	bf, err := df.Stat().BloomFilter(t.Context(), "v", 20_000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	members := map[int64]bool{}
	for _, r := range rows {
		if !r.vNil {
			members[r.v] = true
			if !bf.MightContain(r.v) {
				t.Fatalf("mightContain(%d) = false for a member", r.v)
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 5))
	fp, tries := 0, 0
	for tries < 20_000 {
		x := 2_000_000 + r.Int64N(1_000_000_000)
		if members[x] {
			continue
		}
		tries++
		if bf.MightContain(x) {
			fp++
		}
	}
	if rate := float64(fp) / float64(tries); rate > 0.02 {
		t.Errorf("false positive rate %.4f, requested 0.01", rate)
	}
	if e := bf.ExpectedFpp(); e > 0.02 || e <= 0 {
		t.Errorf("expectedFpp %v, want about 0.01", e)
	}
}
