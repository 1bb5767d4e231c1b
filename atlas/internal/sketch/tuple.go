package sketch

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Mode is how a tuple sketch combines the summaries of one key: Spark's
// 'sum', 'min', 'max' and 'alwaysone'.
type Mode byte

// The summary modes.
const (
	ModeSum Mode = iota
	ModeMin
	ModeMax
	ModeAlwaysOne
)

// ParseMode reads a mode name (lower case, as Spark requires).
func ParseMode(fn, s string) (Mode, error) {
	switch s {
	case "sum":
		return ModeSum, nil
	case "min":
		return ModeMin, nil
	case "max":
		return ModeMax, nil
	case "alwaysone":
		return ModeAlwaysOne, nil
	}
	return 0, fmt.Errorf("[TUPLE_INVALID_SKETCH_MODE] Invalid call to %s; the `mode` value must be one of 'sum', 'min', 'max', 'alwaysone': '%s'. SQLSTATE: 22546", fn, s)
}

// CombineDouble merges two double summaries by mode.
func (m Mode) CombineDouble(a, b float64) float64 {
	switch m {
	case ModeMin:
		return math.Min(a, b)
	case ModeMax:
		return math.Max(a, b)
	case ModeAlwaysOne:
		return 1
	}
	return a + b
}

// CombineInteger merges two integer summaries by mode. They are 32-bit,
// as DataSketches' IntegerSummary: a sum wraps around as Java's int.
func (m Mode) CombineInteger(a, b int32) int32 {
	switch m {
	case ModeMin:
		return min(a, b)
	case ModeMax:
		return max(a, b)
	case ModeAlwaysOne:
		return 1
	}
	return a + b
}

// InitialDouble is a new summary before any value (DataSketches'
// DoubleSummary: 0 for sum, +Inf for min, -Inf for max, 1 for alwaysone);
// a theta sketch's keys get it in a union with a tuple sketch.
func (m Mode) InitialDouble() float64 {
	switch m {
	case ModeMin:
		return math.Inf(1)
	case ModeMax:
		return math.Inf(-1)
	case ModeAlwaysOne:
		return 1
	}
	return 0
}

// InitialInteger is InitialDouble for integer summaries.
func (m Mode) InitialInteger() int32 {
	switch m {
	case ModeMin:
		return math.MaxInt32
	case ModeMax:
		return math.MinInt32
	case ModeAlwaysOne:
		return 1
	}
	return 0
}

// TupleDouble and TupleInteger are tuple sketches with double and
// integer summaries.
type (
	TupleDouble  = KMV[float64]
	TupleInteger = KMV[int32]
)

// EncodeTupleDouble encodes a tuple sketch of double summaries.
func EncodeTupleDouble(k *TupleDouble) []byte {
	return k.Encode(KindTupleDouble, 8, func(b []byte, s float64) {
		binary.LittleEndian.PutUint64(b, math.Float64bits(s))
	})
}

// DecodeTupleDouble decodes a tuple sketch of double summaries.
func DecodeTupleDouble(b []byte) (*TupleDouble, error) {
	return DecodeKMV(b, KindTupleDouble, 8, func(b []byte) float64 {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	})
}

// EncodeTupleInteger encodes a tuple sketch of integer summaries.
func EncodeTupleInteger(k *TupleInteger) []byte {
	return k.Encode(KindTupleInteger, 4, func(b []byte, s int32) {
		binary.LittleEndian.PutUint32(b, uint32(s))
	})
}

// DecodeTupleInteger decodes a tuple sketch of integer summaries.
func DecodeTupleInteger(b []byte) (*TupleInteger, error) {
	return DecodeKMV(b, KindTupleInteger, 4, func(b []byte) int32 {
		return int32(binary.LittleEndian.Uint32(b))
	})
}

// WithSummary gives every key of a theta sketch the summary s, for set
// operations between a tuple and a theta sketch.
func WithSummary[S any](t *Theta, s S) *KMV[S] {
	out := NewKMV[S](t.LgK)
	out.Theta = t.Theta
	for h := range t.Entries {
		out.Entries[h] = s
	}
	return out
}

// AggregateDouble folds the summaries of all retained keys by mode
// (tuple_sketch_summary_double), as Spark's aggregateNumericSummaries:
// alwaysone counts the keys; 0 for an empty sketch.
func AggregateDouble(k *TupleDouble, m Mode) float64 {
	if m == ModeAlwaysOne {
		return float64(len(k.Entries))
	}
	first, acc := true, 0.0
	for _, s := range k.Entries {
		if first {
			acc, first = s, false
			continue
		}
		acc = m.CombineDouble(acc, s)
	}
	return acc
}

// AggregateInteger is AggregateDouble for integer summaries, in 64 bits
// (tuple_sketch_summary_integer returns a BIGINT).
func AggregateInteger(k *TupleInteger, m Mode) int64 {
	if m == ModeAlwaysOne {
		return int64(len(k.Entries))
	}
	first, acc := true, int64(0)
	for _, s := range k.Entries {
		v := int64(s)
		switch {
		case first:
			acc, first = v, false
		case m == ModeMin:
			acc = min(acc, v)
		case m == ModeMax:
			acc = max(acc, v)
		default:
			acc += v
		}
	}
	return acc
}
