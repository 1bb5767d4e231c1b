package state

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// histogram is Spark's NumericHistogram (Ben-Haim and Tom-Tov's streaming
// histogram, from Hive): at most nbins bins sorted by x; a value equal to
// a bin's x raises it, else it becomes a bin of its own and the two
// closest bins merge into their weighted mean. Ties between equally close
// pairs are broken by java.util.Random seeded with 31183, as Spark's, so
// the bins agree with Spark's on one partition; rng is that generator's
// state, kept in the snapshot.
type histogram struct {
	bins []histBin
	rng  int64
}

type histBin struct{ x, y float64 }

const (
	javaRandMultiplier = 0x5DEECE66D
	javaRandMask       = 1<<48 - 1
)

// newHistogram is a histogram with Spark's seed: new Random(31183).
func newHistogram() histogram { return histogram{rng: (31183 ^ javaRandMultiplier) & javaRandMask} }

// next is java.util.Random.next(bits).
func (h *histogram) next(bits uint) int64 {
	h.rng = (h.rng*javaRandMultiplier + 0xB) & javaRandMask
	return int64(int32(h.rng >> (48 - bits)))
}

// nextDouble is java.util.Random.nextDouble.
func (h *histogram) nextDouble() float64 {
	return float64(h.next(26)<<27+h.next(27)) * (1.0 / (1 << 53))
}

// add is NumericHistogram.add.
func (h *histogram) add(v float64, nbins int) {
	bin := 0
	for l, r := 0, len(h.bins); l < r; {
		bin = (l + r) / 2
		if h.bins[bin].x > v {
			r = bin
		} else if h.bins[bin].x < v {
			bin++
			l = bin
		} else {
			break
		}
	}
	if bin < len(h.bins) && h.bins[bin].x == v {
		h.bins[bin].y++
		return
	}
	h.bins = append(h.bins, histBin{})
	copy(h.bins[bin+1:], h.bins[bin:])
	h.bins[bin] = histBin{x: v, y: 1}
	if len(h.bins) > nbins {
		h.trim(nbins)
	}
}

// trim is NumericHistogram.trim: merge the closest pairs until nbins are
// left, choosing uniformly among equally close pairs.
func (h *histogram) trim(nbins int) {
	for len(h.bins) > nbins {
		smallest := h.bins[1].x - h.bins[0].x
		loc, count := 0, 1
		for i := 1; i < len(h.bins)-1; i++ {
			diff := h.bins[i+1].x - h.bins[i].x
			if diff < smallest {
				smallest, loc, count = diff, i, 1
			} else if diff == smallest {
				count++
				if h.nextDouble() <= 1.0/float64(count) {
					loc = i
				}
			}
		}
		d := h.bins[loc].y + h.bins[loc+1].y
		b := &h.bins[loc]
		b.x *= b.y / d
		b.x += h.bins[loc+1].x / d * h.bins[loc+1].y
		b.y = d
		h.bins = append(h.bins[:loc+1], h.bins[loc+2:]...)
	}
}

// newHistogramAcc is histogram_numeric: NULL for no values, else the
// bins, x converted back to the input's type as Spark does (toInt,
// toLong: truncation).
func newHistogramAcc(a *expr.BoundAgg) accumulator {
	nbins := a.Opts.Bins
	return &slotAcc[histogram]{
		fresh:    newHistogram,
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *histogram, i int), error) {
			val, err := exactPercentileValues(arg)
			if err != nil {
				return nil, err
			}
			return func(s *histogram, i int) { s.add(val(i), nbins) }, nil
		},
		result: func(b array.Builder, s *histogram) {
			if len(s.bins) == 0 {
				b.AppendNull()
				return
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			for _, bin := range s.bins {
				sb.Append(true)
				appendHistX(sb.FieldBuilder(0), bin.x)
				sb.FieldBuilder(1).(*array.Float64Builder).Append(bin.y)
			}
		},
		encode: func(s *histogram) []byte {
			out := binary.LittleEndian.AppendUint64(nil, uint64(s.rng))
			for _, bin := range s.bins {
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(bin.x))
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(bin.y))
			}
			return out
		},
		decode: func(b []byte) (histogram, error) {
			if len(b) < 8 || (len(b)-8)%16 != 0 {
				return histogram{}, errors.New("histogram_numeric: corrupt state")
			}
			h := histogram{rng: int64(binary.LittleEndian.Uint64(b))}
			for i := 8; i < len(b); i += 16 {
				h.bins = append(h.bins, histBin{
					x: math.Float64frombits(binary.LittleEndian.Uint64(b[i:])),
					y: math.Float64frombits(binary.LittleEndian.Uint64(b[i+8:])),
				})
			}
			return h, nil
		},
	}
}

// appendHistX appends a bin's x as the input's type.
func appendHistX(b array.Builder, x float64) {
	switch xb := b.(type) {
	case *array.Float64Builder:
		xb.Append(x)
	case *array.Float32Builder:
		xb.Append(float32(x))
	case *array.TimestampBuilder:
		xb.Append(arrow.Timestamp(int64(x)))
	case *array.DurationBuilder:
		xb.Append(arrow.Duration(int64(x)))
	case *array.Date32Builder:
		xb.Append(arrow.Date32(int32(x)))
	default:
		appendIntTo(b, int64(x))
	}
}
