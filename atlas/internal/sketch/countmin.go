package sketch

import (
	"encoding/binary"
	"fmt"
	"math"
)

// CountMin is Spark's own count-min sketch (count_min_sketch; Spark's
// CountMinSketchImpl, not DataSketches), written after it so that its
// bytes are Spark's: depth = ceil(-ln(1 - confidence) / ln 2) rows of
// width = ceil(2 / eps) counters, row i hashing a 64-bit item as
// ((a_i * item) mod 2^31-1) mod width with a_i drawn from
// java.util.Random(seed). Only integral items are supported: Spark hashes
// strings and binary values with its Murmur3 variant, which Atlas does
// not reproduce here, so those are refused.
type CountMin struct {
	Depth, Width int32
	Total        int64
	hashA        []int64
	table        []int64
}

// NewCountMin returns an empty sketch, or Spark's error for eps or
// confidence out of range.
func NewCountMin(eps, confidence float64, seed int32) (*CountMin, error) {
	if !(eps > 0) {
		return nil, fmt.Errorf("count_min_sketch: relative error must be positive (current value = %v)", eps)
	}
	if !(confidence > 0 && confidence < 1) {
		return nil, fmt.Errorf("count_min_sketch: confidence must be within range (0.0, 1.0) (current value = %v)", confidence)
	}
	c := &CountMin{
		Width: int32(math.Ceil(2 / eps)),
		Depth: int32(math.Ceil(-math.Log(1-confidence) / math.Log(2))),
	}
	r := newJavaRandom(int64(seed))
	c.hashA = make([]int64, c.Depth)
	for i := range c.hashA {
		c.hashA[i] = int64(r.nextInt(math.MaxInt32))
	}
	c.table = make([]int64, int(c.Depth)*int(c.Width))
	return c, nil
}

// bucket is the counter of item in row i: Spark's hash, a*item mod
// 2^31-1 (folded as Spark folds it), mod width.
func (c *CountMin) bucket(i int, item int64) int {
	h := c.hashA[i] * item
	h += h >> 32
	h &= math.MaxInt32
	return i*int(c.Width) + int(int32(h)%c.Width)
}

// AddLong counts an integral item once.
func (c *CountMin) AddLong(item int64) {
	for i := range c.hashA {
		c.table[c.bucket(i, item)]++
	}
	c.Total++
}

// Merge adds o's counters to c; the sketches must have the same shape.
func (c *CountMin) Merge(o *CountMin) error {
	if c.Depth != o.Depth || c.Width != o.Width {
		return fmt.Errorf("count_min_sketch: cannot merge sketches of different depth or width")
	}
	for i, a := range c.hashA {
		if o.hashA[i] != a {
			return fmt.Errorf("count_min_sketch: cannot merge sketches of different seeds")
		}
	}
	for i, v := range o.table {
		c.table[i] += v
	}
	c.Total += o.Total
	return nil
}

// Encode writes the sketch as Spark's CountMinSketchImpl.writeTo does
// (big-endian): version 1, total count, depth, width, the hash seeds, the
// counters row by row.
func (c *CountMin) Encode() []byte {
	b := binary.BigEndian.AppendUint32(nil, 1)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Total))
	b = binary.BigEndian.AppendUint32(b, uint32(c.Depth))
	b = binary.BigEndian.AppendUint32(b, uint32(c.Width))
	for _, a := range c.hashA {
		b = binary.BigEndian.AppendUint64(b, uint64(a))
	}
	for _, v := range c.table {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// DecodeCountMin reads what Encode wrote.
func DecodeCountMin(b []byte) (*CountMin, error) {
	if len(b) < 20 || binary.BigEndian.Uint32(b) != 1 {
		return nil, ErrCorrupt
	}
	c := &CountMin{Total: int64(binary.BigEndian.Uint64(b[4:]))}
	c.Depth, c.Width = int32(binary.BigEndian.Uint32(b[12:])), int32(binary.BigEndian.Uint32(b[16:]))
	if c.Depth <= 0 || c.Width <= 0 || int64(len(b)) != 20+8*int64(c.Depth)+8*int64(c.Depth)*int64(c.Width) {
		return nil, ErrCorrupt
	}
	p := 20
	c.hashA = make([]int64, c.Depth)
	for i := range c.hashA {
		c.hashA[i] = int64(binary.BigEndian.Uint64(b[p:]))
		p += 8
	}
	c.table = make([]int64, int(c.Depth)*int(c.Width))
	for i := range c.table {
		c.table[i] = int64(binary.BigEndian.Uint64(b[p:]))
		p += 8
	}
	return c, nil
}

// javaRandom is java.util.Random's generator.
type javaRandom struct{ seed int64 }

const javaRandomMask = 1<<48 - 1

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ 0x5DEECE66D) & javaRandomMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*0x5DEECE66D + 0xB) & javaRandomMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// nextInt is Random.nextInt(bound) for a bound that is not a power of 2.
func (r *javaRandom) nextInt(bound int32) int32 {
	u := r.next(31)
	v := u % bound
	for u-v+(bound-1) < 0 {
		u = r.next(31)
		v = u % bound
	}
	return v
}

// estimate is the count-min estimate of item: the least of its counters.
func (c *CountMin) estimate(item int64) int64 {
	est := int64(-1)
	for i := range c.hashA {
		v := c.table[c.bucket(i, item)]
		if est < 0 || v < est {
			est = v
		}
	}
	return est
}
