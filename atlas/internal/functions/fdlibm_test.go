package functions

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestJavaTan checks javaTan against values Java's StrictMath.tan prints
// (Spark's cot(1) is 0.6420926159343306) and, over a sweep of arguments,
// stays within a few ulps of Go's math.Tan, an independent implementation
// that is itself off by up to two (tan(-11875.998214338668) is
// -0.9852800812484488 in Java and glibc, ...486 in Go): a broken argument
// reduction would be far off.
func TestJavaTan(t *testing.T) {
	for x, want := range map[float64]float64{
		1:                   1.5574077246549023,
		0.5:                 0.5463024898437905,
		2:                   -2.185039863261519,
		-3:                  0.1425465430742778,
		100:                 -0.5872139151569291,
		1e-30:               1e-30,
		-11875.998214338668: -0.9852800812484488,
	} {
		if got := javaTan(x); got != want {
			t.Errorf("tan(%v) = %v, Java gives %v", x, got, want)
		}
	}
	if got := 1 / javaTan(1); got != 0.6420926159343306 {
		t.Errorf("cot(1) = %v, Spark gives 0.6420926159343306", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		x := (rng.Float64() - 0.5) * 2e5
		got, ref := javaTan(x), math.Tan(x)
		if ulps := math.Abs(got-ref) / math.Abs(math.Nextafter(ref, math.Inf(1))-ref); ulps > 4 {
			t.Fatalf("tan(%v) = %v, math.Tan %v: %v ulps apart", x, got, ref, ulps)
		}
	}
	if !math.IsNaN(javaTan(math.NaN())) || !math.IsNaN(javaTan(math.Inf(1))) {
		t.Error("tan of NaN or infinity is NaN")
	}
}
