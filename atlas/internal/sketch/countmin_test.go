package sketch

import (
	"encoding/hex"
	"strings"
	"testing"
)

// TestCountMinSparkBytes: Spark's documented example,
// hex(count_min_sketch(col, 0.5d, 0.5d, 1)) over 1, 2, 1.
func TestCountMinSparkBytes(t *testing.T) {
	c, err := NewCountMin(0.5, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{1, 2, 1} {
		c.AddLong(v)
	}
	want := "0000000100000000000000030000000100000004000000005D8D6AB90000000000000000000000000000000200000000000000010000000000000000"
	if got := strings.ToUpper(hex.EncodeToString(c.Encode())); got != want {
		t.Errorf("bytes\n%s, want\n%s", got, want)
	}
	back, err := DecodeCountMin(c.Encode())
	if err != nil || back.Total != 3 {
		t.Fatalf("decoded %v, %v", back, err)
	}
	if err := back.Merge(c); err != nil || back.Total != 6 {
		t.Fatalf("merge: %v total %d", err, back.Total)
	}
	for _, bad := range [][2]float64{{0, 0.5}, {0.1, 1}, {0.1, 0}} {
		if _, err := NewCountMin(bad[0], bad[1], 1); err == nil {
			t.Errorf("eps %v confidence %v accepted", bad[0], bad[1])
		}
	}
}

// TestCountMinBound: a count-min estimate never undercounts and exceeds
// the true count by at most eps x total with probability confidence; with
// depth rows the minimum over the rows is the estimate.
func TestCountMinBound(t *testing.T) {
	c, _ := NewCountMin(0.01, 0.99, 7)
	for i := range int64(20000) {
		c.AddLong(i % 1000)
	}
	bad := 0
	for v := range int64(1000) {
		est := c.estimate(v)
		if est < 20 {
			t.Fatalf("item %d: estimate %d under its count 20", v, est)
		}
		if float64(est-20) > 0.01*20000 {
			bad++
		}
	}
	if bad > 10 { // 1% of 1000 items may exceed the bound
		t.Errorf("%d items beyond eps x total", bad)
	}
}
