package kafka

import (
	"fmt"
	"testing"
)

// TestOffsetsBehind: the metrics are the per-partition differences of
// latest and end, worked out by hand, the mean written as Java's
// Double.toString; partitions that end does not name are left out.
func TestOffsetsBehind(t *testing.T) {
	for _, c := range []struct {
		end, latest Offsets
		want        string
	}{
		{Offsets{"a": {0: 5, 1: 7}}, Offsets{"a": {0: 5, 1: 10}}, "map[avgOffsetsBehindLatest:1.5 maxOffsetsBehindLatest:3 minOffsetsBehindLatest:0]"},
		{Offsets{"a": {0: 5}}, Offsets{"a": {0: 5}}, "map[avgOffsetsBehindLatest:0.0 maxOffsetsBehindLatest:0 minOffsetsBehindLatest:0]"},
		{Offsets{"a": {0: 0}, "b": {0: 0}}, Offsets{"a": {0: 10_000_000}, "b": {0: 10_000_000, 1: 4}}, "map[avgOffsetsBehindLatest:1.0E7 maxOffsetsBehindLatest:10000000 minOffsetsBehindLatest:10000000]"},
		{Offsets{"x": {0: 1}}, Offsets{"a": {0: 3}}, "map[]"},
	} {
		if got := fmt.Sprint(offsetsBehind(c.end, c.latest)); got != c.want {
			t.Errorf("offsetsBehind(%v, %v) = %s, want %s", c.end, c.latest, got, c.want)
		}
	}
	if m := (&Source{}).ProgressMetrics("", `{"a":{"0":1}}`); m != nil {
		t.Errorf("no end: %v, want nil", m)
	}
}
