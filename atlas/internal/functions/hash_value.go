package functions

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/cespare/xxhash/v2"
)

// hashFunc is one of Spark's seeded hash functions (Murmur3 for hash,
// XXH64 for xxhash64) over the three encodings Spark's HashExpression
// feeds it: a 4-byte int, an 8-byte long and a byte string. The running
// hash is the seed of the next value.
type hashFunc struct {
	int32s func(v uint32, seed uint64) uint64
	int64s func(v uint64, seed uint64) uint64
	bytes  func(b []byte, seed uint64) uint64
}

// murmur3Func is Spark's Murmur3_x86_32, its 32-bit hash kept in a uint64.
var murmur3Func = hashFunc{
	int32s: func(v uint32, seed uint64) uint64 { return uint64(murmurInt(v, uint32(seed))) },
	int64s: func(v uint64, seed uint64) uint64 { return uint64(murmurLong(v, uint32(seed))) },
	bytes:  func(b []byte, seed uint64) uint64 { return uint64(murmurBytes(b, uint32(seed))) },
}

// xxhash64Func is XXH64; Spark's XXH64.hashInt and hashLong are the
// standard XXH64 of the value's 4 or 8 little-endian bytes, so all three
// go through cespare/xxhash's seeded digest.
var xxhash64Func = hashFunc{
	int32s: func(v uint32, seed uint64) uint64 {
		return xxhashSeeded([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}, seed)
	},
	int64s: func(v uint64, seed uint64) uint64 {
		var b [8]byte
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return xxhashSeeded(b[:], seed)
	},
	bytes: xxhashSeeded,
}

func xxhashSeeded(b []byte, seed uint64) uint64 {
	d := xxhash.NewWithSeed(seed)
	_, _ = d.Write(b) // a Digest's Write never fails
	return d.Sum64()
}

// value hashes row i of a into seed as Spark's HashExpression.computeHash
// does: NULL leaves the hash unchanged; booleans, bytes, shorts, ints and
// dates are ints; longs, timestamps and day-time intervals are longs;
// -0.0 hashes as 0 and NaN by Java's canonical bits; a decimal of
// precision <= 18 is its unscaled long, a wider one the bytes of its
// unscaled BigInteger; strings their UTF-8 bytes; arrays and structs
// hash their elements in order, each seeding the next.
func (h hashFunc) value(a arrow.Array, i int, seed uint64) (uint64, error) {
	if a.IsNull(i) {
		return seed, nil
	}
	switch a := a.(type) {
	case *array.Null:
		return seed, nil
	case *array.Boolean:
		if a.Value(i) {
			return h.int32s(1, seed), nil
		}
		return h.int32s(0, seed), nil
	case *array.Int8:
		return h.int32s(uint32(int32(a.Value(i))), seed), nil
	case *array.Int16:
		return h.int32s(uint32(int32(a.Value(i))), seed), nil
	case *array.Int32:
		return h.int32s(uint32(a.Value(i)), seed), nil
	case *array.Date32:
		return h.int32s(uint32(a.Value(i)), seed), nil
	case *array.Int64:
		return h.int64s(uint64(a.Value(i)), seed), nil
	case *array.Duration:
		return h.int64s(uint64(a.Value(i)), seed), nil
	case *array.Timestamp:
		return h.timestamp(a, i, seed)
	case *array.Float32:
		return h.int32s(javaFloatBits(a.Value(i)), seed), nil
	case *array.Float64:
		return h.int64s(javaDoubleBits(a.Value(i)), seed), nil
	case *array.Decimal128:
		return h.decimal(a, i, seed), nil
	case *array.String:
		return h.bytes([]byte(a.Value(i)), seed), nil
	case *array.LargeString:
		return h.bytes([]byte(a.Value(i)), seed), nil
	case *array.Binary:
		return h.bytes(a.Value(i), seed), nil
	case *array.List:
		start, end := a.ValueOffsets(i)
		return h.span(a.ListValues(), int(start), int(end), seed)
	case *array.LargeList:
		start, end := a.ValueOffsets(i)
		return h.span(a.ListValues(), int(start), int(end), seed)
	case *array.FixedSizeList:
		start, end := a.ValueOffsets(i)
		return h.span(a.ListValues(), int(start), int(end), seed)
	case *array.Struct:
		var err error
		for f := 0; f < a.NumField(); f++ {
			if seed, err = h.value(a.Field(f), i, seed); err != nil {
				return 0, err
			}
		}
		return seed, nil
	}
	return 0, fmt.Errorf("hashing a %s value is not supported", a.DataType())
}

// span hashes the elements from start to end of a, in order.
func (h hashFunc) span(a arrow.Array, start, end int, seed uint64) (uint64, error) {
	var err error
	for j := start; j < end; j++ {
		if seed, err = h.value(a, j, seed); err != nil {
			return 0, err
		}
	}
	return seed, nil
}

// timestamp hashes a timestamp as Spark's long of microseconds.
func (h hashFunc) timestamp(a *array.Timestamp, i int, seed uint64) (uint64, error) {
	v := int64(a.Value(i))
	switch a.DataType().(*arrow.TimestampType).Unit {
	case arrow.Second:
		v *= 1_000_000
	case arrow.Millisecond:
		v *= 1_000
	case arrow.Nanosecond:
		v /= 1_000
	}
	return h.int64s(uint64(v), seed), nil
}

// decimal hashes a decimal as Spark does: the unscaled long up to
// precision 18, else BigInteger.toByteArray of the unscaled value.
func (h hashFunc) decimal(a *array.Decimal128, i int, seed uint64) uint64 {
	n := a.Value(i)
	if a.DataType().(*arrow.Decimal128Type).Precision <= 18 {
		return h.int64s(n.LowBits(), seed)
	}
	return h.bytes(javaBigIntegerBytes(n), seed)
}

// javaBigIntegerBytes is Java's BigInteger.toByteArray: the shortest
// big-endian two's complement with room for the sign bit.
func javaBigIntegerBytes(n decimal128.Num) []byte {
	var b [16]byte
	hi, lo := uint64(n.HighBits()), n.LowBits()
	for k := 0; k < 8; k++ {
		b[k] = byte(hi >> (56 - 8*k))
		b[8+k] = byte(lo >> (56 - 8*k))
	}
	s := 0
	for s < 15 && ((b[s] == 0 && b[s+1]&0x80 == 0) || (b[s] == 0xFF && b[s+1]&0x80 != 0)) {
		s++
	}
	return b[s:]
}

// javaFloatBits is Spark's float hashing input: 0 for ±0.0, else Java's
// Float.floatToIntBits (every NaN as 0x7fc00000).
func javaFloatBits(f float32) uint32 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

// javaDoubleBits is javaFloatBits for doubles (NaN as 0x7ff8000000000000).
func javaDoubleBits(d float64) uint64 {
	switch {
	case d == 0:
		return 0
	case d != d:
		return 0x7ff8000000000000
	}
	return math.Float64bits(d)
}
