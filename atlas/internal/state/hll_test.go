package state

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/axiomhq/hyperloglog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// TestHLLErrorMeetsRSD: at the precision Spark derives from rsd
// (p = ceil(2*log2(1.106/rsd))), the root-mean-square relative error of
// the sketch over 200 disjoint sets of 8000 values (each encoded as the
// state encodes a bigint) is at most rsd and the estimates are unbiased.
func TestHLLErrorMeetsRSD(t *testing.T) {
	for _, c := range []struct {
		rsd float64
		p   int
	}{{0.05, 9}, {0.2, 5}, {0.01, 14}} {
		p := expr.HLLPrecision(c.rsd)
		if p != c.p {
			t.Fatalf("rsd %v: precision %d, Spark's formula gives %d", c.rsd, p, c.p)
		}
		const trials, n = 200, 8000
		var sq, sum float64
		buf := make([]byte, 9)
		buf[0] = 1
		for tr := range trials {
			sk, err := hyperloglog.NewSketch(uint8(p), true)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				binary.LittleEndian.PutUint64(buf[1:], uint64(tr*1_000_000+i))
				sk.Insert(buf)
			}
			rel := (float64(sk.Estimate()) - n) / n
			sq += rel * rel
			sum += rel
		}
		rms, mean := math.Sqrt(sq/trials), sum/trials
		t.Logf("rsd %v (p=%d): RMS relative error %.4f, mean %.4f", c.rsd, p, rms, mean)
		if rms > c.rsd {
			t.Errorf("rsd %v: RMS relative error %.4f exceeds it", c.rsd, rms)
		}
		if math.Abs(mean) > c.rsd/3 {
			t.Errorf("rsd %v: mean relative error %.4f: biased", c.rsd, mean)
		}
	}
}
