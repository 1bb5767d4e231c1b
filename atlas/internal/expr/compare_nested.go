package expr

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// isNested reports whether t is a struct or an array, which Arrow's
// comparison kernels do not take.
func isNested(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST:
		return true
	}
	return false
}

// compareNested evaluates a comparison of two structs or arrays row by
// row, as Spark's interpreted ordering of complex types: structs field by
// field, arrays element by element and then by length, a NULL inside
// ordered before any value (and equal to another NULL), NaN after every
// double. A NULL operand gives NULL.
func compareNested(c *Ctx, op string, ld, rd compute.Datum, n int) (arrow.Array, error) {
	l, err := datumArray(c, ld, n)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	r, err := datumArray(c, rd, n)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		if l.IsNull(i) || r.IsNull(i) {
			b.AppendNull()
			continue
		}
		k, err := compareAt(l, i, r, i)
		if err != nil {
			return nil, err
		}
		b.Append(orderHolds(op, k))
	}
	return b.NewArray(), nil
}

// compareAt orders row i of a and row j of b, two arrays of one type.
func compareAt(a arrow.Array, i int, b arrow.Array, j int) (int, error) {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0, nil
	case an:
		return -1, nil
	case bn:
		return 1, nil
	}
	switch x := a.(type) {
	case *array.Struct:
		y := b.(*array.Struct)
		for f := 0; f < x.NumField(); f++ {
			if k, err := compareAt(x.Field(f), i, y.Field(f), j); k != 0 || err != nil {
				return k, err
			}
		}
		return 0, nil
	case *array.List:
		y := b.(*array.List)
		xs, xe := x.ValueOffsets(i)
		ys, ye := y.ValueOffsets(j)
		for k := int64(0); xs+k < xe && ys+k < ye; k++ {
			if c, err := compareAt(x.ListValues(), int(xs+k), y.ListValues(), int(ys+k)); c != 0 || err != nil {
				return c, err
			}
		}
		return sign(int64(xe-xs) - int64(ye-ys)), nil
	case *array.Boolean:
		p, q := x.Value(i), b.(*array.Boolean).Value(j)
		if p == q {
			return 0, nil
		}
		if !p {
			return -1, nil
		}
		return 1, nil
	case *array.Int8:
		return sign(int64(x.Value(i)) - int64(b.(*array.Int8).Value(j))), nil
	case *array.Int16:
		return sign(int64(x.Value(i)) - int64(b.(*array.Int16).Value(j))), nil
	case *array.Int32:
		return sign(int64(x.Value(i)) - int64(b.(*array.Int32).Value(j))), nil
	case *array.Int64:
		return cmpInt64(x.Value(i), b.(*array.Int64).Value(j)), nil
	case *array.Float32:
		return CompareFloats(float64(x.Value(i)), float64(b.(*array.Float32).Value(j))), nil
	case *array.Float64:
		return CompareFloats(x.Value(i), b.(*array.Float64).Value(j)), nil
	case *array.String:
		return strings.Compare(x.Value(i), b.(*array.String).Value(j)), nil
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j)), nil
	case *array.Date32:
		return sign(int64(x.Value(i)) - int64(b.(*array.Date32).Value(j))), nil
	case *array.Timestamp:
		return cmpInt64(int64(x.Value(i)), int64(b.(*array.Timestamp).Value(j))), nil
	case *array.Decimal128:
		y := b.(*array.Decimal128)
		return CompareDecimals(x.Value(i), x.DataType().(*arrow.Decimal128Type).Scale, y.Value(j), y.DataType().(*arrow.Decimal128Type).Scale), nil
	case *array.Null:
		return 0, nil
	}
	return 0, fmt.Errorf("comparing values of type %s is not supported", a.DataType())
}

func cmpInt64(p, q int64) int {
	switch {
	case p < q:
		return -1
	case p > q:
		return 1
	}
	return 0
}

func sign(d int64) int { return cmpInt64(d, 0) }
