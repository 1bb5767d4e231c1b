package sketch

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Frequent is a frequent-items sketch (approx_top_k, approx_top_k_*):
// the Misra-Gries algorithm with purging that DataSketches' ItemsSketch
// implements, written after it so that Atlas returns Spark's answers,
// including the order of items of equal count, which Spark takes from
// the sketch's hash table. Counters live in a linear-probing table keyed
// by the item's Java hashCode (mixed by the finalizer of MurmurHash3),
// that starts at 8 slots and doubles up to maxMapSize; when more than
// 3/4 of the largest table is in use, the median of a sample of counters
// is subtracted from every counter and that much is added to the offset,
// the sketch's maximum error. Below 3/4 of maxMapSize distinct items all
// counts are exact. Items are opaque byte strings (the caller's encoding
// of a value) with their Java hashCode.
type Frequent struct {
	// LgMax is log2 of the largest table (Spark: the power of 2 at least
	// maxItemsTracked/0.75).
	LgMax uint8
	// Offset is the sum of the purged medians: every estimate's maximum
	// error.
	Offset int64
	// StreamWeight is the number of items counted.
	StreamWeight int64
	keys         []string
	hashes       []int32
	values       []int64
	states       []uint16
	numActive    int
}

const frequentLgMin = 3

// NewFrequent returns an empty sketch whose table grows to 2^lgMax.
func NewFrequent(lgMax uint8) *Frequent {
	f := &Frequent{LgMax: max(lgMax, frequentLgMin)}
	f.alloc(1 << frequentLgMin)
	return f
}

// FrequentLgMax is Spark's table size for maxItemsTracked: the smallest
// power of 2 at least ceil(maxItemsTracked / 0.75).
func FrequentLgMax(maxItemsTracked int64) uint8 {
	c := math.Ceil(float64(maxItemsTracked) / 0.75)
	return uint8(math.Ceil(math.Log(c) / math.Log(2)))
}

func (f *Frequent) alloc(n int) {
	f.keys, f.hashes = make([]string, n), make([]int32, n)
	f.values, f.states = make([]int64, n), make([]uint16, n)
	f.numActive = 0
}

func (f *Frequent) capacity() int { return int(float64(len(f.keys)) * 0.75) }

// fmix64 is DataSketches' hash of a hashCode.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

func (f *Frequent) adjust(key string, hash int32, amount int64) {
	mask := len(f.keys) - 1
	probe := int(int32(fmix64(uint64(int64(hash))))) & mask
	drift := uint16(1)
	for f.states[probe] != 0 && f.keys[probe] != key {
		probe = (probe + 1) & mask
		drift++
	}
	if f.states[probe] == 0 {
		f.keys[probe], f.hashes[probe], f.values[probe], f.states[probe] = key, hash, amount, drift
		f.numActive++
		return
	}
	f.values[probe] += amount
}

// Update counts item key (with Java hashCode hash) count times.
func (f *Frequent) Update(key string, hash int32, count int64) {
	if count <= 0 {
		return
	}
	f.StreamWeight += count
	f.adjust(key, hash, count)
	if f.numActive > f.capacity() {
		if len(f.keys) < 1<<f.LgMax {
			f.resize(2 * len(f.keys))
		} else {
			f.Offset += f.purge(min(1024, f.capacity()))
		}
	}
}

func (f *Frequent) resize(n int) {
	keys, hashes, values, states := f.keys, f.hashes, f.values, f.states
	f.alloc(n)
	for i := range keys {
		if states[i] > 0 {
			f.adjust(keys[i], hashes[i], values[i])
		}
	}
}

// purge subtracts the median of a sample of the counters (the first
// active slots) from all of them and drops those no longer positive.
func (f *Frequent) purge(sampleSize int) int64 {
	limit := min(sampleSize, f.numActive)
	samples := make([]int64, 0, limit)
	for i := 0; len(samples) < limit; i++ {
		if f.states[i] > 0 {
			samples = append(samples, f.values[i])
		}
	}
	slices.Sort(samples)
	median := samples[limit/2]
	for i := range f.values {
		if f.states[i] > 0 {
			f.values[i] -= median
		}
	}
	f.keepPositive()
	return median
}

// keepPositive deletes the counters no longer positive, from the back of
// the table, as DataSketches' keepOnlyPositiveCounts does.
func (f *Frequent) keepPositive() {
	first := len(f.states) - 1
	for f.states[first] > 0 {
		first--
	}
	for probe := first - 1; probe >= 0; probe-- {
		if f.states[probe] > 0 && f.values[probe] <= 0 {
			f.delete(probe)
			f.numActive--
		}
	}
	for probe := len(f.states) - 1; probe > first; probe-- {
		if f.states[probe] > 0 && f.values[probe] <= 0 {
			f.delete(probe)
			f.numActive--
		}
	}
}

// delete empties slot at and moves later members of its cluster back.
func (f *Frequent) delete(at int) {
	f.states[at] = 0
	mask := len(f.states) - 1
	drift := uint16(1)
	probe := (at + 1) & mask
	for f.states[probe] != 0 {
		if f.states[probe] > drift {
			f.keys[at], f.hashes[at], f.values[at] = f.keys[probe], f.hashes[probe], f.values[probe]
			f.states[at] = f.states[probe] - drift
			f.states[probe] = 0
			drift = 0
			at = probe
		}
		probe = (probe + 1) & mask
		drift++
	}
}

// each visits the active counters in DataSketches' iteration order: a
// stride of the table length times the golden ratio's reciprocal.
func (f *Frequent) each(visit func(key string, hash int32, value int64)) {
	n := len(f.keys)
	stride := int(float64(n)*((math.Sqrt(5)-1)/2)) | 1
	mask := n - 1
	i := -stride
	for seen := 0; seen < f.numActive; {
		i = (i + stride) & mask
		if f.states[i] > 0 {
			seen++
			visit(f.keys[i], f.hashes[i], f.values[i])
		}
	}
}

// Merge adds the counts of o to f, as DataSketches merges.
func (f *Frequent) Merge(o *Frequent) {
	if o.StreamWeight == 0 {
		return
	}
	weight := f.StreamWeight + o.StreamWeight
	o.each(func(key string, hash int32, value int64) { f.Update(key, hash, value) })
	f.Offset += o.Offset
	f.StreamWeight = weight
}

// Row is a frequent item and its estimated count.
type Row struct {
	Key      string
	Estimate int64
}

// Frequent returns the items whose lower bound exceeds the maximum error
// (DataSketches' NO_FALSE_POSITIVES), by estimate descending; items of
// equal estimate keep the table's iteration order.
func (f *Frequent) Frequent() []Row {
	var rows []Row
	f.each(func(key string, _ int32, value int64) {
		if value > f.Offset {
			rows = append(rows, Row{Key: key, Estimate: value + f.Offset})
		}
	})
	slices.SortStableFunc(rows, func(a, b Row) int {
		switch {
		case a.Estimate > b.Estimate:
			return -1
		case a.Estimate < b.Estimate:
			return 1
		}
		return 0
	})
	return rows
}

// KindFrequent is the first byte of an encoded frequent-items sketch.
const KindFrequent byte = 'F'

// EncodeFrequent encodes a sketch: header, then the table's slots in order
// (so decoding restores the same iteration order).
func EncodeFrequent(f *Frequent) []byte {
	b := []byte{KindFrequent, encodingVersion, f.LgMax}
	b = binary.LittleEndian.AppendUint64(b, uint64(f.Offset))
	b = binary.LittleEndian.AppendUint64(b, uint64(f.StreamWeight))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(f.keys)))
	b = binary.LittleEndian.AppendUint32(b, uint32(f.numActive))
	for i := range f.keys {
		if f.states[i] == 0 {
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
		b = binary.LittleEndian.AppendUint16(b, f.states[i])
		b = binary.LittleEndian.AppendUint32(b, uint32(f.hashes[i]))
		b = binary.LittleEndian.AppendUint64(b, uint64(f.values[i]))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(f.keys[i])))
		b = append(b, f.keys[i]...)
	}
	return b
}

// DecodeFrequent decodes a sketch EncodeFrequent wrote.
func DecodeFrequent(b []byte) (*Frequent, error) {
	const head = 3 + 8 + 8 + 4 + 4
	if len(b) < head || b[0] != KindFrequent || b[1] != encodingVersion || b[2] < frequentLgMin || b[2] > 30 {
		return nil, ErrCorrupt
	}
	f := &Frequent{LgMax: b[2]}
	f.Offset = int64(binary.LittleEndian.Uint64(b[3:]))
	f.StreamWeight = int64(binary.LittleEndian.Uint64(b[11:]))
	n := int(binary.LittleEndian.Uint32(b[19:]))
	active := int(binary.LittleEndian.Uint32(b[23:]))
	if n < 1<<frequentLgMin || n > 1<<f.LgMax || n&(n-1) != 0 || active > n {
		return nil, ErrCorrupt
	}
	f.alloc(n)
	p := head
	for range active {
		if len(b) < p+22 {
			return nil, ErrCorrupt
		}
		i := int(binary.LittleEndian.Uint32(b[p:]))
		l := int(binary.LittleEndian.Uint32(b[p+18:]))
		if i >= n || len(b) < p+22+l || f.states[i] != 0 {
			return nil, ErrCorrupt
		}
		f.states[i] = binary.LittleEndian.Uint16(b[p+4:])
		f.hashes[i] = int32(binary.LittleEndian.Uint32(b[p+6:]))
		f.values[i] = int64(binary.LittleEndian.Uint64(b[p+10:]))
		f.keys[i] = string(b[p+22 : p+22+l])
		p += 22 + l
	}
	if p != len(b) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(b)-p)
	}
	f.numActive = active
	return f, nil
}
