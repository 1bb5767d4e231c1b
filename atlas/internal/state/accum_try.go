package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// trySum is one group of try_sum (or try_avg of decimals): Spark's TrySum
// and TryAverage, which return NULL where sum and avg fail with
// ARITHMETIC_OVERFLOW or NUMERIC_VALUE_OUT_OF_RANGE. Once the running sum
// overflowed the group stays NULL, whatever comes after.
type trySum struct {
	state uint8 // trySumEmpty, trySumValue or trySumOverflow
	n     int64 // the values summed (try_avg's divisor)
	i     int64
	f     float64
	d     *big.Int
}

const (
	trySumEmpty uint8 = iota
	trySumValue
	trySumOverflow
)

// trySumKind is how a try_sum adds: bigint (checked), double or decimal.
type trySumKind int

const (
	trySumInt trySumKind = iota
	trySumFloat
	trySumDecimal
)

// newTrySumAcc is try_sum of integers, doubles or decimals, or try_avg of
// decimals (try_avg of the others is avg: it sums doubles).
func newTrySumAcc(a *expr.BoundAgg) accumulator {
	kind, sumType, avgType := trySumInt, (*arrow.Decimal128Type)(nil), (*arrow.Decimal128Type)(nil)
	switch t := a.Type.(type) {
	case *arrow.Decimal128Type:
		kind, sumType = trySumDecimal, t
		if a.Fn == "try_avg" {
			in := a.Arg.Type().(*arrow.Decimal128Type)
			sumType, avgType = types.DecimalBounded(in.Precision+10, in.Scale), t
		}
	case *arrow.Float64Type:
		kind = trySumFloat
	}
	return &slotAcc[trySum]{
		fresh:    func() trySum { return trySum{} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *trySum, i int), error) {
			return trySumReader(arg, kind, sumType)
		},
		result: func(b array.Builder, s *trySum) { trySumResult(b, s, kind, sumType, avgType) },
		encode: func(s *trySum) []byte { return encodeTrySum(s, kind) },
		decode: func(b []byte) (trySum, error) { return decodeTrySum(b, kind) },
	}
}

func trySumReader(arg arrow.Array, kind trySumKind, sumType *arrow.Decimal128Type) (func(s *trySum, i int), error) {
	if arg.DataType().ID() == arrow.NULL {
		return func(*trySum, int) {}, nil
	}
	switch kind {
	case trySumDecimal:
		d, ok := arg.(*array.Decimal128)
		if !ok {
			return nil, fmt.Errorf("expected a decimal column, got %s", arg.DataType())
		}
		return func(s *trySum, i int) {
			s.n++
			x := d.Value(i).BigInt()
			switch s.state {
			case trySumEmpty:
				s.state, s.d = trySumValue, x
			case trySumValue:
				if expr.DecimalSum(s.d, x, sumType) != nil {
					s.state, s.d = trySumOverflow, nil
				}
			}
		}, nil
	case trySumFloat:
		val, err := float64Values(arg)
		if err != nil {
			return nil, err
		}
		return func(s *trySum, i int) {
			s.n++
			s.f += val(i)
			s.state = trySumValue
		}, nil
	}
	val, err := int64Values(arg)
	if err != nil {
		return nil, err
	}
	return func(s *trySum, i int) {
		s.n++
		x := val(i)
		switch s.state {
		case trySumEmpty:
			s.state, s.i = trySumValue, x
		case trySumValue:
			sum := s.i + x
			if (s.i >= 0) == (x >= 0) && (sum >= 0) != (x >= 0) {
				s.state = trySumOverflow
				return
			}
			s.i = sum
		}
	}, nil
}

func trySumResult(b array.Builder, s *trySum, kind trySumKind, sumType, avgType *arrow.Decimal128Type) {
	if s.state != trySumValue {
		b.AppendNull()
		return
	}
	switch kind {
	case trySumInt:
		b.(*array.Int64Builder).Append(s.i)
	case trySumFloat:
		b.(*array.Float64Builder).Append(s.f)
	default:
		v := decimal128.FromBigInt(s.d)
		if avgType != nil {
			var err error
			if v, err = expr.DecimalAverage(s.d, sumType, s.n, avgType); err != nil {
				b.AppendNull()
				return
			}
		}
		b.(*array.Decimal128Builder).Append(v)
	}
}

// encodeTrySum writes the state byte, the count and the sum (8 bytes, or
// the decimal's digits).
func encodeTrySum(s *trySum, kind trySumKind) []byte {
	out := []byte{s.state}
	out = binary.LittleEndian.AppendUint64(out, uint64(s.n))
	switch kind {
	case trySumDecimal:
		if s.d != nil {
			out = append(out, s.d.String()...)
		}
		return out
	case trySumFloat:
		return binary.LittleEndian.AppendUint64(out, math.Float64bits(s.f))
	}
	return binary.LittleEndian.AppendUint64(out, uint64(s.i))
}

func decodeTrySum(b []byte, kind trySumKind) (trySum, error) {
	if len(b) < 9 || b[0] > trySumOverflow {
		return trySum{}, errors.New("try_sum: corrupt state")
	}
	s := trySum{state: b[0], n: int64(binary.LittleEndian.Uint64(b[1:]))}
	rest := b[9:]
	if kind == trySumDecimal {
		if s.state == trySumValue {
			d, ok := new(big.Int).SetString(string(rest), 10)
			if !ok {
				return trySum{}, fmt.Errorf("try_sum: bad decimal state %q", rest)
			}
			s.d = d
		}
		return s, nil
	}
	if len(rest) != 8 {
		return trySum{}, errors.New("try_sum: corrupt state")
	}
	u := binary.LittleEndian.Uint64(rest)
	if kind == trySumFloat {
		s.f = math.Float64frombits(u)
	} else {
		s.i = int64(u)
	}
	return s, nil
}
