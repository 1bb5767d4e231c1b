package state

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// byEntry is one value of max_by/min_by with its ordering, both in the
// state encoding of keys.go.
type byEntry struct{ x, y string }

// newByAcc is Spark's MaxBy/MinBy (x of the row with the largest or
// smallest y; rows whose y is null are skipped; of equal orderings the
// later row wins, as Spark's update keeps the old value only when it is
// strictly better) and, with k, MaxMinByK: the array of the x of the k
// best orderings, best first, [] for no rows (of equal orderings the
// earlier row comes first; Spark leaves that order unspecified).
func newByAcc(a *expr.BoundAgg) accumulator {
	max := a.Fn == "max_by"
	y := a.Arg.Type().(*arrow.StructType).Field(1).Type
	cmp := keyCompare(y)
	k := int(a.Opts.K)
	// better reports whether ordering p beats q.
	better := func(p, q string, orEqual bool) bool {
		c := cmp(p, q)
		if !max {
			c = -c
		}
		return c > 0 || (orEqual && c == 0)
	}
	var xbuf, ybuf []byte
	return &slotAcc[[]byEntry]{
		fresh: func() []byEntry { return nil },
		reader: func(arg arrow.Array) (func(s *[]byEntry, i int), error) {
			st, ok := arg.(*array.Struct)
			if !ok || st.NumField() != 2 {
				return nil, fmt.Errorf("%s: expected a struct of (x, y), got %s", a.Fn, arg.DataType())
			}
			xs, ys := st.Field(0), st.Field(1)
			if ys.DataType().ID() == arrow.NULL {
				return func(*[]byEntry, int) {}, nil // every ordering is null
			}
			encX, err := encodedReader(xs)
			if err != nil {
				return nil, err
			}
			encY, err := encodedReader(ys)
			if err != nil {
				return nil, err
			}
			return func(s *[]byEntry, i int) {
				if ys.IsNull(i) {
					return
				}
				ybuf = encY(ybuf[:0], i)
				if k == 0 {
					if len(*s) == 1 && !better(string(ybuf), (*s)[0].y, true) {
						return
					}
					xbuf = encX(xbuf[:0], i)
					*s = []byEntry{{x: string(xbuf), y: string(ybuf)}}
					return
				}
				pos := len(*s)
				for pos > 0 && better(string(ybuf), (*s)[pos-1].y, false) {
					pos--
				}
				if pos >= k {
					return
				}
				xbuf = encX(xbuf[:0], i)
				*s = append(*s, byEntry{})
				copy((*s)[pos+1:], (*s)[pos:])
				(*s)[pos] = byEntry{x: string(xbuf), y: string(ybuf)}
				if len(*s) > k {
					*s = (*s)[:k]
				}
			}, nil
		},
		result: func(b array.Builder, s *[]byEntry) {
			if k == 0 {
				if len(*s) == 0 {
					b.AppendNull()
					return
				}
				decodeValue(b, (*s)[0].x)
				return
			}
			xs := make([]string, len(*s))
			for i, e := range *s {
				xs[i] = e.x
			}
			appendList(b, xs)
		},
		encode: func(s *[]byEntry) []byte {
			flat := make([]string, 0, 2*len(*s))
			for _, e := range *s {
				flat = append(flat, e.x, e.y)
			}
			return encodeStrings(flat)
		},
		decode: func(b []byte) ([]byEntry, error) {
			flat, err := decodeStrings(b)
			if err != nil || len(flat)%2 != 0 {
				return nil, errors.New("max_by/min_by: corrupt state")
			}
			out := make([]byEntry, 0, len(flat)/2)
			for i := 0; i < len(flat); i += 2 {
				out = append(out, byEntry{x: flat[i], y: flat[i+1]})
			}
			return out, nil
		},
	}
}
