package numfmt

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestGroupRoundTrips checks that removing the commas gives back
// strconv's digits and that every group but the first has three digits.
func TestGroupRoundTrips(t *testing.T) {
	for _, n := range []int64{0, 7, -7, 999, 1000, -1000, 123456, 1234567, -98765432, math.MaxInt64, math.MinInt64} {
		g := Group(n)
		if strings.ReplaceAll(g, ",", "") != strconv.FormatInt(n, 10) {
			t.Errorf("Group(%d) = %q: digits differ", n, g)
		}
		parts := strings.Split(strings.TrimPrefix(g, "-"), ",")
		for i, p := range parts {
			if (i > 0 && len(p) != 3) || len(p) == 0 || len(p) > 3 {
				t.Errorf("Group(%d) = %q: group %q", n, g, p)
			}
		}
	}
}
