package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/axiomhq/hyperloglog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// The accumulators here keep one value of type S per group (a sketch, a
// list of collected values, moments), saved as one encoded []byte per
// group in accState.B, so their state is checkpointed and restored like
// every other aggregate's.
//
// approx_count_distinct uses github.com/axiomhq/hyperloglog: a
// maintained HyperLogLog with a sparse representation for small counts
// and LogLog-Beta bias correction, at the precision Spark derives from rsd
// (expr.HLLPrecision). Its estimates are not Spark's bit for bit (Spark's
// HLL++ hashes with XxHash64 and corrects with empirical bias tables),
// but their standard error is at most Spark's rsd: 1.04/sqrt(2^p) <=
// 1.106/sqrt(2^p) <= rsd. percentile_approx is Spark's own algorithm
// (Greenwald-Khanna, quantile.go), not a t-digest: Spark guarantees a rank
// error of at most n/accuracy and a result that is one of the input
// values, which t-digest (influxdata, caio) does not.

// slotAcc is an accumulator with one S per group.
type slotAcc[S any] struct {
	v []S
	// fresh is the state of a group without rows.
	fresh func() S
	// reader prepares one batch: it returns a function that folds row i of
	// arg into s.
	reader func(arg arrow.Array) (func(s *S, i int), error)
	// skipNull leaves null values out (every function but first/last
	// without ignoreNulls).
	skipNull bool
	result   func(b array.Builder, s *S)
	encode   func(s *S) []byte
	decode   func(b []byte) (S, error)
}

func (c *slotAcc[S]) grow(n int) {
	for len(c.v) < n {
		c.v = append(c.v, c.fresh())
	}
}

func (c *slotAcc[S]) update(arg arrow.Array, rows, gids []int32) error {
	fold, err := c.reader(arg)
	if err != nil {
		return err
	}
	for k, g := range gids {
		i := int(rows[k])
		if c.skipNull && arg.IsNull(i) {
			continue
		}
		fold(&c.v[g], i)
	}
	return nil
}

func (c *slotAcc[S]) appendResult(b array.Builder, g int32) { c.result(b, &c.v[g]) }
func (c *slotAcc[S]) move(to, from int32)                   { c.v[to] = c.v[from] }
func (c *slotAcc[S]) truncate(n int) {
	var zero S
	for i := n; i < len(c.v); i++ {
		c.v[i] = zero
	}
	c.v = c.v[:n]
}

func (c *slotAcc[S]) save() accState {
	out := make([][]byte, len(c.v))
	for i := range c.v {
		out[i] = c.encode(&c.v[i])
	}
	return accState{B: out}
}

func (c *slotAcc[S]) load(s accState) error {
	c.v = make([]S, len(s.B))
	for i, b := range s.B {
		v, err := c.decode(b)
		if err != nil {
			return fmt.Errorf("group %d: %w", i, err)
		}
		c.v[i] = v
	}
	return nil
}

// newMoreAccumulator builds the accumulators of accum_more.go; ok is
// false for a function it does not know.
func newMoreAccumulator(a *expr.BoundAgg) (accumulator, bool, error) {
	switch a.Fn {
	case "approx_count_distinct":
		acc, err := newHLLAcc(uint8(expr.HLLPrecision(a.Opts.RSD)))
		return acc, true, err
	case "count_distinct":
		return newSetAcc(true), true, nil
	case "collect_set":
		return newSetAcc(false), true, nil
	case "collect_list":
		return newListAcc(), true, nil
	case "first", "last":
		return newPickAcc(a.Fn == "last", a.Opts.IgnoreNulls), true, nil
	case "percentile_approx":
		return newPercentileAcc(a), true, nil
	case "stddev_samp", "stddev_pop", "var_samp", "var_pop":
		return newMomentAcc(a.Fn), true, nil
	case "skewness", "kurtosis":
		return newHighMomentAcc(a.Fn == "kurtosis"), true, nil
	case "bool_and", "bool_or":
		return newBoolAcc(a.Fn == "bool_and"), true, nil
	case "count_if":
		return newCountIfAcc(), true, nil
	case "bit_and", "bit_or", "bit_xor":
		return newBitAcc(a.Fn), true, nil
	case "listagg":
		if a.Opts.Ordered {
			return newOrderedListAggAcc(a), true, nil
		}
		return newListAggAcc(a.Opts.Separator, a.Opts.Distinct), true, nil
	case "mode":
		return newModeAcc(a), true, nil
	case "percentile", "median", "percentile_cont", "percentile_disc":
		return newExactPercentileAcc(a), true, nil
	case "max_by", "min_by":
		return newByAcc(a), true, nil
	case "histogram_numeric":
		return newHistogramAcc(a), true, nil
	case "bitmap_construct_agg", "bitmap_or_agg", "bitmap_and_agg", "bitmap_xor_agg":
		return newBitmapAcc(a.Fn), true, nil
	case "corr", "covar_pop", "covar_samp", "regr_count", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "regr_slope", "regr_intercept", "regr_r2":
		return newPairAcc(a.Fn), true, nil
	}
	return nil, false, nil
}

// encodedReader returns the state encoding of row i (keys.go): a marker
// byte (0 null, 1 value) and the value.
func encodedReader(arg arrow.Array) (func(buf []byte, i int) []byte, error) {
	if arg.DataType().ID() == arrow.NULL {
		return func(buf []byte, _ int) []byte { return append(buf, 0) }, nil
	}
	enc, err := newKeyEncoder(arg)
	if err != nil {
		return nil, err
	}
	return func(buf []byte, i int) []byte { return enc(buf, i) }, nil
}

// decodeValue appends one encoded value to b.
func decodeValue(b array.Builder, v string) {
	if _, err := appendKey(b, v, 0); err != nil {
		b.AppendNull()
	}
}

// hllAcc is approx_count_distinct.
func newHLLAcc(p uint8) (accumulator, error) {
	if _, err := hyperloglog.NewSketch(p, true); err != nil {
		return nil, fmt.Errorf("approx_count_distinct: precision %d: %w", p, err)
	}
	var buf []byte
	return &slotAcc[*hyperloglog.Sketch]{
		fresh: func() *hyperloglog.Sketch {
			sk, _ := hyperloglog.NewSketch(p, true)
			return sk
		},
		skipNull: true,
		reader: func(arg arrow.Array) (func(s **hyperloglog.Sketch, i int), error) {
			enc, err := encodedReader(arg)
			if err != nil {
				return nil, err
			}
			return func(s **hyperloglog.Sketch, i int) {
				buf = enc(buf[:0], i)
				(*s).Insert(buf)
			}, nil
		},
		result: func(b array.Builder, s **hyperloglog.Sketch) {
			b.(*array.Int64Builder).Append(int64((*s).Estimate()))
		},
		encode: func(s **hyperloglog.Sketch) []byte {
			data, err := (*s).MarshalBinary()
			if err != nil {
				return nil
			}
			return data
		},
		decode: func(b []byte) (*hyperloglog.Sketch, error) {
			sk, _ := hyperloglog.NewSketch(p, true)
			if err := sk.UnmarshalBinary(b); err != nil {
				return nil, fmt.Errorf("approx_count_distinct sketch: %w", err)
			}
			return sk, nil
		},
	}, nil
}

// valueSet is the distinct values of a group in first-seen order.
type valueSet struct {
	seen  map[string]struct{}
	order []string
}

func newSetAcc(count bool) accumulator {
	var buf []byte
	return &slotAcc[valueSet]{
		fresh:    func() valueSet { return valueSet{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *valueSet, i int), error) {
			enc, err := encodedReader(arg)
			if err != nil {
				return nil, err
			}
			return func(s *valueSet, i int) {
				buf = enc(buf[:0], i)
				if _, ok := s.seen[string(buf)]; ok {
					return
				}
				if s.seen == nil {
					s.seen = map[string]struct{}{}
				}
				v := string(buf)
				s.seen[v] = struct{}{}
				s.order = append(s.order, v)
			}, nil
		},
		result: func(b array.Builder, s *valueSet) {
			if count {
				b.(*array.Int64Builder).Append(int64(len(s.order)))
				return
			}
			appendList(b, s.order)
		},
		encode: func(s *valueSet) []byte { return encodeStrings(s.order) },
		decode: func(b []byte) (valueSet, error) {
			order, err := decodeStrings(b)
			if err != nil {
				return valueSet{}, err
			}
			s := valueSet{order: order, seen: make(map[string]struct{}, len(order))}
			for _, v := range order {
				s.seen[v] = struct{}{}
			}
			return s, nil
		},
	}
}

func newListAcc() accumulator {
	var buf []byte
	return &slotAcc[[]string]{
		fresh:    func() []string { return nil },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *[]string, i int), error) {
			enc, err := encodedReader(arg)
			if err != nil {
				return nil, err
			}
			return func(s *[]string, i int) {
				buf = enc(buf[:0], i)
				*s = append(*s, string(buf))
			}, nil
		},
		result: func(b array.Builder, s *[]string) { appendList(b, *s) },
		encode: func(s *[]string) []byte { return encodeStrings(*s) },
		decode: decodeStrings,
	}
}

// appendList appends one list of encoded values (collect_list and
// collect_set never return null: a group without values gets []).
func appendList(b array.Builder, vals []string) {
	lb := b.(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder()
	for _, v := range vals {
		decodeValue(vb, v)
	}
}

// picked is first's or last's value: set once a row was taken.
type picked struct {
	set bool
	v   string
}

func newPickAcc(last, ignoreNulls bool) accumulator {
	var buf []byte
	return &slotAcc[picked]{
		fresh:    func() picked { return picked{} },
		skipNull: ignoreNulls,
		reader: func(arg arrow.Array) (func(s *picked, i int), error) {
			enc, err := encodedReader(arg)
			if err != nil {
				return nil, err
			}
			return func(s *picked, i int) {
				if s.set && !last {
					return
				}
				buf = enc(buf[:0], i)
				s.set, s.v = true, string(buf)
			}, nil
		},
		result: func(b array.Builder, s *picked) {
			if !s.set {
				b.AppendNull()
				return
			}
			decodeValue(b, s.v)
		},
		encode: func(s *picked) []byte {
			if !s.set {
				return nil
			}
			return append([]byte{1}, s.v...)
		},
		decode: func(b []byte) (picked, error) {
			if len(b) == 0 {
				return picked{}, nil
			}
			return picked{set: true, v: string(b[1:])}, nil
		},
	}
}

// moments are Spark's CentralMomentAgg buffer: count, mean and the sum of
// squared differences from the mean (Welford's update).
type moments struct{ n, avg, m2 float64 }

func newMomentAcc(fn string) accumulator {
	return &slotAcc[moments]{
		fresh:    func() moments { return moments{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *moments, i int), error) {
			val, err := float64Values(arg)
			if err != nil {
				return nil, err
			}
			return func(s *moments, i int) {
				// CentralMomentAgg.updateExpressions, term for term, so
				// the last digits match Spark's in one partition.
				x := val(i)
				newN := s.n + 1
				delta := x - s.avg
				deltaN := delta / newN
				s.n, s.avg, s.m2 = newN, s.avg+deltaN, s.m2+delta*(delta-deltaN)
			}, nil
		},
		result: func(b array.Builder, s *moments) {
			// Spark 3+: an empty group is null, and so is a sample
			// statistic of one row (division by zero).
			var v float64
			switch fn {
			case "stddev_samp", "var_samp":
				if s.n <= 1 {
					b.AppendNull()
					return
				}
				v = s.m2 / (s.n - 1)
			default:
				if s.n == 0 {
					b.AppendNull()
					return
				}
				v = s.m2 / s.n
			}
			if fn == "stddev_samp" || fn == "stddev_pop" {
				v = math.Sqrt(v)
			}
			b.(*array.Float64Builder).Append(v)
		},
		encode: func(s *moments) []byte {
			out := make([]byte, 0, 24)
			for _, f := range []float64{s.n, s.avg, s.m2} {
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(f))
			}
			return out
		},
		decode: func(b []byte) (moments, error) {
			if len(b) != 24 {
				return moments{}, errors.New("moments: corrupt state")
			}
			f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])) }
			return moments{n: f(0), avg: f(1), m2: f(2)}, nil
		},
	}
}

// encodeStrings writes a list of byte strings, each with a 4-byte length.
func encodeStrings(vals []string) []byte {
	n := 4
	for _, v := range vals {
		n += 4 + len(v)
	}
	out := make([]byte, 0, n)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(vals)))
	for _, v := range vals {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
	}
	return out
}

func decodeStrings(b []byte) ([]string, error) {
	if len(b) < 4 {
		return nil, errors.New("value list: corrupt state")
	}
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	out := make([]string, 0, n)
	for range n {
		if len(b) < 4 {
			return nil, errors.New("value list: corrupt state")
		}
		l := int(binary.LittleEndian.Uint32(b))
		if len(b) < 4+l {
			return nil, errors.New("value list: corrupt state")
		}
		out = append(out, string(b[4:4+l]))
		b = b[4+l:]
	}
	return out, nil
}
