package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Cast converts an expression to a Spark SQL type ("string", "timestamp",
// "bigint", ...), as an explicit CAST(x AS type). Mode says what a value
// that does not convert becomes: by default (EvalDefault) the session's
// spark.sql.ansi.enabled decides, and with ANSI (Spark 4's default) a
// string that is not a number, boolean or timestamp, or a number out of the target's
// range, fails the query (castANSI); EvalTry (try_cast) makes it NULL;
// EvalLegacy follows Spark's non-ANSI rules (castSparkNumber: NULL,
// saturation). Implicit casts (coercion, store assignment) do not use Cast.
type Cast struct {
	X        Expr
	TypeName string
	Mode     EvalMode
}

// String is Spark's name for the cast, Cast.sql: the target type in its
// SQL spelling, CAST(qty AS STRING), CAST(n AS BIGINT) for "long".
func (c *Cast) String() string {
	name := strings.ToUpper(strings.TrimSpace(c.TypeName))
	if t, err := types.FromName(c.TypeName); err == nil {
		name = types.SQL(t)
	}
	fn := "CAST("
	if c.Mode == EvalTry {
		fn = "TRY_CAST("
	}
	return fn + c.X.String() + " AS " + name + ")"
}

// Bind resolves the operand and the target type.
func (c *Cast) Bind(s *arrow.Schema) (Bound, error) {
	x, err := c.X.Bind(s)
	if err != nil {
		return nil, err
	}
	t, err := types.FromName(c.TypeName)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c, err)
	}
	if err := checkCastable(x.Type(), t); err != nil {
		return nil, fmt.Errorf("%s: %w", c, err)
	}
	if c.Mode != EvalLegacy && !arrow.TypeEqual(x.Type(), t) && isANSICheckedCast(x.Type(), t) {
		return &castBound{x: x, typ: t, mode: c.Mode}, nil
	}
	return castTo(x, t), nil
}

// castTo wraps b in a conversion to t (or returns b when it already has t).
func castTo(b Bound, t arrow.DataType) Bound {
	if arrow.TypeEqual(b.Type(), t) {
		return b
	}
	stringTime := (b.Type().ID() == arrow.STRING && (t.ID() == arrow.TIMESTAMP || t.ID() == arrow.DATE32)) || (b.Type().ID() == arrow.TIMESTAMP && t.ID() == arrow.STRING)
	if lb, ok := b.(*litBound); ok && !isDecimalCast(b.Type(), t) && !isTimeNumber(b.Type(), t) && !stringTime && !isZoneCast(b.Type(), t) && !isSparkNumberCast(b.Type(), t) && !isFloatToString(b.Type(), t) {
		if lb.lit.Value == nil {
			return &scalarBound{s: scalar.MakeNullScalar(t)}
		}
		if s, err := lb.lit.Scalar(); err == nil {
			if cs, err := s.CastTo(t); err == nil {
				return &scalarBound{s: cs}
			}
		}
	}
	return &castBound{x: b, typ: t, mode: EvalLegacy}
}

type castBound struct {
	x    Bound
	typ  arrow.DataType
	mode EvalMode // EvalLegacy for implicit casts (the zero value is not used here)
}

func (b *castBound) Type() arrow.DataType { return b.typ }
func (b *castBound) Nullable() bool       { return true }
func (b *castBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	switch b.mode.resolve(c) {
	case EvalANSI:
		if isANSICheckedCast(in.DataType(), b.typ) {
			return castANSI(c, in, b.typ, false)
		}
	case EvalTry:
		if isANSICheckedCast(in.DataType(), b.typ) {
			return castANSI(c, in, b.typ, true)
		}
	}
	return CastArray(c, in, b.typ)
}

// CastArray converts an array to type t. Binary to string reinterprets the
// bytes (CAST(value AS STRING) on Kafka values); null arrays become typed
// nulls; numbers and timestamps convert as seconds since the epoch, as in
// Spark (castTimeNumber); a boolean and a timestamp do not convert at all;
// everything else goes through arrow compute's safe cast, falling
// back to a per-value conversion that yields null where a value does not
// convert.
func CastArray(c *Ctx, in arrow.Array, t arrow.DataType) (arrow.Array, error) {
	switch {
	case arrow.TypeEqual(in.DataType(), t):
		in.Retain()
		return in, nil
	case in.DataType().ID() == arrow.NULL:
		return array.MakeArrayOfNull(c.Mem, t, in.Len()), nil
	case in.DataType().ID() == arrow.BINARY && t.ID() == arrow.STRING:
		d := array.NewData(t, in.Len(), in.Data().Buffers(), nil, in.NullN(), in.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	if err := checkCastable(in.DataType(), t); err != nil {
		return nil, err
	}
	if isDecimalCast(in.DataType(), t) {
		return castDecimal(c, in, t, EvalLegacy)
	}
	if ts, ok := in.(*array.Timestamp); ok && t.ID() == arrow.STRING {
		return castTimestampToString(c, ts), nil
	}
	if sa, ok := in.(*array.String); ok && t.ID() == arrow.TIMESTAMP {
		out := castStringToTimestamp(c, sa)
		if arrow.TypeEqual(out.DataType(), t) {
			return out, nil
		}
		defer out.Release()
		return CastArray(c, out, t)
	}
	if sa, ok := in.(*array.String); ok && t.ID() == arrow.DATE32 {
		return castStringToDate(c, sa, false)
	}
	if in.DataType().ID() == arrow.INTERVAL_MONTHS || t.ID() == arrow.INTERVAL_MONTHS {
		return castYearMonth(c, in, t)
	}
	if isZoneCast(in.DataType(), t) {
		return castZoned(c, in, t), nil
	}
	if isSparkNumberCast(in.DataType(), t) {
		return castSparkNumber(c, in, t)
	}
	if isFloatToString(in.DataType(), t) {
		return castFloatString(c, in), nil
	}
	if isTimeNumber(in.DataType(), t) {
		if out, ok, err := castTimeNumber(c, in, t); ok || err != nil {
			return out, err
		}
	}
	out, err := compute.CastArray(c.Context, in, compute.SafeCastOptions(t))
	if err == nil {
		return out, nil
	}
	// Non-ANSI Spark: a value that does not convert becomes null.
	return castLenient(c.Mem, in, t, err)
}

func castLenient(mem memory.Allocator, in arrow.Array, t arrow.DataType, cause error) (arrow.Array, error) {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		s, err := scalar.GetScalar(in, i)
		if err != nil {
			return nil, fmt.Errorf("cast %s to %s: %w", in.DataType(), t, cause)
		}
		cs, err := s.CastTo(t)
		if err != nil || !cs.IsValid() {
			b.AppendNull()
			continue
		}
		if err := appendScalar(b, cs); err != nil {
			return nil, fmt.Errorf("cast %s to %s: %w", in.DataType(), t, cause)
		}
	}
	return b.NewArray(), nil
}

func appendScalar(b array.Builder, s scalar.Scalar) error {
	a, err := scalar.MakeArrayFromScalar(s, 1, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer a.Release()
	return b.AppendValueFromString(a.ValueStr(0))
}

// scalarBound is a constant already converted to its final type.
type scalarBound struct{ s scalar.Scalar }

func (b *scalarBound) Type() arrow.DataType { return b.s.DataType() }
func (b *scalarBound) Nullable() bool       { return !b.s.IsValid() }
func (b *scalarBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	if !b.s.IsValid() {
		return array.MakeArrayOfNull(c.Mem, b.s.DataType(), int(rec.NumRows())), nil
	}
	return scalar.MakeArrayFromScalar(b.s, int(rec.NumRows()), c.Mem)
}

func scalarArray(c *Ctx, v *compute.ScalarDatum, n int) (arrow.Array, error) {
	if !v.Value.IsValid() {
		return array.MakeArrayOfNull(c.Mem, v.Value.DataType(), n), nil
	}
	return scalar.MakeArrayFromScalar(v.Value, n, c.Mem)
}

// structField extracts field i of a struct array, null wherever the struct
// row itself is null.
func structField(c *Ctx, in arrow.Array, i int) (arrow.Array, error) {
	st, ok := in.(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("expected a struct, got %s", in.DataType())
	}
	f := st.Field(i)
	if st.NullN() == 0 {
		f.Retain()
		return f, nil
	}
	n := f.Len()
	off := f.Data().Offset()
	bits := memory.NewResizableBuffer(c.Mem)
	bits.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bm := bits.Bytes()
	for j := range bm {
		bm[j] = 0
	}
	nulls := 0
	for j := 0; j < n; j++ {
		if st.IsValid(j) && f.IsValid(j) {
			bitutil.SetBit(bm, off+j)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bits}, f.Data().Buffers()[1:]...)
	d := array.NewData(f.DataType(), n, bufs, f.Data().Children(), nulls, off)
	bits.Release()
	defer d.Release()
	return array.MakeFromData(d), nil
}
