// Package sketch holds the data sketches behind Spark's sketch functions
// (theta_*, tuple_*, kll_*, hll_*, approx_top_k*): their update, merge,
// set operations, estimates and a byte encoding, so an aggregate's state
// can be checkpointed and a sketch can travel as a BINARY column between
// an aggregate and the scalar functions that read it.
//
// Spark uses Apache DataSketches (Java). No Go port of it is served by
// the module proxy here (github.com/apache/datasketches-go is refused),
// so the theta family is written by hand: a KMV ("k minimum values")
// theta sketch, the algorithm DataSketches' theta sketches implement. It
// keeps the hashes below a threshold theta, at most 2^lgK of them after
// each rebuild, and estimates the distinct count as retained/theta. Below
// 2^lgK distinct values it is exact (theta stays 1.0). Its relative
// standard error above that is about 1/sqrt(2^lgK) (DataSketches'
// documented bound for its theta sketches). The byte encoding is
// Atlas's own, not DataSketches' compact format: sketches made by Spark
// cannot be read, nor Atlas's by Spark.
package sketch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// MaxTheta is theta in exact mode: every 63-bit hash is below it.
const MaxTheta = uint64(math.MaxInt64)

// MinLgK and MaxLgK bound lgNomEntries as Spark's theta and tuple sketch
// functions do; DefaultLgK is Spark's default.
const (
	MinLgK     = 4
	MaxLgK     = 26
	DefaultLgK = 12
)

// ErrCorrupt is returned for bytes that are not a sketch of the expected
// kind.
var ErrCorrupt = errors.New("not a valid sketch buffer")

// KMV is a theta sketch whose retained hashes carry a summary of type S
// (struct{} for a theta sketch; a number for a tuple sketch).
type KMV[S any] struct {
	// LgK is log2 of the nominal number of entries.
	LgK uint8
	// Theta is the threshold: only hashes below it are retained.
	Theta uint64
	// Entries maps each retained hash to its summary.
	Entries map[uint64]S
}

// NewKMV returns an empty sketch of 2^lgK nominal entries.
func NewKMV[S any](lgK uint8) *KMV[S] {
	return &KMV[S]{LgK: lgK, Theta: MaxTheta, Entries: map[uint64]S{}}
}

// CheckLgK returns Spark's error for an lgNomEntries out of range.
func CheckLgK(fn string, lgK int64) error {
	if lgK < MinLgK || lgK > MaxLgK {
		return fmt.Errorf("[THETA_INVALID_LG_NOM_ENTRIES] Invalid call to %s; the `lgNomEntries` value must be between %d and %d, inclusive: %d. SQLSTATE: 22546", fn, MinLgK, MaxLgK, lgK)
	}
	return nil
}

// Update adds a value by its 64-bit hash h (of which it keeps 63 bits)
// with summary s; combine merges s into the summary of a hash already
// retained (nil keeps the first).
func (k *KMV[S]) Update(h uint64, s S, combine func(old, s S) S) {
	h >>= 1
	if h == 0 || h >= k.Theta {
		return
	}
	if old, ok := k.Entries[h]; ok {
		if combine != nil {
			k.Entries[h] = combine(old, s)
		}
		return
	}
	k.Entries[h] = s
	if len(k.Entries) >= 2<<k.LgK {
		k.Trim()
	}
}

// Trim keeps the 2^lgK smallest hashes and lowers theta to the next one.
func (k *KMV[S]) Trim() {
	n := 1 << k.LgK
	if len(k.Entries) <= n {
		return
	}
	hs := k.sortedHashes()
	k.Theta = hs[n]
	for _, h := range hs[n:] {
		delete(k.Entries, h)
	}
}

func (k *KMV[S]) sortedHashes() []uint64 {
	hs := make([]uint64, 0, len(k.Entries))
	for h := range k.Entries {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	return hs
}

// ThetaFraction is theta as a fraction of the hash space, in (0, 1].
func (k *KMV[S]) ThetaFraction() float64 {
	return float64(k.Theta) / float64(MaxTheta)
}

// Estimate is the estimated number of distinct values.
func (k *KMV[S]) Estimate() float64 {
	if k.Theta == MaxTheta {
		return float64(len(k.Entries))
	}
	return float64(len(k.Entries)) / k.ThetaFraction()
}

// Union returns the union of sketches a and b at 2^lgK nominal entries;
// combine merges the summaries of a hash both retain.
func Union[S any](lgK uint8, a, b *KMV[S], combine func(x, y S) S) *KMV[S] {
	out := NewKMV[S](lgK)
	out.Theta = min(a.Theta, b.Theta)
	for _, in := range []*KMV[S]{a, b} {
		for h, s := range in.Entries {
			if h >= out.Theta {
				continue
			}
			if old, ok := out.Entries[h]; ok {
				out.Entries[h] = combine(old, s)
			} else {
				out.Entries[h] = s
			}
		}
	}
	out.Trim()
	return out
}

// Intersect returns the hashes both a and b retain below the smaller
// theta, their summaries merged by combine.
func Intersect[S any](a, b *KMV[S], combine func(x, y S) S) *KMV[S] {
	out := NewKMV[S](max(a.LgK, b.LgK))
	out.Theta = min(a.Theta, b.Theta)
	for h, s := range a.Entries {
		if t, ok := b.Entries[h]; ok && h < out.Theta {
			out.Entries[h] = combine(s, t)
		}
	}
	return out
}

// Difference returns the hashes a retains and b does not, below the
// smaller theta, with a's summaries (a AND NOT b).
func Difference[S any](a, b *KMV[S]) *KMV[S] {
	out := NewKMV[S](a.LgK)
	out.Theta = min(a.Theta, b.Theta)
	for h, s := range a.Entries {
		if _, ok := b.Entries[h]; !ok && h < out.Theta {
			out.Entries[h] = s
		}
	}
	return out
}

// Sketch kinds, the first byte of an encoded sketch.
const (
	KindTheta        byte = 'T'
	KindTupleDouble  byte = 'D'
	KindTupleInteger byte = 'I'
	encodingVersion  byte = 1
	kmvHeaderSize         = 2 + 1 + 8 + 4
)

// Encode writes k as kind, version, lgK, theta, the entry count and the
// entries in hash order (hash, then the summary as put writes it).
func (k *KMV[S]) Encode(kind byte, size int, put func(b []byte, s S)) []byte {
	b := make([]byte, kmvHeaderSize, kmvHeaderSize+len(k.Entries)*(8+size))
	b[0], b[1], b[2] = kind, encodingVersion, k.LgK
	binary.LittleEndian.PutUint64(b[3:], k.Theta)
	binary.LittleEndian.PutUint32(b[11:], uint32(len(k.Entries)))
	for _, h := range k.sortedHashes() {
		b = binary.LittleEndian.AppendUint64(b, h)
		n := len(b)
		b = append(b, make([]byte, size)...)
		put(b[n:], k.Entries[h])
	}
	return b
}

// DecodeKMV reads a sketch that Encode wrote with the given kind.
func DecodeKMV[S any](b []byte, kind byte, size int, get func(b []byte) S) (*KMV[S], error) {
	if len(b) < kmvHeaderSize || b[0] != kind || b[1] != encodingVersion {
		return nil, ErrCorrupt
	}
	lgK := b[2]
	n := int(binary.LittleEndian.Uint32(b[11:]))
	if lgK < MinLgK || lgK > MaxLgK || len(b) != kmvHeaderSize+n*(8+size) {
		return nil, ErrCorrupt
	}
	k := NewKMV[S](lgK)
	k.Theta = binary.LittleEndian.Uint64(b[3:])
	k.Entries = make(map[uint64]S, n)
	for p := kmvHeaderSize; p < len(b); p += 8 + size {
		k.Entries[binary.LittleEndian.Uint64(b[p:])] = get(b[p+8 : p+8+size])
	}
	return k, nil
}

// Theta is a theta sketch: hashes without summaries.
type Theta = KMV[struct{}]

// NewTheta returns an empty theta sketch.
func NewTheta(lgK uint8) *Theta { return NewKMV[struct{}](lgK) }

// EncodeTheta encodes a theta sketch.
func EncodeTheta(k *Theta) []byte {
	return k.Encode(KindTheta, 0, func([]byte, struct{}) {})
}

// DecodeTheta decodes a theta sketch.
func DecodeTheta(b []byte) (*Theta, error) {
	return DecodeKMV(b, KindTheta, 0, func([]byte) struct{} { return struct{}{} })
}

// KeepFirst is the combine of theta sketches (no summaries).
func KeepFirst[S any](x, _ S) S { return x }
