package expr

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tz"
)

// YearMonth is a literal of Spark's YearMonthIntervalType: a count of
// months, and the fields it is written in (YEAR, MONTH or YEAR TO MONTH),
// which name it. Over Arrow it is a month interval (YearMonthType).
type YearMonth struct {
	Months int32
	Fields string
}

// String is Spark's name of the literal: INTERVAL '1-2' YEAR TO MONTH.
func (y YearMonth) String() string { return parser.YearMonthText(int64(y.Months), y.Fields) }

// YearMonthType is Spark's year-month interval as Arrow: 32-bit months.
var YearMonthType = arrow.FixedWidthTypes.MonthInterval

// YearMonthString is CAST(interval AS STRING) and show() of a year-month
// interval, as Spark writes it: INTERVAL '2-11' YEAR TO MONTH.
func YearMonthString(months int32) string {
	return parser.YearMonthText(int64(months), "YEAR TO MONTH")
}

// bindYearMonth handles the operators Spark defines on year-month
// intervals: interval ± interval, date ± interval (a date: the months
// added, the day clamped to the month's last, as LocalDate.plusMonths),
// timestamp ± interval (the same on the wall clock in the session time
// zone). ok is false when no side is a year-month interval.
func bindYearMonth(op string, text fmt.Stringer, l, r Bound) (Bound, bool, error) {
	lt, rt := l.Type().ID(), r.Type().ID()
	if lt != arrow.INTERVAL_MONTHS && rt != arrow.INTERVAL_MONTHS {
		return nil, false, nil
	}
	b := &ymBound{text: text, l: l, r: r, neg: op == "-"}
	switch {
	case (op == "+" || op == "-") && lt == arrow.INTERVAL_MONTHS && rt == arrow.INTERVAL_MONTHS:
		b.typ = YearMonthType
	case (op == "+" || op == "-") && (lt == arrow.DATE32 || lt == arrow.TIMESTAMP) && rt == arrow.INTERVAL_MONTHS:
		b.typ = l.Type()
	case op == "+" && lt == arrow.INTERVAL_MONTHS && (rt == arrow.DATE32 || rt == arrow.TIMESTAMP):
		b.l, b.r, b.typ = r, l, r.Type()
	case (op == "+" || op == "-") && lt == arrow.STRING && rt == arrow.INTERVAL_MONTHS:
		b.l, b.typ = castTo(l, types.Timestamp), types.Timestamp
	case isComparison(op) && lt == rt:
		return nil, false, nil // compared as their months
	default:
		return nil, true, fmt.Errorf("%s: operator %s is not defined for %s and %s (Atlas has interval ± interval, date ± interval and timestamp ± interval for year-month intervals)", text, op, types.Name(l.Type()), types.Name(r.Type()))
	}
	return b, true, nil
}

type ymBound struct {
	text fmt.Stringer
	l, r Bound // r is the interval
	neg  bool
	typ  arrow.DataType
}

func (b *ymBound) Type() arrow.DataType { return b.typ }
func (b *ymBound) Nullable() bool       { return true }
func (b *ymBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	la, err := b.l.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ra, err := b.r.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	months := ra.(*array.MonthInterval)
	loc := c.Zone()
	out := array.NewBuilder(c.Mem, b.typ)
	defer out.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		if la.IsNull(i) || ra.IsNull(i) {
			out.AppendNull()
			continue
		}
		m := int64(months.Value(i))
		if b.neg {
			m = -m
		}
		switch x := la.(type) {
		case *array.MonthInterval:
			s := int64(x.Value(i)) + m
			if s > math.MaxInt32 || s < math.MinInt32 {
				return nil, fmt.Errorf("[ARITHMETIC_OVERFLOW] integer overflow in %s. Use 'try_add' to tolerate overflow and return NULL instead. SQLSTATE: 22003", b.text)
			}
			out.(*array.MonthIntervalBuilder).Append(arrow.MonthInterval(s))
		case *array.Date32:
			out.(*array.Date32Builder).Append(arrow.Date32FromTime(PlusMonths(x.Value(i).ToTime(), int(m))))
		case *array.Timestamp:
			unit := x.DataType().(*arrow.TimestampType).Unit
			zone := loc
			if isNTZ(x.DataType()) {
				zone = time.UTC
			}
			w := x.Value(i).ToTime(unit).In(zone)
			wall := PlusMonths(time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC), int(m))
			v, err := arrow.TimestampFromTime(tz.LocalToInstant(wall, zone), unit)
			if err != nil {
				return nil, fmt.Errorf("[DATETIME_OVERFLOW] %s overflows at row %d. SQLSTATE: 22008", b.text, i)
			}
			out.(*array.TimestampBuilder).Append(v)
		default:
			return nil, fmt.Errorf("%s: unexpected %s", b.text, la.DataType())
		}
	}
	return out.NewArray(), nil
}

// PlusMonths is java.time's plusMonths on a wall clock held in UTC: the
// months added, the day of month clamped to the last of the month reached
// (2021-01-31 plus one month is 2021-02-28).
func PlusMonths(t time.Time, months int) time.Time {
	y, m, d := t.Date()
	total := int(m) - 1 + months
	ny, nm := y+floorDivInt(total, 12), time.Month(total-floorDivInt(total, 12)*12+1)
	last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day()
	h, mi, s := t.Clock()
	return time.Date(ny, nm, min(d, last), h, mi, s, t.Nanosecond(), time.UTC)
}

func floorDivInt(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// castYearMonth casts to or from a year-month interval: to a string as
// Spark writes it (INTERVAL '2-11' YEAR TO MONTH); every other cast is
// refused rather than made NULL.
func castYearMonth(c *Ctx, in arrow.Array, t arrow.DataType) (arrow.Array, error) {
	m, ok := in.(*array.MonthInterval)
	if !ok || t.ID() != arrow.STRING {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] casting %s to %s is not supported: Atlas casts a year-month interval to a string only", types.Name(in.DataType()), types.Name(t))
	}
	b := array.NewStringBuilder(c.Mem)
	defer b.Release()
	for i := range m.Len() {
		if m.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(YearMonthString(int32(m.Value(i))))
	}
	return b.NewArray(), nil
}
