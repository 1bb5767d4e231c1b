package expr

import "math"

// Spark's NaN semantics for floating point (SQL reference, "NaN
// Semantics"): NaN = NaN is true, NaN is greater than every other value
// (it sorts last ascending), all NaNs form one group in aggregations and
// match each other as join keys; and 0.0 and -0.0 are one value in
// grouping and join keys (NormalizeFloatingNumbers, SPARK-26021). IEEE
// comparison, as Go and arrow do it, says NaN equals nothing and is
// neither less nor greater.

// NormalFloatBits is the bits of f with every NaN made one NaN and -0.0
// made 0.0: the form of a float in grouping, distinct, join and merge keys.
func NormalFloatBits(f float64) uint64 {
	switch {
	case f != f:
		return 0x7ff8000000000001 // math.NaN()'s bits
	case f == 0:
		return 0
	}
	return math.Float64bits(f)
}

// CompareFloats orders a and b as Spark does: NaN greatest and equal to
// itself, -0.0 equal to 0.0.
func CompareFloats(a, b float64) int {
	aNaN, bNaN := a != a, b != b
	switch {
	case aNaN && bNaN:
		return 0
	case aNaN:
		return 1
	case bNaN:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FloatOrderKey maps f to an int64 that sorts as CompareFloats orders f
// (NaN last, -0.0 with 0.0), so a sort on int64 keys sorts the floats.
func FloatOrderKey(f float64) int64 {
	const sign = 1 << 63
	b := NormalFloatBits(f)
	if f != f {
		b = math.Float64bits(math.Inf(1)) + 1 // just above +Inf's bits
	}
	if b&sign != 0 {
		b = ^b
	} else {
		b |= sign
	}
	return int64(b ^ sign)
}
