package expr

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// StoreAssign converts the values written to a table column (INSERT, the
// SET and INSERT clauses of MERGE) to the column's type t, as Spark's ANSI
// store assignment does (spark.sql.storeAssignmentPolicy=ANSI, the default
// since Spark 3.0; see the SQL reference's "ANSI Compliance" page): a
// number the column cannot hold fails the write with
// CAST_OVERFLOW_IN_TABLE_INSERT instead of wrapping around (3000000000 into
// an int is not stored as -1294967296); a fraction into an integer column
// is truncated, as a cast truncates; a string is not written to a number or
// boolean column (Spark refuses it as CANNOT_SAFELY_CAST, where a cast would
// store 'abc' as NULL). Everything else converts as CastArray.
func StoreAssign(c *Ctx, in arrow.Array, t arrow.DataType, column string) (arrow.Array, error) {
	if in.DataType().ID() == arrow.STRING && (isNumeric(t) || t.ID() == arrow.BOOL) {
		// Cast.canANSIStoreAssign: a string is not written to a number or
		// boolean column implicitly ('abc' would be stored as NULL).
		return nil, fmt.Errorf("[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST] Cannot safely cast `%s` \"STRING\" to %q: write CAST(value AS %s) to convert it explicitly",
			column, strings.ToUpper(types.SQLName(t)), types.SQLName(t))
	}
	if isNumeric(in.DataType()) && isSignedInteger(t) && !arrow.TypeEqual(in.DataType(), t) {
		lo, hi := integerRange(t)
		for i := 0; i < in.Len(); i++ {
			if in.IsNull(i) {
				continue
			}
			if n, f, isF := numberAt(in, i); fitsRange(n, f, isF, lo, hi) {
				continue
			}
			return nil, fmt.Errorf("[CAST_OVERFLOW_IN_TABLE_INSERT] Fail to insert a value of %q type into the %q type column `%s` due to an overflow (the value %s, row %d). Use `try_cast` on the input value to tolerate overflow and return NULL instead",
				strings.ToUpper(types.SQLName(in.DataType())), strings.ToUpper(types.SQLName(t)), column, in.ValueStr(i), i+1)
		}
	}
	return CastArray(c, in, t)
}

// CastKey converts equality-key values to the type t of the keys they are
// looked up among (MERGE's ON t.k = s.k, with the source key cast to the
// target column's type). Spark compares the two keys in their wider type,
// so a number t cannot hold exactly (5000000000 or 1.5 as an int) equals no
// key of type t: it becomes null, which matches nothing, where a plain cast
// would wrap or truncate it onto another key (705032704, 1).
func CastKey(c *Ctx, in arrow.Array, t arrow.DataType) (arrow.Array, error) {
	out, err := CastArray(c, in, t)
	if err == nil && isDecimal(in.DataType()) {
		return exactDecimalKey(c, in, out)
	}
	if err != nil || !isNumeric(in.DataType()) || !isNumeric(t) {
		return out, err
	}
	var exact []bool
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) || out.IsNull(i) {
			continue
		}
		n, f, isF := numberAt(in, i)
		m, g, isG := numberAt(out, i)
		if same := (!isF && !isG && n == m) || (toFloat(n, f, isF) == toFloat(m, g, isG) && (isF || isG)); same {
			continue
		}
		if exact == nil {
			exact = make([]bool, in.Len())
			for j := range exact {
				exact[j] = true
			}
		}
		exact[i] = false
	}
	if exact == nil {
		return out, nil
	}
	defer out.Release()
	return withNulls(c.Mem, out, exact), nil
}

// withNulls returns a copy of a whose rows with keep[i] false are null.
func withNulls(mem memory.Allocator, a arrow.Array, keep []bool) arrow.Array {
	n, off := a.Len(), a.Data().Offset()
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bm := bits.Bytes()
	for j := range bm {
		bm[j] = 0
	}
	nulls := 0
	for i := 0; i < n; i++ {
		if keep[i] && a.IsValid(i) {
			bitutil.SetBit(bm, off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bits}, a.Data().Buffers()[1:]...)
	d := array.NewData(a.DataType(), n, bufs, a.Data().Children(), nulls, off)
	bits.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

func integerRange(t arrow.DataType) (int64, int64) {
	switch t.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// fitsRange reports whether a number lies in [lo, hi] once its fraction is
// dropped, as Spark's ANSI cast checks (floor(x) <= hi && ceil(x) >= lo).
func fitsRange(n int64, f float64, isFloat bool, lo, hi int64) bool {
	if !isFloat {
		return n >= lo && n <= hi
	}
	if math.IsNaN(f) {
		return false
	}
	// float64(hi) may round up past hi (2^63 for MaxInt64): compare strictly there.
	if hi == math.MaxInt64 {
		return math.Ceil(f) >= float64(lo) && math.Floor(f) < float64(hi)
	}
	return math.Ceil(f) >= float64(lo) && math.Floor(f) <= float64(hi)
}

func toFloat(n int64, f float64, isFloat bool) float64 {
	if isFloat {
		return f
	}
	return float64(n)
}

// numberAt reads row i of a numeric array as an int64 or a float64.
func numberAt(a arrow.Array, i int) (int64, float64, bool) {
	switch v := a.(type) {
	case *array.Int8:
		return int64(v.Value(i)), 0, false
	case *array.Int16:
		return int64(v.Value(i)), 0, false
	case *array.Int32:
		return int64(v.Value(i)), 0, false
	case *array.Int64:
		return v.Value(i), 0, false
	case *array.Uint8:
		return int64(v.Value(i)), 0, false
	case *array.Uint16:
		return int64(v.Value(i)), 0, false
	case *array.Uint32:
		return int64(v.Value(i)), 0, false
	case *array.Uint64:
		if u := v.Value(i); u <= math.MaxInt64 {
			return int64(u), 0, false
		}
		return 0, float64(v.Value(i)), true
	case *array.Float32:
		return 0, float64(v.Value(i)), true
	case *array.Float64:
		return 0, v.Value(i), true
	}
	return 0, math.NaN(), true
}

// exactDecimalKey nulls the rows of out (in, a decimal, converted) whose
// value changed in the conversion: a key 1.5 does not match an int key 1.
func exactDecimalKey(c *Ctx, in, out arrow.Array) (arrow.Array, error) {
	back, err := CastArray(c, out, in.DataType())
	if err != nil {
		out.Release()
		return nil, err
	}
	defer back.Release()
	d, b := in.(*array.Decimal128), back.(*array.Decimal128)
	keep := make([]bool, in.Len())
	changed := false
	for i := range keep {
		keep[i] = in.IsNull(i) || out.IsNull(i) || (b.IsValid(i) && d.Value(i) == b.Value(i))
		changed = changed || !keep[i]
	}
	if !changed {
		return out, nil
	}
	defer out.Release()
	return withNulls(c.Mem, out, keep), nil
}
