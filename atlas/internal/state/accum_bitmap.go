package state

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// bitmapBytes is the size of Spark's bitmaps (BitmapExpressionUtils:
// 32768 bits).
const bitmapBytes = 4096

// newBitmapAcc is bitmap_construct_agg (set the bit at each position),
// bitmap_or_agg, bitmap_and_agg or bitmap_xor_agg (combine bitmaps byte by
// byte, a shorter bitmap read as zeros beyond its end): Spark's fixed
// 4096-byte buffer, all zeros to begin with (all ones for AND), which is
// also the result of no rows.
func newBitmapAcc(fn string) accumulator {
	fresh := func() []byte {
		b := make([]byte, bitmapBytes)
		if fn == "bitmap_and_agg" {
			for i := range b {
				b[i] = 0xFF
			}
		}
		return b
	}
	return &slotAcc[[]byte]{
		fresh:    fresh,
		skipNull: true,
		reader: func(arg arrow.Array) (func(s *[]byte, i int), error) {
			if arg.DataType().ID() == arrow.NULL {
				return func(*[]byte, int) {}, nil
			}
			if fn == "bitmap_construct_agg" {
				pos, err := int64Values(arg)
				if err != nil {
					return nil, fmt.Errorf("bitmap_construct_agg: %w", err)
				}
				// Every position of the batch is checked before any is set,
				// so a bad one fails the query as in Spark.
				for i := 0; i < arg.Len(); i++ {
					if p := pos(i); arg.IsValid(i) && (p < 0 || p >= 8*bitmapBytes) {
						return nil, fmt.Errorf("[INVALID_BITMAP_POSITION] The 0-indexed bitmap position %d is out of bounds. The bitmap has %d bits (%d bytes). SQLSTATE: 22003", p, 8*bitmapBytes, bitmapBytes)
					}
				}
				return func(s *[]byte, i int) {
					p := pos(i)
					(*s)[p/8] |= 1 << (p % 8)
				}, nil
			}
			bin, ok := arg.(*array.Binary)
			if !ok {
				return nil, fmt.Errorf("%s: expected a binary column, got %s", fn, arg.DataType())
			}
			return func(s *[]byte, i int) { mergeBitmap(*s, bin.Value(i), fn) }, nil
		},
		result: func(b array.Builder, s *[]byte) { b.(*array.BinaryBuilder).Append(*s) },
		encode: func(s *[]byte) []byte { return *s },
		decode: func(b []byte) ([]byte, error) {
			if len(b) != bitmapBytes {
				return nil, errors.New("bitmap aggregate: corrupt state")
			}
			return append([]byte(nil), b...), nil
		},
	}
}

// mergeBitmap is BitmapExpressionUtils.bitmapMerge / bitmapAndMerge /
// bitmapXorMerge of in into s.
func mergeBitmap(s, in []byte, fn string) {
	for i := range s {
		var v byte
		if i < len(in) {
			v = in[i]
		}
		switch fn {
		case "bitmap_or_agg":
			s[i] |= v
		case "bitmap_and_agg":
			s[i] &= v
		default:
			s[i] ^= v
		}
	}
}
