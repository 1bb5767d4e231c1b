package sketch

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
)

// KLL quantile sketches (kll_sketch_agg_*, kll_merge_agg_*,
// kll_sketch_get_*, kll_sketch_merge_*, kll_sketch_to_string_*), written
// by hand for the same reason as the theta sketches: the KLL algorithm of
// Karnin, Lang and Liberty ("Optimal Quantile Approximation in Streams",
// 2016) that DataSketches' KllSketch implements. Items enter level 0;
// level h holds items of weight 2^h and has room for about k*(2/3)^(depth)
// items (at least 8); when the sketch is full, the lowest full level is
// sorted and every other item, from a random offset, moves up a level.
// With fewer than k items nothing is compacted and every quantile and
// rank is exact. Above that, DataSketches documents a normalized rank
// error of about 1.65% at k = 200 (the default) for its sketch; the tests
// check this one against that bound. The coin of each compaction comes
// from a generator kept in the sketch, so a sketch (and a restored
// checkpoint) is deterministic. The min and max are kept exactly, as
// DataSketches does.

// KLL k bounds and default (Spark's).
const (
	MinKLLK     = 8
	MaxKLLK     = 65535
	DefaultKLLK = 200
	kllMinWidth = 8
)

// KLL is a KLL sketch of items of type T (int64, float32 or float64).
type KLL[T cmp.Ordered] struct {
	K uint16
	// N is the number of items the sketch has seen.
	N uint64
	// Levels[h] holds the retained items of weight 2^h.
	Levels   [][]T
	Min, Max T
	// rng is the state of the compaction coin (xorshift64).
	rng uint64
}

// CheckKLLK returns Spark's error for a k out of range.
func CheckKLLK(fn string, k int64) error {
	if k < MinKLLK || k > MaxKLLK {
		return fmt.Errorf("[KLL_SKETCH_K_OUT_OF_RANGE] For function %s, the k parameter must be between %d and %d, inclusive, but got %d. SQLSTATE: 22003", fn, MinKLLK, MaxKLLK, k)
	}
	return nil
}

// NewKLL returns an empty sketch of parameter k.
func NewKLL[T cmp.Ordered](k uint16) *KLL[T] {
	return &KLL[T]{K: k, Levels: [][]T{nil}, rng: 0x9E3779B97F4A7C15}
}

// capacity is the room of level h of numLevels.
func (s *KLL[T]) capacity(h int) int {
	depth := len(s.Levels) - 1 - h
	c := int(math.Ceil(float64(s.K) * math.Pow(2.0/3.0, float64(depth))))
	return max(c, kllMinWidth)
}

func (s *KLL[T]) retained() int {
	n := 0
	for _, l := range s.Levels {
		n += len(l)
	}
	return n
}

func (s *KLL[T]) totalCapacity() int {
	n := 0
	for h := range s.Levels {
		n += s.capacity(h)
	}
	return n
}

// Update adds an item.
func (s *KLL[T]) Update(v T) {
	if s.N == 0 {
		s.Min, s.Max = v, v
	} else {
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
	}
	s.N++
	s.Levels[0] = append(s.Levels[0], v)
	s.compress()
}

func (s *KLL[T]) coin() int {
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	return int(s.rng >> 63)
}

// compress compacts levels until the sketch fits its capacity.
func (s *KLL[T]) compress() {
	for s.retained() > s.totalCapacity() {
		for h := range s.Levels {
			if len(s.Levels[h]) < s.capacity(h) {
				continue
			}
			if h+1 == len(s.Levels) {
				s.Levels = append(s.Levels, nil)
			}
			s.compact(h)
			break
		}
	}
}

// compact sorts level h and moves every other item to level h+1; with an
// odd count, one item stays.
func (s *KLL[T]) compact(h int) {
	items := s.Levels[h]
	slices.Sort(items)
	var keep []T
	if len(items)%2 == 1 {
		keep = []T{items[len(items)-1]}
		items = items[:len(items)-1]
	}
	for i := s.coin(); i < len(items); i += 2 {
		s.Levels[h+1] = append(s.Levels[h+1], items[i])
	}
	s.Levels[h] = append(s.Levels[h][:0:0], keep...)
}

// Merge adds the items of o to s (o is unchanged); s keeps its k.
func (s *KLL[T]) Merge(o *KLL[T]) {
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		s.Min, s.Max = o.Min, o.Max
	} else {
		s.Min, s.Max = min(s.Min, o.Min), max(s.Max, o.Max)
	}
	s.N += o.N
	for h, l := range o.Levels {
		for len(s.Levels) <= h {
			s.Levels = append(s.Levels, nil)
		}
		s.Levels[h] = append(s.Levels[h], l...)
	}
	s.compress()
}

// weighted is the retained items with their weights, sorted by item.
func (s *KLL[T]) weighted() ([]T, []uint64) {
	type iw struct {
		v T
		w uint64
	}
	var all []iw
	for h, l := range s.Levels {
		for _, v := range l {
			all = append(all, iw{v, 1 << h})
		}
	}
	slices.SortStableFunc(all, func(a, b iw) int { return cmp.Compare(a.v, b.v) })
	vs, ws := make([]T, len(all)), make([]uint64, len(all))
	for i, x := range all {
		vs[i], ws[i] = x.v, x.w
	}
	return vs, ws
}

// ErrEmptyKLL is a quantile asked of an empty sketch.
var ErrEmptyKLL = fmt.Errorf("the sketch is empty")

// Quantile is the smallest retained item whose inclusive normalized rank
// (the weight of the items up to and including it, over N) is at least
// rank; rank 0 is the min and 1 the max (DataSketches' INCLUSIVE search).
func (s *KLL[T]) Quantile(rank float64) (T, error) {
	var zero T
	if !(rank >= 0 && rank <= 1) {
		return zero, fmt.Errorf("a normalized rank must be between 0.0 and 1.0 inclusive, got %v", rank)
	}
	if s.N == 0 {
		return zero, ErrEmptyKLL
	}
	if rank == 0 {
		return s.Min, nil
	}
	if rank == 1 {
		return s.Max, nil
	}
	vs, ws := s.weighted()
	total := uint64(0)
	for _, w := range ws {
		total += w
	}
	target := rank * float64(total)
	cum := uint64(0)
	for i, w := range ws {
		cum += w
		if float64(cum) >= target {
			return vs[i], nil
		}
	}
	return s.Max, nil
}

// Rank is the inclusive normalized rank of v: the weight of the retained
// items at most v over their total weight.
func (s *KLL[T]) Rank(v T) (float64, error) {
	if s.N == 0 {
		return 0, ErrEmptyKLL
	}
	var le, total uint64
	for h, l := range s.Levels {
		for _, x := range l {
			total += 1 << h
			if x <= v {
				le += 1 << h
			}
		}
	}
	return float64(le) / float64(total), nil
}

// String is a human-readable summary, like DataSketches' toString.
func (s *KLL[T]) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### KLL sketch summary:\n")
	fmt.Fprintf(&b, "   K              : %d\n", s.K)
	fmt.Fprintf(&b, "   N              : %d\n", s.N)
	fmt.Fprintf(&b, "   Empty          : %v\n", s.N == 0)
	fmt.Fprintf(&b, "   Estimation mode: %v\n", len(s.Levels) > 1)
	fmt.Fprintf(&b, "   Levels         : %d\n", len(s.Levels))
	fmt.Fprintf(&b, "   Retained items : %d\n", s.retained())
	if s.N > 0 {
		fmt.Fprintf(&b, "   Min item       : %v\n", s.Min)
		fmt.Fprintf(&b, "   Max item       : %v\n", s.Max)
	}
	b.WriteString("### End sketch summary\n")
	return b.String()
}

// KLL item codecs.
type kllCodec[T cmp.Ordered] struct {
	kind byte
	size int
	put  func(b []byte, v T)
	get  func(b []byte) T
}

var (
	kllLongs = kllCodec[int64]{'l', 8, func(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) },
		func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }}
	kllFloats = kllCodec[float32]{'f', 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) },
		func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }}
	kllDoubles = kllCodec[float64]{'d', 8, func(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) },
		func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }}
)

// KindKLL is the first byte of an encoded KLL sketch; the item type
// follows the version.
const KindKLL byte = 'K'

func (c kllCodec[T]) encode(s *KLL[T]) []byte {
	b := []byte{KindKLL, encodingVersion, c.kind}
	b = binary.LittleEndian.AppendUint16(b, s.K)
	b = binary.LittleEndian.AppendUint64(b, s.N)
	b = binary.LittleEndian.AppendUint64(b, s.rng)
	item := make([]byte, c.size)
	for _, v := range []T{s.Min, s.Max} {
		c.put(item, v)
		b = append(b, item...)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.Levels)))
	for _, l := range s.Levels {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(l)))
		for _, v := range l {
			c.put(item, v)
			b = append(b, item...)
		}
	}
	return b
}

func (c kllCodec[T]) decode(b []byte) (*KLL[T], error) {
	head := 3 + 2 + 8 + 8 + 2*c.size + 4
	if len(b) < head || b[0] != KindKLL || b[1] != encodingVersion || b[2] != c.kind {
		return nil, ErrCorrupt
	}
	s := &KLL[T]{K: binary.LittleEndian.Uint16(b[3:])}
	s.N = binary.LittleEndian.Uint64(b[5:])
	s.rng = binary.LittleEndian.Uint64(b[13:])
	s.Min, s.Max = c.get(b[21:]), c.get(b[21+c.size:])
	p := 21 + 2*c.size
	levels := int(binary.LittleEndian.Uint32(b[p:]))
	p += 4
	if s.K < MinKLLK || levels < 1 || levels > 64 {
		return nil, ErrCorrupt
	}
	s.Levels = make([][]T, levels)
	for h := range s.Levels {
		if len(b) < p+4 {
			return nil, ErrCorrupt
		}
		n := int(binary.LittleEndian.Uint32(b[p:]))
		p += 4
		if n < 0 || len(b) < p+n*c.size {
			return nil, ErrCorrupt
		}
		s.Levels[h] = make([]T, n)
		for i := range n {
			s.Levels[h][i] = c.get(b[p:])
			p += c.size
		}
	}
	if p != len(b) {
		return nil, ErrCorrupt
	}
	return s, nil
}

// EncodeKLLLongs, EncodeKLLFloats and EncodeKLLDoubles encode KLL sketches.
func EncodeKLLLongs(s *KLL[int64]) []byte     { return kllLongs.encode(s) }
func EncodeKLLFloats(s *KLL[float32]) []byte  { return kllFloats.encode(s) }
func EncodeKLLDoubles(s *KLL[float64]) []byte { return kllDoubles.encode(s) }

// DecodeKLLLongs, DecodeKLLFloats and DecodeKLLDoubles decode KLL sketches
// of their item type (a sketch of another item type is refused).
func DecodeKLLLongs(b []byte) (*KLL[int64], error)     { return kllLongs.decode(b) }
func DecodeKLLFloats(b []byte) (*KLL[float32], error)  { return kllFloats.decode(b) }
func DecodeKLLDoubles(b []byte) (*KLL[float64], error) { return kllDoubles.decode(b) }
