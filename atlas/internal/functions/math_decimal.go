package functions

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// roundingDefs are round, bround, floor, ceil and ceiling with an optional
// scale, and mod, Spark's RoundBase family: on a DECIMAL(p,s) the result is
// a decimal with one more integer digit, DECIMAL(p-s+1+min(s,d), min(s,d))
// for a scale d >= 0 and DECIMAL(max(p-s+1, 1-d), 0) for d < 0 (capped at
// 38 digits); round rounds half up, bround half to even, floor and ceil
// toward negative and positive infinity. round and bround keep the type
// of an integer, float or double (a double is rounded as the decimal
// Java's Double.toString writes); floor and ceil of one integer or double
// are BIGINT (math_more.go).
func roundingDefs() []*Def {
	return []*Def{
		roundingDef("round", expr.RoundHalfUp),
		roundingDef("bround", expr.RoundHalfEven),
		roundingDef("floor", expr.RoundFloor),
		roundingDef("ceil", expr.RoundCeiling),
		roundingDef("ceiling", expr.RoundCeiling),
		{Name: "mod", Group: "math", MinArgs: 2, MaxArgs: 2, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Named{X: expr.Bin("%", a[0], a[1]), Name: called + "(" + a[0].String() + ", " + a[1].String() + ")"}, nil
		}},
	}
}

func roundingDef(name string, mode expr.RoundingMode) *Def {
	floorCeil := mode == expr.RoundFloor || mode == expr.RoundCeiling
	d := &Def{Name: name, Group: "math", MinArgs: 1, MaxArgs: 2}
	d.ColumnName = func(called string, args []string) string {
		switch {
		case floorCeil && len(args) == 1 && called != "ceiling":
			return upperName(called, args)
		case !floorCeil && len(args) == 1:
			args = append(args, "0")
		}
		return called + "(" + strings.Join(args, ", ") + ")"
	}
	var whole *Def
	if floorCeil {
		f := math.Floor
		if mode == expr.RoundCeiling {
			f = math.Ceil
		}
		whole = roundDef(name, f)
	}
	d.Build = func(called string, args []expr.Expr) (expr.Expr, error) {
		scale := int64(0)
		if len(args) == 2 {
			var err error
			if scale, err = intLit(called, args, 1, "the scale"); err != nil {
				return nil, err
			}
			if scale < math.MinInt32 || scale > math.MaxInt32 {
				return nil, fmt.Errorf("[DATATYPE_MISMATCH] the scale of %s must be an INT, got %d", called, scale)
			}
		}
		names := make([]string, len(args))
		for i, a := range args {
			names[i] = a.String()
		}
		rc := &roundCall{name: d.ColumnName(called, names), x: args[0], scale: int32(scale), mode: mode, floorCeil: floorCeil}
		if whole != nil && len(args) == 1 {
			fb, err := whole.Build(called, args)
			if err != nil {
				return nil, err
			}
			rc.whole = fb
		}
		return rc, nil
	}
	return d
}

// roundCall is one call of round, bround, floor or ceil.
type roundCall struct {
	name      string
	x         expr.Expr
	scale     int32
	mode      expr.RoundingMode
	floorCeil bool
	// whole is floor or ceil of one non-decimal argument (BIGINT).
	whole expr.Expr
}

func (c *roundCall) String() string { return c.name }

// roundedDecimal is RoundBase.dataType of a decimal.
func roundedDecimal(t *arrow.Decimal128Type, scale int32) *arrow.Decimal128Type {
	intDigits := t.Precision - t.Scale + 1
	if scale < 0 {
		return types.Decimal(min(max(intDigits, 1-scale), types.MaxDecimalPrecision), 0)
	}
	s := min(t.Scale, scale)
	return types.Decimal(min(intDigits+s, types.MaxDecimalPrecision), s)
}

// Bind picks the result type from the argument's.
func (c *roundCall) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := c.x.Bind(s)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	if c.whole != nil && !isDecimalType(t) {
		return c.whole.Bind(s)
	}
	var out arrow.DataType
	switch {
	case isDecimalType(t):
		out = roundedDecimal(t.(*arrow.Decimal128Type), c.scale)
	case c.floorCeil && isIntegral(t):
		// floor(x, d) and ceil(x, d) take a decimal: an integer is one.
		dt, _ := types.DecimalForIntegral(t)
		x = expr.CastBound(x, dt)
		out = roundedDecimal(dt, c.scale)
	case c.floorCeil:
		return nil, fmt.Errorf("[DATATYPE_MISMATCH] Cannot resolve %s: %s with a scale takes a DECIMAL or an integer, got %s; cast it to DECIMAL first", c.name, strings.SplitN(c.name, "(", 2)[0], types.SQL(t))
	case isIntegral(t) || isFloatType(t):
		out = t
	case t.ID() == arrow.NULL || t.ID() == arrow.STRING:
		out = tDouble
		x = expr.CastBound(x, tDouble)
	default:
		return nil, fmt.Errorf("[DATATYPE_MISMATCH] Cannot resolve %s: requires a number, got %s", c.name, types.SQL(t))
	}
	return &roundBound{call: c, x: x, typ: out}, nil
}

type roundBound struct {
	call *roundCall
	x    expr.Bound
	typ  arrow.DataType
}

func (b *roundBound) Type() arrow.DataType { return b.typ }
func (b *roundBound) Nullable() bool       { return b.x.Nullable() }
func (b *roundBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	out := array.NewBuilder(c.Mem, b.typ)
	defer out.Release()
	out.Reserve(in.Len())
	strict := expr.ANSIFromContext(c.Context)
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			out.AppendNull()
			continue
		}
		switch a := in.(type) {
		case *array.Decimal128:
			dt := a.DataType().(*arrow.Decimal128Type)
			d := expr.Decimal{Unscaled: a.Value(i), Precision: dt.Precision, Scale: dt.Scale}
			r, ok, err := expr.RoundDecimal(d, b.call.scale, b.typ.(*arrow.Decimal128Type), b.call.mode, strict)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.call, err)
			}
			if !ok {
				out.AppendNull()
				continue
			}
			out.(*array.Decimal128Builder).Append(r.Unscaled)
		case *array.Float64:
			out.(*array.Float64Builder).Append(expr.RoundFloat(a.Value(i), 64, b.call.scale, b.call.mode))
		case *array.Float32:
			out.(*array.Float32Builder).Append(float32(expr.RoundFloat(float64(a.Value(i)), 32, b.call.scale, b.call.mode)))
		default:
			n, _ := value(in, i).(int64)
			r := expr.RoundInt(n, b.call.scale, b.call.mode)
			lo, hi := intRange(b.typ)
			if !r.IsInt64() || r.Int64() < lo || r.Int64() > hi {
				return nil, fmt.Errorf("%s: [ARITHMETIC_OVERFLOW] %s overflow. Use 'try_' functions to tolerate overflow and return NULL instead. SQLSTATE: 22003", b.call, strings.ToLower(arrowSQLName(b.typ)))
			}
			if err := appendValue(out, r.Int64()); err != nil {
				return nil, err
			}
		}
	}
	return out.NewArray(), nil
}

func isDecimalType(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }

// withDecimal makes a two-number function compute on decimals as the
// decimal operator op (with Spark's result precision and scale) when an
// argument is a decimal, and as d otherwise.
func withDecimal(d *Def, op string, try bool) *Def {
	build := d.Build
	d.Build = func(called string, a []expr.Expr) (expr.Expr, error) {
		fb, err := build(called, a)
		if err != nil {
			return nil, err
		}
		return &decimalOr{op: op, try: try, args: a, fallback: fb}, nil
	}
	return d
}

type decimalOr struct {
	op       string
	try      bool
	args     []expr.Expr
	fallback expr.Expr
}

func (d *decimalOr) String() string { return d.fallback.String() }

// Bind binds the decimal operator when an argument is a decimal.
func (d *decimalOr) Bind(s *arrow.Schema) (expr.Bound, error) {
	for _, a := range d.args {
		b, err := a.Bind(s)
		if err != nil {
			return nil, err
		}
		if isDecimalType(b.Type()) {
			return (&expr.DecimalOp{Op: d.op, L: d.args[0], R: d.args[1], Try: d.try, Name: d.String()}).Bind(s)
		}
	}
	return d.fallback.Bind(s)
}

// decimalZero is 0 in type t.
func decimalZero(t arrow.DataType) expr.Decimal {
	dt := t.(*arrow.Decimal128Type)
	return expr.Decimal{Unscaled: decimal128.Num{}, Precision: dt.Precision, Scale: dt.Scale}
}
