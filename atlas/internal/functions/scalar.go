package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// rowImpl is a scalar function evaluated a row at a time over Go values:
// resolve picks the types the arguments are cast to and the result type
// (Spark's implicit casts: ascii(2) reads 2 as '2'), eval computes one
// row. A NULL argument makes the result NULL without calling eval, unless
// nullSafe. Values are bool, int64 (every integer type), float64 (float,
// double), expr.Decimal (decimal), string, []byte, time.Time (date at midnight UTC, timestamp),
// time.Duration (day-time interval; a result may also be an arrow.Duration of
// microseconds, which holds intervals time.Duration cannot) and []any for arrays; eval returns the Go type of the result type
// (int32 for INT, int64 for BIGINT, ...) or nil for NULL.
type rowImpl struct {
	resolve func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error)
	eval    func(v []any) (any, error)
	// evalTyped, when set instead of eval, also gets the result type.
	evalTyped func(out arrow.DataType, v []any) (any, error)
	// evalZone, when set instead of eval, also gets the session time zone.
	evalZone func(loc *time.Location, v []any) (any, error)
	// nullSafe passes NULL arguments (as nil) to eval.
	nullSafe bool
	// mayBeNull: the result can be NULL for non-NULL arguments.
	mayBeNull bool
}

// rowCall is a call of a rowImpl function: an expr.Expr.
type rowCall struct {
	name string
	args []expr.Expr
	impl *rowImpl
}

func (c *rowCall) String() string {
	names := make([]string, len(c.args))
	for i, a := range c.args {
		names[i] = a.String()
	}
	n, _ := ColumnName(c.name, names)
	return n
}

// Bind resolves the arguments and casts them to the function's types.
func (c *rowCall) Bind(s *arrow.Schema) (expr.Bound, error) {
	args := make([]expr.Bound, len(c.args))
	in := make([]arrow.DataType, len(c.args))
	nullable := c.impl.mayBeNull
	for i, a := range c.args {
		b, err := a.Bind(s)
		if err != nil {
			return nil, err
		}
		args[i], in[i] = b, b.Type()
		nullable = nullable || b.Nullable()
	}
	want, out, err := c.impl.resolve(in)
	if err != nil {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH] Cannot resolve %s: %w", c, err)
	}
	for i := range args {
		if want[i] != nil {
			args[i] = expr.CastBound(args[i], want[i])
		}
	}
	return &rowBound{call: c, args: args, typ: out, nullable: nullable}, nil
}

type rowBound struct {
	call     *rowCall
	args     []expr.Bound
	typ      arrow.DataType
	nullable bool
}

func (b *rowBound) Type() arrow.DataType { return b.typ }
func (b *rowBound) Nullable() bool       { return b.nullable }

// Eval evaluates the arguments, then the function row by row.
func (b *rowBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, len(b.args))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range b.args {
		arr, err := a.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		cols[i] = arr
	}
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	bld := array.NewBuilder(mem, b.typ)
	defer bld.Release()
	vals := make([]any, len(cols))
	loc := c.Zone()
	for r := 0; r < int(rec.NumRows()); r++ {
		isNull := false
		for i, a := range cols {
			vals[i] = value(a, r)
			if t, ok := vals[i].(time.Time); ok && a.DataType().ID() == arrow.TIMESTAMP && a.DataType().(*arrow.TimestampType).TimeZone != "" {
				vals[i] = t.In(loc) // fields of a timestamp are the session time zone's
			}
			isNull = isNull || vals[i] == nil
		}
		if isNull && !b.call.impl.nullSafe {
			bld.AppendNull()
			continue
		}
		var v any
		var err error
		switch {
		case b.call.impl.evalTyped != nil:
			v, err = b.call.impl.evalTyped(b.typ, vals)
		case b.call.impl.evalZone != nil:
			v, err = b.call.impl.evalZone(loc, vals)
		default:
			v, err = b.call.impl.eval(vals)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.call, err)
		}
		if err := appendValue(bld, v); err != nil {
			return nil, fmt.Errorf("%s: %w", b.call, err)
		}
	}
	return bld.NewArray(), nil
}

// value reads row i of a as a Go value (nil for NULL).
func value(a arrow.Array, i int) any {
	if a.IsNull(i) || a.DataType().ID() == arrow.NULL {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return expr.Decimal{Unscaled: a.Value(i), Precision: dt.Precision, Scale: dt.Scale}
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return a.Value(i)
	case *array.Date32:
		return a.Value(i).ToTime()
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC()
	case *array.Duration:
		return time.Duration(a.Value(i)) * a.DataType().(*arrow.DurationType).Unit.Multiplier()
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, value(a.ListValues(), int(j)))
		}
		return out
	}
	return fmt.Sprintf("<unsupported %s>", a.DataType())
}

// appendValue appends v (of the builder's Go type) or NULL for nil.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int8Builder:
		b.Append(int8(toInt64(v)))
	case *array.Int16Builder:
		b.Append(int16(toInt64(v)))
	case *array.Int32Builder:
		b.Append(int32(toInt64(v)))
	case *array.Int64Builder:
		b.Append(toInt64(v))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.Float32Builder:
		b.Append(float32(v.(float64)))
	case *array.Decimal128Builder:
		t := b.Type().(*arrow.Decimal128Type)
		d, ok, err := expr.RescaleDecimal(v.(expr.Decimal), t, expr.RoundHalfUp, true)
		if err != nil {
			return err
		}
		if !ok {
			b.AppendNull()
			return nil
		}
		b.Append(d.Unscaled)
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.BinaryBuilder:
		b.Append(v.([]byte))
	case *array.Date32Builder:
		b.Append(arrow.Date32FromTime(v.(time.Time)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.(time.Time).UnixMicro()))
	case *array.MonthDayNanoIntervalBuilder:
		b.Append(v.(arrow.MonthDayNanoInterval))
	case *array.DurationBuilder:
		if d, ok := v.(time.Duration); ok {
			v = arrow.Duration(d / time.Microsecond)
		}
		b.Append(v.(arrow.Duration))
	case *array.ListBuilder:
		b.Append(true)
		for _, x := range v.([]any) {
			if err := appendValue(b.ValueBuilder(), x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("cannot build a %s result", b.Type())
	}
	return nil
}

// toInt64 widens any Go integer; narrowing it again wraps as Java's casts.
func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	}
	panic(fmt.Sprintf("functions: %T is not an integer", v))
}

// row defines a function evaluated by impl.
func row(name, group string, minArgs, maxArgs int, impl *rowImpl, aliases ...string) *Def {
	return &Def{Name: name, Aliases: aliases, Group: group, MinArgs: minArgs, MaxArgs: maxArgs,
		Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			return &rowCall{name: called, args: a, impl: impl}, nil
		}}
}

// upperName names the result as Spark's math expressions do: SQRT(4).
func upperName(name string, args []string) string {
	return strings.ToUpper(name) + "(" + strings.Join(args, ", ") + ")"
}

// Type shorthands.
var (
	tBool   = arrow.FixedWidthTypes.Boolean
	tInt    = arrow.PrimitiveTypes.Int32
	tLong   = arrow.PrimitiveTypes.Int64
	tDouble = arrow.PrimitiveTypes.Float64
	tString = arrow.BinaryTypes.String
	tBinary = arrow.BinaryTypes.Binary
)

// sig casts every argument to the given types and returns out.
func sig(out arrow.DataType, in ...arrow.DataType) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(got []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := make([]arrow.DataType, len(got))
		for i := range got {
			if i < len(in) {
				want[i] = in[i]
			} else if len(in) > 0 {
				want[i] = in[len(in)-1]
			}
			if err := castable(got[i], want[i]); err != nil {
				return nil, nil, fmt.Errorf("argument %d: %w", i+1, err)
			}
		}
		return want, out, nil
	}
}

// castable refuses the implicit casts Spark does not make (a struct or an
// array to a number or a string).
func castable(from, to arrow.DataType) error {
	if to == nil || arrow.TypeEqual(from, to) || from.ID() == arrow.NULL {
		return nil
	}
	switch from.ID() {
	case arrow.LIST, arrow.STRUCT, arrow.MAP:
		return fmt.Errorf("requires %s, got %s", to, from)
	}
	return nil
}

func isIntegral(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}
