package functions

import "math/bits"

// Spark's Murmur3_x86_32 (org.apache.spark.unsafe.hash.Murmur3_x86_32),
// written out here because Spark's hashUnsafeBytes is not the standard
// Murmur3: it mixes each trailing byte (0-3 after the last whole 4-byte
// word) as a full sign-extended int round, so a standard library
// (spaolacci/murmur3, twmb/murmur3) gives other values for any string
// whose length is not a multiple of 4.

const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

func murmurMixK1(k1 uint32) uint32 {
	k1 *= murmurC1
	k1 = bits.RotateLeft32(k1, 15)
	return k1 * murmurC2
}

func murmurMixH1(h1, k1 uint32) uint32 {
	h1 ^= k1
	h1 = bits.RotateLeft32(h1, 13)
	return h1*5 + 0xe6546b64
}

func murmurFmix(h1 uint32, length int) uint32 {
	h1 ^= uint32(length)
	h1 ^= h1 >> 16
	h1 *= 0x85ebca6b
	h1 ^= h1 >> 13
	h1 *= 0xc2b2ae35
	return h1 ^ h1>>16
}

// murmurInt is Murmur3_x86_32.hashInt.
func murmurInt(v, seed uint32) uint32 {
	return murmurFmix(murmurMixH1(seed, murmurMixK1(v)), 4)
}

// murmurLong is Murmur3_x86_32.hashLong: the low word, then the high one.
func murmurLong(v uint64, seed uint32) uint32 {
	h1 := murmurMixH1(seed, murmurMixK1(uint32(v)))
	h1 = murmurMixH1(h1, murmurMixK1(uint32(v>>32)))
	return murmurFmix(h1, 8)
}

// murmurBytes is Murmur3_x86_32.hashUnsafeBytes: little-endian words,
// then each remaining byte, sign-extended, as a word of its own.
func murmurBytes(b []byte, seed uint32) uint32 {
	aligned := len(b) - len(b)%4
	h1 := seed
	for i := 0; i < aligned; i += 4 {
		w := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
		h1 = murmurMixH1(h1, murmurMixK1(w))
	}
	for _, c := range b[aligned:] {
		h1 = murmurMixH1(h1, murmurMixK1(uint32(int32(int8(c)))))
	}
	return murmurFmix(h1, len(b))
}
