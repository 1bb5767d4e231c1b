package conformance

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestVoidIsNULL checks a column of Spark's void type (Arrow's Null,
// whose arrays carry no validity bitmap) prints NULL, as spark-sql does
// for SELECT assert_true(true).
func TestVoidIsNULL(t *testing.T) {
	a := array.MakeArrayOfNull(memory.DefaultAllocator, arrow.Null, 1)
	defer a.Release()
	if got := HiveValue(a, 0, true, nil); got != "NULL" {
		t.Errorf("a void value prints %q, Spark prints NULL", got)
	}
}

// TestJavaDouble checks the rendering against what Java's Double.toString
// and Float.toString print for the same values.
func TestJavaDouble(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {0.1, 64, "0.1"}, {1e10, 64, "1.0E10"}, {1.5e-5, 64, "1.5E-5"},
		{0.001, 64, "0.001"}, {1234567.0, 64, "1234567.0"}, {12345678.0, 64, "1.2345678E7"},
		{0.30000000000000004, 64, "0.30000000000000004"}, {-2.5, 64, "-2.5"}, {math.NaN(), 64, "NaN"},
		{math.Inf(-1), 64, "-Infinity"}, {math.Copysign(0, -1), 64, "-0.0"},
		{float64(float32(0.9746319)), 32, "0.9746319"}, {float64(float32(5.196152)), 32, "5.196152"},
		{0.8660254037844387, 64, "0.8660254037844387"}, {1.0e-4, 64, "1.0E-4"},
	} {
		if got := JavaDouble(c.f, c.bits); got != c.want {
			t.Errorf("JavaDouble(%v, %d) = %q, Java prints %q", c.f, c.bits, got, c.want)
		}
	}
}

// TestCalendarInterval checks CalendarInterval.toString on the corpus's examples.
func TestCalendarInterval(t *testing.T) {
	if got := calendarIntervalString(1, 1, 100_000_001_000); got != "1 months 1 days 1 minutes 40.000001 seconds" {
		t.Errorf("got %q", got)
	}
	if got := calendarIntervalString(100*12+11, 8, (12*3600+30*60+1)*1e9+1_001_000); got != "100 years 11 months 8 days 12 hours 30 minutes 1.001001 seconds" {
		t.Errorf("got %q", got)
	}
}
