package sketch

import (
	"encoding/binary"
	"math"

	"github.com/cespare/xxhash/v2"
)

// Hashes of the values sketches count. As in DataSketches, an integer of
// any width hashes as the 64-bit integer (INT 1 and BIGINT 1 are one
// value), a float as its double, a string as its UTF-8 bytes (so "a" and
// X'61' are one value); -0.0 counts as 0.0 and every NaN as one NaN. The
// hashes are 64 bits; theta sketches keep 63 of them (KMV.Update), as
// DataSketches' do.

// HashInt64 hashes an integer.
func HashInt64(v int64) uint64 {
	var b [9]byte
	b[0] = 'L'
	binary.LittleEndian.PutUint64(b[1:], uint64(v))
	return xxhash.Sum64(b[:])
}

// HashFloat64 hashes a floating-point number.
func HashFloat64(v float64) uint64 {
	switch {
	case v == 0:
		v = 0
	case math.IsNaN(v):
		v = math.NaN()
	}
	var b [9]byte
	b[0] = 'D'
	binary.LittleEndian.PutUint64(b[1:], math.Float64bits(v))
	return xxhash.Sum64(b[:])
}

// HashBytes hashes a string's UTF-8 bytes or a binary value.
func HashBytes(v []byte) uint64 {
	d := xxhash.New()
	_, _ = d.Write([]byte{'B'})
	_, _ = d.Write(v)
	return d.Sum64()
}
