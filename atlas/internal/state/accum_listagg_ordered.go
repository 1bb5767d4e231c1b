package state

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// newOrderedListAggAcc is listagg/string_agg WITHIN GROUP (ORDER BY k):
// it keeps each non-null value with its key (state encoding of keys.go)
// and joins them sorted by key, stably (rows of equal keys in arrival
// order), null keys first or last as asked; DISTINCT keeps the first of
// equal values (Spark requires the key to be the value then).
func newOrderedListAggAcc(a *expr.BoundAgg) accumulator {
	keyType := a.Arg.Type().(*arrow.StructType).Field(1).Type
	cmp := keyCompare(keyType)
	opts := a.Opts
	var kbuf []byte
	return &slotAcc[[]byEntry]{
		fresh: func() []byEntry { return nil },
		reader: func(arg arrow.Array) (func(s *[]byEntry, i int), error) {
			st, ok := arg.(*array.Struct)
			if !ok || st.NumField() != 2 {
				return nil, fmt.Errorf("listagg: expected a struct of (value, key), got %s", arg.DataType())
			}
			if st.Field(0).DataType().ID() == arrow.NULL {
				return func(*[]byEntry, int) {}, nil
			}
			vs, ok := st.Field(0).(*array.String)
			if !ok {
				return nil, fmt.Errorf("listagg: expected a string column, got %s", st.Field(0).DataType())
			}
			enc, err := encodedReader(st.Field(1))
			if err != nil {
				return nil, err
			}
			return func(s *[]byEntry, i int) {
				if vs.IsNull(i) {
					return
				}
				v := vs.Value(i)
				if opts.Distinct && slices.ContainsFunc(*s, func(e byEntry) bool { return e.x == v }) {
					return
				}
				kbuf = enc(kbuf[:0], i)
				*s = append(*s, byEntry{x: strings.Clone(v), y: string(kbuf)})
			}, nil
		},
		result: func(b array.Builder, s *[]byEntry) {
			if len(*s) == 0 {
				b.AppendNull()
				return
			}
			sorted := slices.Clone(*s)
			slices.SortStableFunc(sorted, func(p, q byEntry) int { return compareKeys(p.y, q.y, cmp, opts) })
			vals := make([]string, len(sorted))
			for i, e := range sorted {
				vals[i] = e.x
			}
			b.(*array.StringBuilder).Append(strings.Join(vals, opts.Separator))
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
				return nil, errors.New("listagg: corrupt state")
			}
			out := make([]byEntry, 0, len(flat)/2)
			for i := 0; i < len(flat); i += 2 {
				out = append(out, byEntry{x: flat[i], y: flat[i+1]})
			}
			return out, nil
		},
	}
}

// compareKeys orders two encoded, possibly null keys by the WITHIN GROUP
// direction and null order.
func compareKeys(p, q string, cmp func(a, b string) int, opts expr.AggOptions) int {
	pNull, qNull := p[0] == 0, q[0] == 0
	switch {
	case pNull && qNull:
		return 0
	case pNull != qNull:
		if pNull == opts.OrderNullsFirst {
			return -1
		}
		return 1
	}
	c := cmp(p, q)
	if opts.OrderDesc {
		return -c
	}
	return c
}
