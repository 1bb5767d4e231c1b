package functions

import "math"

// javaTan is tangent as Java's StrictMath.tan computes it (fdlibm's
// s_tan.c, k_tan.c and the medium-range e_rem_pio2.c), which Spark's
// tan and cot call. Go's math.Tan rounds differently in the last bit for
// some arguments: 1/math.Tan(1) is 0.6420926159343308, Spark's cot(1)
// 0.6420926159343306. Arguments beyond 2^19·π/2 use math.Tan (fdlibm's
// large-argument reduction is not ported).
func javaTan(x float64) float64 {
	ix := hi(x) & 0x7fffffff
	switch {
	case ix <= 0x3fe921fb:
		return kernelTan(x, 0, 1)
	case ix >= 0x7ff00000:
		return x - x // NaN
	case ix > 0x413921fb:
		return math.Tan(x)
	}
	n, y0, y1 := remPio2(x)
	return kernelTan(y0, y1, 1-((n&1)<<1))
}

func hi(x float64) int32  { return int32(math.Float64bits(x) >> 32) }
func lo(x float64) uint32 { return uint32(math.Float64bits(x)) }

// zeroLo clears the low 32 bits of x (fdlibm's __LO(x) = 0).
func zeroLo(x float64) float64 { return math.Float64frombits(math.Float64bits(x) &^ 0xffffffff) }

const (
	invpio2 = 6.36619772367581382433e-01
	pio2_1  = 1.57079632673412561417e+00
	pio2_1t = 6.07710050650619224932e-11
	pio2_2  = 6.07710050630396597660e-11
	pio2_2t = 2.02226624879595063154e-21
	pio2_3  = 2.02226624871116645580e-21
	pio2_3t = 8.47842766036889956997e-32
)

// remPio2 is e_rem_pio2.c for |x| <= 2^19·π/2: x - n·π/2 as y0 + y1.
func remPio2(x float64) (int, float64, float64) {
	hx := hi(x)
	ix := hx & 0x7fffffff
	if ix < 0x4002d97c { // |x| < 3π/4
		if hx > 0 {
			z := x - pio2_1
			if ix != 0x3ff921fb {
				y0 := z - pio2_1t
				return 1, y0, (z - y0) - pio2_1t
			}
			z -= pio2_2
			y0 := z - pio2_2t
			return 1, y0, (z - y0) - pio2_2t
		}
		z := x + pio2_1
		if ix != 0x3ff921fb {
			y0 := z + pio2_1t
			return -1, y0, (z - y0) + pio2_1t
		}
		z += pio2_2
		y0 := z + pio2_2t
		return -1, y0, (z - y0) + pio2_2t
	}
	t := math.Abs(x)
	n := int(t*invpio2 + 0.5)
	fn := float64(n)
	r := t - fn*pio2_1
	w := fn * pio2_1t
	j := ix >> 20
	y0 := r - w
	if i := j - ((hi(y0) >> 20) & 0x7ff); i > 16 {
		t = r
		w = fn * pio2_2
		r = t - w
		w = fn*pio2_2t - ((t - r) - w)
		y0 = r - w
		if i = j - ((hi(y0) >> 20) & 0x7ff); i > 49 {
			t = r
			w = fn * pio2_3
			r = t - w
			w = fn*pio2_3t - ((t - r) - w)
			y0 = r - w
		}
	}
	y1 := (r - y0) - w
	if hx < 0 {
		return -n, -y0, -y1
	}
	return n, y0, y1
}

var tanT = [...]float64{
	3.33333333333334091986e-01,
	1.33333333333201242699e-01,
	5.39682539762260521377e-02,
	2.18694882948595424599e-02,
	8.86323982359930005737e-03,
	3.59207910759131235356e-03,
	1.45620945432529025516e-03,
	5.88041240820264096874e-04,
	2.46463134818469906812e-04,
	7.81794442939557092300e-05,
	7.14072491382608190305e-05,
	-1.85586374855275456654e-05,
	2.59073051863633712884e-05,
}

const (
	pio4   = 7.85398163397448278999e-01
	pio4lo = 3.06161699786838301793e-17
)

// kernelTan is k_tan.c: tan(x+y) for |x| <= π/4 when iy is 1, -1/tan
// when iy is -1.
func kernelTan(x, y float64, iy int) float64 {
	hx := hi(x)
	ix := hx & 0x7fffffff
	if ix < 0x3e300000 && int(x) == 0 { // |x| < 2^-28
		if (uint32(ix)|lo(x))|uint32(iy+1) == 0 {
			return 1 / math.Abs(x)
		}
		if iy == 1 {
			return x
		}
		w := x + y
		z := zeroLo(w)
		v := y - (z - x)
		a := -1 / w
		t := zeroLo(a)
		s := 1 + t*z
		return t + a*(s+t*v)
	}
	big := ix >= 0x3FE59428 // |x| >= 0.6744
	if big {
		if hx < 0 {
			x, y = -x, -y
		}
		z := pio4 - x
		w := pio4lo - y
		x = z + w
		y = 0
	}
	T := tanT
	z := x * x
	w := z * z
	r := T[1] + w*(T[3]+w*(T[5]+w*(T[7]+w*(T[9]+w*T[11]))))
	v := z * (T[2] + w*(T[4]+w*(T[6]+w*(T[8]+w*(T[10]+w*T[12])))))
	s := z * x
	r = y + z*(s*(r+v)+y)
	r += T[0] * s
	w = x + r
	if big {
		v = float64(iy)
		return float64(1-((hx>>30)&2)) * (v - 2.0*(x-(w*w/(w+v)-r)))
	}
	if iy == 1 {
		return w
	}
	z = zeroLo(w)
	v = r - (z - x)
	a := -1 / w
	t := zeroLo(a)
	s = 1 + t*z
	return t + a*(s+t*v)
}
