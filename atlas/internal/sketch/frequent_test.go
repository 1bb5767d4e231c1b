package sketch

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func intKeys(f *Frequent, vals ...int32) {
	b := array.NewInt32Builder(memory.NewGoAllocator())
	b.AppendValues(vals, nil)
	arr := b.NewArray()
	items, _ := TopKItems(arr)
	for i := range vals {
		k, h, _ := items(i)
		f.Update(k, h, 1)
	}
}

func rowsOf(t *testing.T, f *Frequent) []string {
	t.Helper()
	var out []string
	for _, r := range f.Frequent() {
		out = append(out, string(rune('0'+r.Key[0]))+":"+string(rune('0'+r.Estimate)))
	}
	return out
}

// TestFrequentSparkOrder: Spark's documented example, approx_top_k over
// 0, 0, 1, 1, 2, 3, 4, 4, returns 0, 4, 1 (count 2) then 2, 3: the order
// DataSketches' hash table gives items of equal count.
func TestFrequentSparkOrder(t *testing.T) {
	f := NewFrequent(FrequentLgMax(10000))
	intKeys(f, 0, 0, 1, 1, 2, 3, 4, 4)
	if got, want := rowsOf(t, f), []string{"0:2", "4:2", "1:2", "2:1", "3:1"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// approx_top_k_combine's example: the same from two sketches.
	a, b := NewFrequent(FrequentLgMax(10000)), NewFrequent(FrequentLgMax(10000))
	intKeys(a, 0, 0, 1, 1)
	intKeys(b, 2, 3, 4, 4)
	m := NewFrequent(FrequentLgMax(10000))
	m.Merge(a)
	m.Merge(b)
	if got, want := rowsOf(t, m), []string{"0:2", "4:2", "1:2", "2:1", "3:1"}; !slices.Equal(got, want) {
		t.Errorf("merged rows %v, want %v", got, want)
	}
	if m.StreamWeight != 8 || m.Offset != 0 {
		t.Errorf("weight %d offset %d", m.StreamWeight, m.Offset)
	}
}

// TestFrequentHeavyHitters: with more distinct items than the table
// holds, counters are purged. The sketch's guarantees (Misra-Gries, as
// DataSketches documents them): the maximum error (Offset) is at most
// 3.5/maxMapSize of the stream weight; every estimate lies in [true, true
// + Offset]; no item reported is below Offset, and every item above
// 2 x Offset is reported.
func TestFrequentHeavyHitters(t *testing.T) {
	f := NewFrequent(6) // 64 slots, 48 counters
	truth := map[int32]int64{}
	var vals []int32
	for i := range int32(6000) {
		v := 1000 + i // 3000 singletons
		if i%2 == 0 {
			v = (i / 2) % 5 // five heavy hitters, 600 each
		}
		vals = append(vals, v)
		truth[v]++
	}
	intKeys(f, vals...)
	if f.Offset == 0 {
		t.Fatal("no purge happened")
	}
	if bound := 3.5 / 64 * float64(f.StreamWeight); float64(f.Offset) > bound {
		t.Errorf("offset %d above %v", f.Offset, bound)
	}
	got := map[int32]int64{}
	for _, r := range f.Frequent() {
		v := int32(binary.LittleEndian.Uint64([]byte(r.Key)))
		got[v] = r.Estimate
		if r.Estimate < truth[v] || r.Estimate > truth[v]+f.Offset {
			t.Errorf("item %d: estimate %d, true %d, offset %d", v, r.Estimate, truth[v], f.Offset)
		}
		if truth[v] < f.Offset {
			t.Errorf("item %d of count %d reported, below the error %d", v, truth[v], f.Offset)
		}
	}
	for v, n := range truth {
		if _, ok := got[v]; n > 2*f.Offset && !ok {
			t.Errorf("item %d of count %d not reported (offset %d)", v, n, f.Offset)
		}
	}
	if len(got) < 5 {
		t.Errorf("%d items reported, want the 5 heavy hitters (offset %d)", len(got), f.Offset)
	}
	back, err := DecodeFrequent(EncodeFrequent(f))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rowsOf(t, back), rowsOf(t, f)) || back.Offset != f.Offset {
		t.Error("decoded sketch differs")
	}
}

func TestJavaHashes(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "a": 97, "ab": 3105, "hello": 99162322, "\U0001F600": 1772899} {
		if got := javaStringHash(s); got != want {
			t.Errorf("hashCode(%q) = %d, want %d", s, got, want)
		}
	}
	if longHash(-1) != 0 || longHash(1<<32) != 1 {
		t.Error("Long.hashCode")
	}
}
