package state

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/murmur3"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// valueCounts is mode's state: each distinct value (in the state encoding
// of keys.go) in first-seen order with how often it came.
type valueCounts struct {
	index  map[string]int
	keys   []string
	counts []int64
}

func (v *valueCounts) add(key []byte) {
	if i, ok := v.index[string(key)]; ok {
		v.counts[i]++
		return
	}
	if v.index == nil {
		v.index = map[string]int{}
	}
	k := string(key)
	v.index[k] = len(v.keys)
	v.keys = append(v.keys, k)
	v.counts = append(v.counts, 1)
}

func encodeValueCounts(v *valueCounts) []byte {
	out := encodeStrings(v.keys)
	for _, c := range v.counts {
		out = binary.LittleEndian.AppendUint64(out, uint64(c))
	}
	return out
}

func decodeValueCounts(b []byte) (valueCounts, error) {
	keys, err := decodeStrings(b)
	if err != nil {
		return valueCounts{}, err
	}
	n := 4
	for _, k := range keys {
		n += 4 + len(k)
	}
	if len(b) != n+8*len(keys) {
		return valueCounts{}, errors.New("mode: corrupt state")
	}
	v := valueCounts{index: make(map[string]int, len(keys)), keys: keys, counts: make([]int64, len(keys))}
	for i, k := range keys {
		v.index[k] = i
		v.counts[i] = int64(binary.LittleEndian.Uint64(b[n+8*i:]))
	}
	return v, nil
}

// newModeAcc is Spark's Mode: the most frequent non-null value, NULL for
// none. Among values equally frequent, WITHIN GROUP (ORDER BY x) and
// mode(x, true) take the smallest, WITHIN GROUP (ORDER BY x DESC) the
// largest; plain mode(x) takes the first in the iteration order of
// Spark's OpenHashMap, which sparkHashOrder reproduces for numbers,
// dates, timestamps and booleans (for strings and decimals it is the
// first seen, also a value of the greatest frequency, which is all
// Spark's documentation promises).
func newModeAcc(a *expr.BoundAgg) accumulator {
	cmp := keyCompare(a.Type)
	var buf []byte
	return &slotAcc[valueCounts]{
		fresh:    func() valueCounts { return valueCounts{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *valueCounts, i int), error) {
			enc, err := encodedReader(arg)
			if err != nil {
				return nil, err
			}
			return func(s *valueCounts, i int) {
				buf = enc(buf[:0], i)
				s.add(buf)
			}, nil
		},
		result: func(b array.Builder, s *valueCounts) {
			if len(s.keys) == 0 {
				b.AppendNull()
				return
			}
			decodeValue(b, s.keys[modeIndex(s, a, cmp)])
		},
		encode: encodeValueCounts,
		decode: decodeValueCounts,
	}
}

// modeIndex picks the mode among s's values.
func modeIndex(s *valueCounts, a *expr.BoundAgg, cmp func(x, y string) int) int {
	if !a.Opts.Ordered {
		// Spark's final aggregate merges the partial one's map into an
		// empty one in the partial map's order: the same insertion twice.
		first := sparkHashOrder(s.keys, a.Type)
		keys := make([]string, len(first))
		for i, k := range first {
			keys[i] = s.keys[k]
		}
		order := sparkHashOrder(keys, a.Type)
		for i, k := range order {
			order[i] = first[k]
		}
		best := order[0]
		for _, i := range order[1:] {
			if s.counts[i] > s.counts[best] {
				best = i
			}
		}
		return best
	}
	best := 0
	for i := 1; i < len(s.keys); i++ {
		c := s.counts[i] - s.counts[best]
		if c == 0 && cmp != nil {
			d := cmp(s.keys[i], s.keys[best])
			if (a.Opts.OrderDesc && d > 0) || (!a.Opts.OrderDesc && d < 0) {
				best = i
			}
		} else if c > 0 {
			best = i
		}
	}
	return best
}

// keyCompare orders two values of type t in the state encoding of
// keys.go as Spark does (NaN greatest, -0.0 equal to 0.0, strings by
// their UTF-8 bytes); nil for a type without an order.
func keyCompare(t arrow.DataType) func(a, b string) int {
	word := func(k string, at int) uint64 { return binary.LittleEndian.Uint64([]byte(k[at : at+8])) }
	switch t.ID() {
	case arrow.STRING:
		return func(a, b string) int { return strings.Compare(a[5:], b[5:]) }
	case arrow.FLOAT32, arrow.FLOAT64:
		return func(a, b string) int {
			return expr.CompareFloats(math.Float64frombits(word(a, 1)), math.Float64frombits(word(b, 1)))
		}
	case arrow.DECIMAL128:
		return func(a, b string) int {
			if c := cmpInt(int64(word(a, 1)), int64(word(b, 1))); c != 0 {
				return c
			}
			return cmpUint(word(a, 9), word(b, 9))
		}
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DATE32, arrow.DURATION, arrow.BOOL:
		return func(a, b string) int { return cmpInt(int64(word(a, 1)), int64(word(b, 1))) }
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sparkHashOrder returns the positions of keys (distinct values in
// first-seen order) in the order Spark's OpenHashMap iterates them after
// inserting them in that order: slot murmur3_32(hashCode) & mask,
// quadratic probing (+1, +2, ...), a table of 64 slots doubling past a
// load of 0.7, iterated by slot. Types whose Java hashCode is not
// reproduced here keep the first-seen order.
func sparkHashOrder(keys []string, t arrow.DataType) []int {
	hash := javaHashCode(t)
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	if hash == nil {
		return order
	}
	slots := make([]int, 64)
	for i := range slots {
		slots[i] = -1
	}
	place := func(slots []int, k int) {
		mask := uint32(len(slots) - 1)
		var h [4]byte
		binary.LittleEndian.PutUint32(h[:], uint32(hash(keys[k])))
		pos := murmur3.Sum32(h[:]) & mask
		for delta := uint32(1); slots[pos] >= 0; delta++ {
			pos = (pos + delta) & mask
		}
		slots[pos] = k
	}
	for k := range keys {
		place(slots, k)
		if float64(k+1) > 0.7*float64(len(slots)) {
			grown := make([]int, 2*len(slots))
			for i := range grown {
				grown[i] = -1
			}
			for _, old := range slots {
				if old >= 0 {
					place(grown, old)
				}
			}
			slots = grown
		}
	}
	order = order[:0]
	for _, k := range slots {
		if k >= 0 {
			order = append(order, k)
		}
	}
	return order
}

// javaHashCode is the hashCode of the boxed Java value Spark keeps for a
// key of type t (Integer, Long, Double, Float, Boolean), nil for others.
func javaHashCode(t arrow.DataType) func(key string) int32 {
	word := func(k string) uint64 { return binary.LittleEndian.Uint64([]byte(k[1:9])) }
	long := func(v uint64) int32 { return int32(v ^ v>>32) }
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.DATE32:
		return func(k string) int32 { return int32(int64(word(k))) }
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		return func(k string) int32 { return long(word(k)) }
	case arrow.FLOAT64:
		return func(k string) int32 { return long(javaDoubleBits(math.Float64frombits(word(k)))) }
	case arrow.FLOAT32:
		return func(k string) int32 {
			f := float32(math.Float64frombits(word(k)))
			if f != f {
				return 0x7fc00000
			}
			return int32(math.Float32bits(f))
		}
	case arrow.BOOL:
		return func(k string) int32 {
			if word(k) == 1 {
				return 1231
			}
			return 1237
		}
	}
	return nil
}

// javaDoubleBits is Double.doubleToLongBits: one NaN.
func javaDoubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}
