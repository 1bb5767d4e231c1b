package sketch

import (
	"fmt"
	"math"

	"github.com/bits-and-blooms/bloom/v3"
)

// BloomFilter tests set membership with false positives but no false
// negatives, as Spark's BloomFilter, built on
// github.com/bits-and-blooms/bloom/v3 (sized from the expected number of
// items and false-positive probability as Spark sizes it: m = -n ln p /
// (ln 2)^2 bits, k = round(m/n ln 2) hash functions).
type BloomFilter struct {
	f   *bloom.BloomFilter
	buf []byte
}

// NewBloomFilter creates an empty filter for expectedNumItems items at
// false-positive probability fpp.
func NewBloomFilter(expectedNumItems int64, fpp float64) (*BloomFilter, error) {
	if expectedNumItems <= 0 {
		return nil, fmt.Errorf("bloomFilter: expected insertions must be positive (current value is %d)", expectedNumItems)
	}
	if !(fpp > 0 && fpp < 1) {
		return nil, fmt.Errorf("bloomFilter: false positive probability must be within range (0.0, 1.0) (current value is %v)", fpp)
	}
	return &BloomFilter{f: bloom.NewWithEstimates(uint(expectedNumItems), fpp)}, nil
}

// Put adds item.
func (b *BloomFilter) Put(item any) error {
	buf, err := itemBytes(b.buf, item)
	if err != nil {
		return err
	}
	b.buf = buf
	b.f.Add(buf)
	return nil
}

// MightContain reports false only for items never put.
func (b *BloomFilter) MightContain(item any) bool {
	buf, err := itemBytes(b.buf, item)
	if err != nil {
		return false
	}
	b.buf = buf
	return b.f.Test(buf)
}

// BitSize is the number of bits.
func (b *BloomFilter) BitSize() int64 { return int64(b.f.Cap()) }

// NumHashFunctions is the number of hash functions.
func (b *BloomFilter) NumHashFunctions() int { return int(b.f.K()) }

// ExpectedFpp is the probability that MightContain answers true for an
// item never put, given the bits set so far (Spark's expectedFpp).
func (b *BloomFilter) ExpectedFpp() float64 {
	return math.Pow(float64(b.f.BitSet().Count())/float64(b.f.Cap()), float64(b.f.K()))
}

// IsCompatible reports whether other can be merged into b.
func (b *BloomFilter) IsCompatible(other *BloomFilter) bool {
	return b.f.Cap() == other.f.Cap() && b.f.K() == other.f.K()
}

// MergeInPlace adds other's items.
func (b *BloomFilter) MergeInPlace(other *BloomFilter) error {
	if err := b.f.Merge(other.f); err != nil {
		return fmt.Errorf("bloomFilter: %w", err)
	}
	return nil
}

// MarshalBinary serialises the filter.
func (b *BloomFilter) MarshalBinary() ([]byte, error) { return b.f.MarshalBinary() }

// UnmarshalBinary restores a filter written by MarshalBinary.
func (b *BloomFilter) UnmarshalBinary(data []byte) error {
	if b.f == nil {
		b.f = &bloom.BloomFilter{}
	}
	return b.f.UnmarshalBinary(data)
}
