package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The accumulators of Spark's boolean, bitwise and statistical aggregates
// beyond count/sum/avg/stddev: each keeps a small fixed state per group,
// encoded into accState.B like accum_more.go's, and updates it term for
// term as Spark's DeclarativeAggregate does, so results agree to the last
// digit on one partition.

// floatsCodec encodes a fixed number of float64s.
func encodeFloats(fs ...float64) []byte {
	out := make([]byte, 0, 8*len(fs))
	for _, f := range fs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(f))
	}
	return out
}

func decodeFloats(b []byte, n int, what string) ([]float64, error) {
	if len(b) != 8*n {
		return nil, fmt.Errorf("%s: corrupt state of %d bytes", what, len(b))
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out, nil
}

// boolAgg is bool_and/bool_or's state: 0 no value yet, 1 false, 2 true.
type boolAgg int8

func newBoolAcc(and bool) accumulator {
	return &slotAcc[boolAgg]{
		fresh:    func() boolAgg { return 0 },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *boolAgg, i int), error) {
			if arg.DataType().ID() == arrow.NULL {
				return func(*boolAgg, int) {}, nil
			}
			b, ok := arg.(*array.Boolean)
			if !ok {
				return nil, fmt.Errorf("expected a boolean column, got %s", arg.DataType())
			}
			return func(s *boolAgg, i int) {
				v := b.Value(i)
				switch {
				case *s == 0:
				case and:
					v = v && *s == 2
				default:
					v = v || *s == 2
				}
				*s = 1
				if v {
					*s = 2
				}
			}, nil
		},
		result: func(b array.Builder, s *boolAgg) {
			if *s == 0 {
				b.AppendNull()
				return
			}
			b.(*array.BooleanBuilder).Append(*s == 2)
		},
		encode: func(s *boolAgg) []byte { return []byte{byte(*s)} },
		decode: func(b []byte) (boolAgg, error) {
			if len(b) != 1 || b[0] > 2 {
				return 0, errors.New("bool_and/bool_or: corrupt state")
			}
			return boolAgg(b[0]), nil
		},
	}
}

// newCountIfAcc counts the rows where the condition is true.
func newCountIfAcc() accumulator {
	return &slotAcc[int64]{
		fresh:    func() int64 { return 0 },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *int64, i int), error) {
			if arg.DataType().ID() == arrow.NULL {
				return func(*int64, int) {}, nil
			}
			b, ok := arg.(*array.Boolean)
			if !ok {
				return nil, fmt.Errorf("expected a boolean column, got %s", arg.DataType())
			}
			return func(s *int64, i int) {
				if b.Value(i) {
					*s++
				}
			}, nil
		},
		result: func(b array.Builder, s *int64) { b.(*array.Int64Builder).Append(*s) },
		encode: func(s *int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(*s)) },
		decode: func(b []byte) (int64, error) {
			if len(b) != 8 {
				return 0, errors.New("count_if: corrupt state")
			}
			return int64(binary.LittleEndian.Uint64(b)), nil
		},
	}
}

// bitAgg is bit_and/bit_or/bit_xor's state.
type bitAgg struct {
	set bool
	v   int64
}

func newBitAcc(fn string) accumulator {
	return &slotAcc[bitAgg]{
		fresh:    func() bitAgg { return bitAgg{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *bitAgg, i int), error) {
			val, err := int64Values(arg)
			if err != nil {
				return nil, err
			}
			return func(s *bitAgg, i int) {
				x := val(i)
				switch {
				case !s.set:
					s.v = x
				case fn == "bit_and":
					s.v &= x
				case fn == "bit_or":
					s.v |= x
				default:
					s.v ^= x
				}
				s.set = true
			}, nil
		},
		result: func(b array.Builder, s *bitAgg) {
			if !s.set {
				b.AppendNull()
				return
			}
			appendIntTo(b, s.v)
		},
		encode: func(s *bitAgg) []byte {
			if !s.set {
				return nil
			}
			return binary.LittleEndian.AppendUint64(nil, uint64(s.v))
		},
		decode: func(b []byte) (bitAgg, error) {
			switch len(b) {
			case 0:
				return bitAgg{}, nil
			case 8:
				return bitAgg{set: true, v: int64(binary.LittleEndian.Uint64(b))}, nil
			}
			return bitAgg{}, errors.New("bit aggregate: corrupt state")
		},
	}
}

// appendIntTo appends v to an integer builder of any width.
func appendIntTo(b array.Builder, v int64) {
	switch x := b.(type) {
	case *array.Int64Builder:
		x.Append(v)
	case *array.Int32Builder:
		x.Append(int32(v))
	case *array.Int16Builder:
		x.Append(int16(v))
	case *array.Int8Builder:
		x.Append(int8(v))
	}
}

// highMoments is CentralMomentAgg's buffer up to the fourth moment.
type highMoments struct{ n, avg, m2, m3, m4 float64 }

// newHighMomentAcc is skewness (or kurtosis): CentralMomentAgg with
// momentOrder 3 (4), updated as Spark's updateExpressions.
func newHighMomentAcc(kurtosis bool) accumulator {
	return &slotAcc[highMoments]{
		fresh:    func() highMoments { return highMoments{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *highMoments, i int), error) {
			val, err := float64Values(arg)
			if err != nil {
				return nil, err
			}
			return func(s *highMoments, i int) {
				x := val(i)
				newN := s.n + 1
				delta := x - s.avg
				deltaN := delta / newN
				newAvg := s.avg + deltaN
				newM2 := s.m2 + delta*(delta-deltaN)
				delta2 := delta * delta
				deltaN2 := deltaN * deltaN
				newM3 := s.m3 - 3.0*deltaN*newM2 + delta*(delta2-deltaN2)
				newM4 := s.m4 - 4.0*deltaN*newM3 - 6.0*deltaN2*newM2 + delta*(delta*delta2-deltaN*deltaN2)
				*s = highMoments{newN, newAvg, newM2, newM3, newM4}
			}, nil
		},
		result: func(b array.Builder, s *highMoments) {
			if s.n == 0 || s.m2 == 0 {
				b.AppendNull()
				return
			}
			if kurtosis {
				b.(*array.Float64Builder).Append(s.n*s.m4/(s.m2*s.m2) - 3.0)
				return
			}
			b.(*array.Float64Builder).Append(math.Sqrt(s.n) * s.m3 / math.Sqrt(s.m2*s.m2*s.m2))
		},
		encode: func(s *highMoments) []byte { return encodeFloats(s.n, s.avg, s.m2, s.m3, s.m4) },
		decode: func(b []byte) (highMoments, error) {
			f, err := decodeFloats(b, 5, "skewness/kurtosis")
			if err != nil {
				return highMoments{}, err
			}
			return highMoments{f[0], f[1], f[2], f[3], f[4]}, nil
		},
	}
}

// pairStats is the buffer of Spark's Covariance, PearsonCorrelation and
// CentralMomentAgg over the rows where both arguments are set, a the
// first (y) and b the second (x): the count, the means, the co-moments
// Covariance(a, b) and Covariance(b, a) accumulate (they round
// differently), PearsonCorrelation's aMk and bMk, CentralMomentAgg's m2
// of each, and the plain sums (Average divides a sum).
type pairStats struct {
	n, aAvg, bAvg, ckAB, ckBA, aMk, bMk, m2A, m2B, aSum, bSum float64
}

const pairFields = 11

func (s *pairStats) fields() []*float64 {
	return []*float64{&s.n, &s.aAvg, &s.bAvg, &s.ckAB, &s.ckBA, &s.aMk, &s.bMk, &s.m2A, &s.m2B, &s.aSum, &s.bSum}
}

// add folds one pair in, each term as Spark's updateExpressions write it.
func (s *pairStats) add(a, b float64) {
	newN := s.n + 1
	da := a - s.aAvg
	daN := da / newN
	db := b - s.bAvg
	dbN := db / newN
	newAAvg := s.aAvg + daN
	newBAvg := s.bAvg + dbN
	s.ckAB += da * (b - newBAvg)
	s.ckBA += db * (a - newAAvg)
	s.aMk += da * (a - newAAvg)
	s.bMk += db * (b - newBAvg)
	s.m2A += da * (da - daN)
	s.m2B += db * (db - dbN)
	s.n, s.aAvg, s.bAvg = newN, newAAvg, newBAvg
	s.aSum += a
	s.bSum += b
}

// newPairAcc is corr, covar_pop, covar_samp and the regr_* functions over
// a struct column {y, x}.
func newPairAcc(fn string) accumulator {
	return &slotAcc[pairStats]{
		fresh:    func() pairStats { return pairStats{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *pairStats, i int), error) {
			st, ok := arg.(*array.Struct)
			if !ok || st.NumField() != 2 {
				return nil, fmt.Errorf("%s: expected a (y, x) struct, got %s", fn, arg.DataType())
			}
			as, bs := st.Field(0), st.Field(1)
			if as.DataType().ID() == arrow.NULL || bs.DataType().ID() == arrow.NULL {
				return func(*pairStats, int) {}, nil
			}
			av, err := float64Values(as)
			if err != nil {
				return nil, err
			}
			bv, err := float64Values(bs)
			if err != nil {
				return nil, err
			}
			return func(s *pairStats, i int) {
				if !as.IsNull(i) && !bs.IsNull(i) {
					s.add(av(i), bv(i))
				}
			}, nil
		},
		result: func(b array.Builder, s *pairStats) {
			if fn == "regr_count" {
				b.(*array.Int64Builder).Append(int64(s.n))
				return
			}
			v, ok := pairResult(fn, s)
			if !ok {
				b.AppendNull()
				return
			}
			b.(*array.Float64Builder).Append(v)
		},
		encode: func(s *pairStats) []byte {
			fs := make([]float64, 0, pairFields)
			for _, f := range s.fields() {
				fs = append(fs, *f)
			}
			return encodeFloats(fs...)
		},
		decode: func(b []byte) (pairStats, error) {
			f, err := decodeFloats(b, pairFields, fn)
			if err != nil {
				return pairStats{}, err
			}
			var s pairStats
			for i, p := range s.fields() {
				*p = f[i]
			}
			return s, nil
		},
	}
}

// pairResult evaluates fn as Spark's evaluateExpression does; ok is false
// for NULL (no rows, or a division by zero, as Spark 3+ without
// spark.sql.legacy.statisticalAggregate). corr and covar_* are
// PearsonCorrelation and Covariance of (a, b); regr_r2 PearsonCorrelation
// of (y, x); regr_sxy Covariance(y, x); regr_sxx and regr_syy
// CentralMomentAgg of x and y; regr_slope and regr_intercept
// Covariance(x, y) over VariancePop(x).
func pairResult(fn string, s *pairStats) (float64, bool) {
	if s.n == 0 {
		return 0, false
	}
	switch fn {
	case "corr":
		if s.n == 1 {
			return 0, false
		}
		return s.ckAB / math.Sqrt(s.aMk*s.bMk), true
	case "covar_pop":
		return s.ckAB / s.n, true
	case "covar_samp":
		if s.n == 1 {
			return 0, false
		}
		return s.ckAB / (s.n - 1), true
	case "regr_avgx":
		return s.bSum / s.n, true
	case "regr_avgy":
		return s.aSum / s.n, true
	case "regr_sxx":
		return s.m2B, true
	case "regr_syy":
		return s.m2A, true
	case "regr_sxy":
		return s.ckAB, true
	case "regr_slope":
		if s.m2B == 0 {
			return 0, false
		}
		return s.ckBA / s.m2B, true
	case "regr_intercept":
		if s.m2B == 0 {
			return 0, false
		}
		return s.aAvg - s.ckBA/s.m2B*s.bAvg, true
	case "regr_r2":
		if s.aMk == 0 {
			return 0, false
		}
		if s.bMk == 0 {
			return 1, true
		}
		c := s.ckAB / math.Sqrt(s.aMk*s.bMk)
		return c * c, true
	}
	return 0, false
}

// listAgg is string_agg/listagg's state: the values in input order (and,
// with DISTINCT, only the first of equal ones).
type listAgg struct {
	vals []string
	seen map[string]bool
}

func newListAggAcc(sep string, distinct bool) accumulator {
	return &slotAcc[listAgg]{
		fresh:    func() listAgg { return listAgg{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *listAgg, i int), error) {
			if arg.DataType().ID() == arrow.NULL {
				return func(*listAgg, int) {}, nil
			}
			str, ok := arg.(*array.String)
			if !ok {
				return nil, fmt.Errorf("listagg: expected a string column, got %s", arg.DataType())
			}
			return func(s *listAgg, i int) {
				v := str.Value(i)
				if distinct {
					if s.seen[v] {
						return
					}
					if s.seen == nil {
						s.seen = map[string]bool{}
					}
					s.seen[v] = true
				}
				s.vals = append(s.vals, v)
			}, nil
		},
		result: func(b array.Builder, s *listAgg) {
			if len(s.vals) == 0 {
				b.AppendNull()
				return
			}
			b.(*array.StringBuilder).Append(strings.Join(s.vals, sep))
		},
		encode: func(s *listAgg) []byte { return encodeStrings(s.vals) },
		decode: func(b []byte) (listAgg, error) {
			vals, err := decodeStrings(b)
			if err != nil {
				return listAgg{}, err
			}
			s := listAgg{vals: vals}
			if distinct {
				s.seen = map[string]bool{}
				for _, v := range vals {
					s.seen[v] = true
				}
			}
			return s, nil
		},
	}
}
