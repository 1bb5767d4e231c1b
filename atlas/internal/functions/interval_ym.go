package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// ymPart is date_part/extract of a year-month interval (Spark's
// ExtractIntervalYears/Months): YEAR the whole years (int), MONTH the
// months past them (tinyint, -11 to 11). Any other source goes to other,
// the date_part of dates and timestamps.
type ymPart struct {
	field string
	arg   expr.Expr
	other expr.Expr
}

func (e *ymPart) String() string { return e.other.String() }

// Bind picks the interval form when the source is a year-month interval.
func (e *ymPart) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := e.arg.Bind(s)
	if err != nil {
		return nil, err
	}
	if x.Type().ID() != arrow.INTERVAL_MONTHS {
		return e.other.Bind(s)
	}
	switch strings.ToUpper(strings.TrimSpace(e.field)) {
	case "YEAR", "Y", "YEARS", "YR", "YRS":
		return &ymPartBound{x: x, years: true, typ: arrow.PrimitiveTypes.Int32}, nil
	case "MONTH", "MON", "MONS", "MONTHS":
		return &ymPartBound{x: x, typ: arrow.PrimitiveTypes.Int8}, nil
	}
	return nil, fmt.Errorf("[INVALID_EXTRACT_FIELD] Cannot extract %s from %s. SQLSTATE: 42601", e.field, e.arg)
}

type ymPartBound struct {
	x     expr.Bound
	years bool
	typ   arrow.DataType
}

func (b *ymPartBound) Type() arrow.DataType { return b.typ }
func (b *ymPartBound) Nullable() bool       { return b.x.Nullable() }
func (b *ymPartBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	m := in.(*array.MonthInterval)
	out := array.NewBuilder(c.Mem, b.typ)
	defer out.Release()
	for i := range m.Len() {
		switch {
		case m.IsNull(i):
			out.AppendNull()
		case b.years:
			out.(*array.Int32Builder).Append(int32(m.Value(i)) / 12)
		default:
			out.(*array.Int8Builder).Append(int8(int32(m.Value(i)) % 12))
		}
	}
	return out.NewArray(), nil
}
