package sketch

import (
	"fmt"

	"github.com/axiomhq/hyperloglog"
)

// HLL sketches (hll_sketch_agg, hll_union, hll_union_agg,
// hll_sketch_estimate) are github.com/axiomhq/hyperloglog's, the
// HyperLogLog approx_count_distinct already uses: a sparse representation
// that is exact in practice for small counts (linear counting over 2^25
// virtual registers), then 2^lgK registers with LogLog-Beta bias
// correction, standard error 1.04/sqrt(2^lgK) (DataSketches documents
// about the same for its HLL_8). Spark accepts lgConfigK 4 to 21; the
// library stops at 18, so 19 to 21 are refused, and so is a union of
// sketches of different lgConfigK (DataSketches would downsample the
// larger one; the library cannot).

// HLL lgConfigK bounds: Spark's, and the library's largest.
const (
	MinHLLLgK     = 4
	MaxHLLLgK     = 21
	MaxAtlasHLLLg = 18
	DefaultHLLLgK = 12
)

// KindHLL is the first byte of an encoded HLL sketch.
const KindHLL byte = 'H'

// HLL is an HLL sketch and its lgConfigK (the library keeps it private).
type HLL struct {
	LgK uint8
	S   *hyperloglog.Sketch
}

// NewHLL returns an empty HLL sketch of 2^lgK registers, or Spark's error
// for an lgConfigK out of range.
func NewHLL(fn string, lgK int64) (*HLL, error) {
	if lgK < MinHLLLgK || lgK > MaxHLLLgK {
		return nil, fmt.Errorf("[HLL_INVALID_LG_K] Invalid call to %s; only valid lgConfigK values are between %d and %d, inclusive: %d. SQLSTATE: 22546", fn, MinHLLLgK, MaxHLLLgK, lgK)
	}
	if lgK > MaxAtlasHLLLg {
		return nil, fmt.Errorf("%s: lgConfigK %d is not supported by Atlas: its HyperLogLog (github.com/axiomhq/hyperloglog) supports lgConfigK %d to %d", fn, lgK, MinHLLLgK, MaxAtlasHLLLg)
	}
	s, err := hyperloglog.NewSketch(uint8(lgK), true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return &HLL{LgK: uint8(lgK), S: s}, nil
}

// Estimate is the estimated number of distinct values.
func (h *HLL) Estimate() int64 { return int64(h.S.Estimate()) }

// EncodeHLL encodes an HLL sketch: kind, version, lgConfigK, then the
// library's encoding.
func EncodeHLL(h *HLL) []byte {
	b, err := h.S.AppendBinary([]byte{KindHLL, encodingVersion, h.LgK})
	if err != nil {
		// AppendBinary fails on no sketch the library builds itself.
		panic(fmt.Sprintf("sketch: encoding an HLL sketch: %v", err))
	}
	return b
}

// DecodeHLL decodes an HLL sketch.
func DecodeHLL(b []byte) (*HLL, error) {
	if len(b) < 4 || b[0] != KindHLL || b[1] != encodingVersion || b[2] < MinHLLLgK || b[2] > MaxAtlasHLLLg {
		return nil, ErrCorrupt
	}
	s := &hyperloglog.Sketch{}
	if err := s.UnmarshalBinary(b[3:]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return &HLL{LgK: b[2], S: s}, nil
}

// UnionHLL merges a and b into a new sketch; sketches of different
// lgConfigK are Spark's HLL_UNION_DIFFERENT_LG_K unless allowDifferent,
// and refused by Atlas even then (the library cannot downsample).
func UnionHLL(fn string, a, b *HLL, allowDifferent bool) (*HLL, error) {
	if a.LgK != b.LgK {
		if !allowDifferent {
			return nil, fmt.Errorf("[HLL_UNION_DIFFERENT_LG_K] Sketches have different lgConfigK values: %d and %d. Set the allowDifferentLgConfigK parameter to true to call %s with different lgConfigK values. SQLSTATE: 22000", a.LgK, b.LgK, fn)
		}
		return nil, fmt.Errorf("%s: a union of HLL sketches of different lgConfigK (%d and %d) is not supported by Atlas: its HyperLogLog library cannot downsample a sketch", fn, a.LgK, b.LgK)
	}
	out := a.S.Clone()
	if err := out.Merge(b.S); err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return &HLL{LgK: a.LgK, S: out}, nil
}
