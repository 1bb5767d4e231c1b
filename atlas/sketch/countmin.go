package sketch

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cespare/xxhash/v2"
)

// CountMinSketch estimates item frequencies in a stream, as Spark's
// CountMinSketch: EstimateCount never underestimates, and overestimates
// by more than RelativeError()*TotalCount() with probability at most
// 1-Confidence(). Its table has Depth() = ceil(-ln(1-confidence)/ln 2)
// rows of Width() = ceil(2/eps) counters, as Spark sizes it (Spark hashes
// with Murmur3; this sketch with xxhash, so the counters differ while the
// guarantees are the same).
type CountMinSketch struct {
	eps, confidence float64
	depth, width    int
	seed            int64
	total           int64
	table           [][]int64
	buf             []byte
}

// NewCountMinSketch creates an empty sketch for relative error eps and
// confidence in (0, 1).
func NewCountMinSketch(eps, confidence float64, seed int64) (*CountMinSketch, error) {
	if !(eps > 0) {
		return nil, fmt.Errorf("countMinSketch: relative error must be positive (current value is %v)", eps)
	}
	if !(confidence > 0 && confidence < 1) {
		return nil, fmt.Errorf("countMinSketch: confidence must be within range (0.0, 1.0) (current value is %v)", confidence)
	}
	depth := int(math.Ceil(-math.Log(1-confidence) / math.Log(2)))
	width := int(math.Ceil(2 / eps))
	s := &CountMinSketch{eps: eps, confidence: confidence, depth: depth, width: width, seed: seed, table: make([][]int64, depth)}
	for i := range s.table {
		s.table[i] = make([]int64, width)
	}
	return s, nil
}

// RelativeError is eps.
func (s *CountMinSketch) RelativeError() float64 { return s.eps }

// Confidence is the probability that an estimate is within the error.
func (s *CountMinSketch) Confidence() float64 { return s.confidence }

// Depth is the number of hash rows.
func (s *CountMinSketch) Depth() int { return s.depth }

// Width is the number of counters per row.
func (s *CountMinSketch) Width() int { return s.width }

// TotalCount is the sum of all counts added.
func (s *CountMinSketch) TotalCount() int64 { return s.total }

// hashes returns the two base hashes of item; row i uses h1 + i*h2.
func (s *CountMinSketch) hashes(item any) (uint64, uint64, error) {
	b, err := itemBytes(s.buf, item)
	if err != nil {
		return 0, 0, err
	}
	s.buf = b
	d := xxhash.NewWithSeed(uint64(s.seed))
	_, _ = d.Write(b)
	h1 := d.Sum64()
	d.ResetWithSeed(uint64(s.seed) ^ 0x9e3779b97f4a7c15)
	_, _ = d.Write(b)
	return h1, d.Sum64() | 1, nil
}

// Add increments item's count by count (1 when omitted).
func (s *CountMinSketch) Add(item any, count ...int64) error {
	n := int64(1)
	if len(count) > 0 {
		n = count[0]
	}
	if n < 0 {
		return fmt.Errorf("countMinSketch: negative increments are not supported")
	}
	h1, h2, err := s.hashes(item)
	if err != nil {
		return err
	}
	for i := range s.depth {
		s.table[i][(h1+uint64(i)*h2)%uint64(s.width)] += n
	}
	s.total += n
	return nil
}

// EstimateCount is item's estimated count: at least its true count.
func (s *CountMinSketch) EstimateCount(item any) (int64, error) {
	h1, h2, err := s.hashes(item)
	if err != nil {
		return 0, err
	}
	est := int64(math.MaxInt64)
	for i := range s.depth {
		est = min(est, s.table[i][(h1+uint64(i)*h2)%uint64(s.width)])
	}
	return est, nil
}

// MergeInPlace adds other's counts; both must have the same shape and seed.
func (s *CountMinSketch) MergeInPlace(other *CountMinSketch) error {
	if other.depth != s.depth || other.width != s.width || other.seed != s.seed {
		return fmt.Errorf("countMinSketch: cannot merge sketches of different depth, width or seed")
	}
	for i := range s.table {
		for j := range s.table[i] {
			s.table[i][j] += other.table[i][j]
		}
	}
	s.total += other.total
	return nil
}

// MarshalBinary serialises the sketch.
func (s *CountMinSketch) MarshalBinary() ([]byte, error) {
	out := make([]byte, 0, 48+8*s.depth*s.width)
	for _, v := range []uint64{math.Float64bits(s.eps), math.Float64bits(s.confidence), uint64(s.depth), uint64(s.width), uint64(s.seed), uint64(s.total)} {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	for _, row := range s.table {
		for _, c := range row {
			out = binary.LittleEndian.AppendUint64(out, uint64(c))
		}
	}
	return out, nil
}

// UnmarshalBinary restores a sketch written by MarshalBinary.
func (s *CountMinSketch) UnmarshalBinary(data []byte) error {
	if len(data) < 48 {
		return fmt.Errorf("countMinSketch: corrupt data")
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(data[8*i:]) }
	depth, width := int(u(2)), int(u(3))
	if depth <= 0 || width <= 0 || len(data) != 48+8*depth*width {
		return fmt.Errorf("countMinSketch: corrupt data")
	}
	*s = CountMinSketch{eps: math.Float64frombits(u(0)), confidence: math.Float64frombits(u(1)), depth: depth, width: width, seed: int64(u(4)), total: int64(u(5)), table: make([][]int64, depth)}
	for i := range s.table {
		s.table[i] = make([]int64, width)
		for j := range s.table[i] {
			s.table[i][j] = int64(u(6 + i*width + j))
		}
	}
	return nil
}
