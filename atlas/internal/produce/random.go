package produce

import (
	"math/rand/v2"
	"time"
)

// newRand returns the generator's random source for seed. PCG is a fixed,
// documented algorithm, so a seed yields the same stream on every platform.
// The second word separates the streams of different generator kinds.
func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// weighted picks indexes with fixed relative weights.
type weighted struct {
	cumulative []float64
}

// newWeighted builds a chooser over len(weights) items.
func newWeighted(weights []float64) weighted {
	c := make([]float64, len(weights))
	var sum float64
	for i, w := range weights {
		sum += w
		c[i] = sum
	}
	for i := range c {
		c[i] /= sum
	}
	return weighted{cumulative: c}
}

// pick returns an index drawn with the configured weights.
func (w weighted) pick(r *rand.Rand) int {
	u := r.Float64()
	for i, c := range w.cumulative {
		if u < c {
			return i
		}
	}
	return len(w.cumulative) - 1
}

// uniformDuration returns a duration drawn uniformly from [lo, hi], at
// millisecond resolution (the resolution of the "ts" fields).
func uniformDuration(r *rand.Rand, lo, hi time.Duration) time.Duration {
	loMs, hiMs := lo.Milliseconds(), hi.Milliseconds()
	if hiMs <= loMs {
		return time.Duration(loMs) * time.Millisecond
	}
	return time.Duration(loMs+r.Int64N(hiMs-loMs+1)) * time.Millisecond
}
