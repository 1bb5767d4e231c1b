package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// formatDefs defines to_char, to_varchar, to_number and try_to_number:
// Spark's number format patterns (numformat.go); to_char and to_varchar of
// a date or timestamp are date_format, of a binary base64, hex or decode.
func formatDefs() []*Def {
	return append(append(formatNumberDefs(), formatStringDef()), []*Def{
		{Name: "to_number", Group: "string", MinArgs: 2, MaxArgs: 2, Build: buildToNumber(false)},
		{Name: "try_to_number", Group: "string", MinArgs: 2, MaxArgs: 2, Build: buildToNumber(true)},
		{Name: "to_char", Group: "string", MinArgs: 2, MaxArgs: 2, Build: buildToChar, ColumnName: toCharName},
		{Name: "to_varchar", Group: "string", MinArgs: 2, MaxArgs: 2, Build: buildToChar, ColumnName: toCharName},
	}...)
}

// numberFormatArg reads a number format argument: a string constant,
// upper-cased as Spark reads it, parsed and validated.
func numberFormatArg(fn string, e expr.Expr) (*numFormat, error) {
	f, err := foldableString(fn, e, "format")
	if err != nil {
		return nil, err
	}
	nf, err := parseNumFormat(strings.ToUpper(f))
	if err != nil {
		return nil, err
	}
	if nf.precision > types.MaxDecimalPrecision {
		return nil, fmt.Errorf("[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision %d exceeds max precision %d. SQLSTATE: 22003", nf.precision, types.MaxDecimalPrecision)
	}
	return nf, nil
}

// buildToNumber is to_number(str, format), a DECIMAL with the format's
// precision and scale; a string that does not match is Spark's
// INVALID_FORMAT.MISMATCH_INPUT error, or NULL for try_to_number.
func buildToNumber(try bool) func(string, []expr.Expr) (expr.Expr, error) {
	return func(name string, args []expr.Expr) (expr.Expr, error) {
		nf, err := numberFormatArg(name, args[1])
		if err != nil {
			return nil, err
		}
		out := types.Decimal(int32(nf.precision), int32(nf.scale))
		return &rowCall{name: name, args: args, impl: &rowImpl{resolve: sig(out, tString, tString), mayBeNull: try, eval: func(v []any) (any, error) {
			d, ok := nf.parse(v[0].(string))
			switch {
			case ok:
				return d, nil
			case try:
				return nil, nil
			}
			return nil, fmt.Errorf("[INVALID_FORMAT.MISMATCH_INPUT] The format is invalid: %s. The input \"STRING\" %s does not match the format. SQLSTATE: 42601", nf.text, v[0])
		}}}, nil
	}
}

// toCharName names to_char and to_varchar calls as Spark does, after the
// expression each is replaced by. Only the arguments' text is known here,
// so the kind of input is told from the format: 'base64' and 'hex' (a
// binary: base64(x), hex(x), to_varchar(x)), 'utf-8' (decode(x, f) or
// to_varchar(x, f)), a valid number format (to_char(x, f)), anything else
// a datetime pattern (date_format(x, f)).
func toCharName(name string, args []string) string {
	switch strings.ToLower(strings.TrimSpace(args[1])) {
	case "base64", "hex":
		if name == "to_varchar" {
			return name + "(" + args[0] + ")"
		}
		return strings.ToLower(strings.TrimSpace(args[1])) + "(" + args[0] + ")"
	case "utf-8":
		if name == "to_varchar" {
			return name + "(" + args[0] + ", " + args[1] + ")"
		}
		return "decode(" + args[0] + ", " + args[1] + ")"
	}
	if _, err := parseNumFormat(strings.ToUpper(args[1])); err == nil {
		return "to_char(" + args[0] + ", " + args[1] + ")"
	}
	return "date_format(" + args[0] + ", " + args[1] + ")"
}

func buildToChar(name string, args []expr.Expr) (expr.Expr, error) {
	return &toChar{name: name, args: args}, nil
}

// toChar is to_char(x, format) and to_varchar: what it computes depends on
// x's type, known when it is bound.
type toChar struct {
	name string
	args []expr.Expr
}

func (c *toChar) String() string {
	return toCharName(c.name, []string{c.args[0].String(), c.args[1].String()})
}

// Bind picks Spark's replacement for x's type: date_format for a date or
// timestamp; base64, hex or decode for a binary; the number format
// otherwise.
func (c *toChar) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := c.args[0].Bind(s)
	if err != nil {
		return nil, err
	}
	var e expr.Expr
	switch x.Type().ID() {
	case arrow.DATE32, arrow.TIMESTAMP:
		e, err = Call("date_format", c.args)
	case arrow.BINARY:
		e, err = c.binary()
	default:
		e, err = c.number(x.Type())
	}
	if err != nil {
		return nil, err
	}
	return e.Bind(s)
}

// binary is to_char of a binary value with 'base64', 'hex' or 'utf-8'.
func (c *toChar) binary() (expr.Expr, error) {
	v, ok := literal(c.args[1])
	f, isStr := v.(string)
	if !ok || (!isStr && v != nil) {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] Cannot resolve \"%s\" due to data type mismatch: the input `format` should be a foldable \"STRING\" expression; however, got %s. SQLSTATE: 42K09", c, c.args[1])
	}
	if v == nil {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_NULL] Cannot resolve \"%s\" due to data type mismatch: the `format` must not be null. SQLSTATE: 42K09", c)
	}
	switch low := strings.ToLower(strings.TrimSpace(f)); low {
	case "base64", "hex":
		return Call(low, c.args[:1])
	case "utf-8":
		return Call("decode", c.args)
	default:
		return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.BINARY_FORMAT] The value of parameter(s) `format` in `%s` is invalid: expects one of binary formats 'base64', 'hex', 'utf-8', but got '%s'. SQLSTATE: 22023", c.name, low)
	}
}

// number is to_char of a number: x as a decimal written with the format.
func (c *toChar) number(t arrow.DataType) (expr.Expr, error) {
	nf, err := numberFormatArg(c.name, c.args[1])
	if err != nil {
		return nil, err
	}
	dt, ok := asDecimalInput(t)
	if !ok {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"%s\" due to data type mismatch: the first parameter requires the \"DECIMAL\" type, however %s has the type \"%s\". SQLSTATE: 42K09", c, c.args[0], types.SQL(t))
	}
	return &rowCall{name: "to_char", args: c.args, impl: &rowImpl{resolve: sig(tString, dt, tString), eval: func(v []any) (any, error) {
		return nf.format(v[0].(expr.Decimal)), nil
	}}}, nil
}

// asDecimalInput is the decimal type Spark's implicit cast gives a number
// (DecimalType.forType) for to_char, which takes a DECIMAL.
func asDecimalInput(t arrow.DataType) (*arrow.Decimal128Type, bool) {
	switch t.ID() {
	case arrow.DECIMAL128:
		return t.(*arrow.Decimal128Type), true
	case arrow.FLOAT64:
		return types.Decimal(30, 15), true
	case arrow.FLOAT32:
		return types.Decimal(14, 7), true
	case arrow.STRING, arrow.NULL:
		return types.Decimal(38, 18), true
	}
	return types.DecimalForIntegral(t)
}
