package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// extractDefs is extract(field, source), what the parser makes of
// EXTRACT(field FROM source): date_part under Spark's other column name,
// extract(YEAR FROM TIMESTAMP '2019-08-12 01:00:00.123456').
func extractDefs() []*Def {
	return []*Def{withIntervals(datePart("extract", func(f string, a []string) string {
		return "extract(" + f + " FROM " + a[1] + ")"
	}))}
}

// withIntervals lets the date_part family d extract the fields of a
// day-time interval too (Spark's ExtractIntervalPart): a literal field
// over an interval source binds to intervalPart, anything else to d's
// own builder.
func withIntervals(d *Def) *Def {
	build := d.Build
	d.Build = func(called string, a []expr.Expr) (expr.Expr, error) {
		inner, err := build(called, a)
		if err != nil {
			return nil, err
		}
		field, err := stringLit(called, a, 0, "the field")
		if err != nil {
			return inner, nil
		}
		return &fieldPart{name: called, field: field, args: a, inner: inner}, nil
	}
	return d
}

// fieldPart is a date_part call with a literal field, bound to the
// interval extraction or to the date and timestamp one by its source's
// type.
type fieldPart struct {
	name, field string
	args        []expr.Expr
	inner       expr.Expr
}

func (f *fieldPart) String() string { return f.inner.String() }

// Bind picks the extraction by the source's type.
func (f *fieldPart) Bind(s *arrow.Schema) (expr.Bound, error) {
	src, err := f.args[1].Bind(s)
	if err != nil {
		return nil, err
	}
	if src.Type().ID() != arrow.DURATION {
		return f.inner.Bind(s)
	}
	impl, err := intervalPart(f.field)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.inner, err)
	}
	return (&rowCall{name: f.name, args: f.args, impl: impl}).Bind(s)
}

// Microseconds per unit, as Spark's DateTimeConstants.
const (
	microsPerMinute = int64(60_000_000)
	microsPerHour   = 60 * microsPerMinute
	microsPerDay    = 24 * microsPerHour
)

// intervalPart is the extraction of field from a day-time interval, as
// Spark's ExtractIntervalDays (INT), ExtractIntervalHours and
// ExtractIntervalMinutes (TINYINT) and ExtractIntervalSeconds
// (DECIMAL(8,6)); Java's truncating division keeps the interval's sign.
func intervalPart(field string) (*rowImpl, error) {
	var out arrow.DataType
	var f func(us int64) any
	switch strings.ToUpper(strings.TrimSpace(field)) {
	case "DAY", "D", "DAYS":
		out, f = tInt, func(us int64) any { return int32(us / microsPerDay) }
	case "HOUR", "H", "HOURS", "HR", "HRS":
		out, f = arrow.PrimitiveTypes.Int8, func(us int64) any { return int8(us / microsPerHour % 24) }
	case "MINUTE", "M", "MIN", "MINS", "MINUTES":
		out, f = arrow.PrimitiveTypes.Int8, func(us int64) any { return int8(us / microsPerMinute % 60) }
	case "SECOND", "S", "SEC", "SECONDS", "SECS":
		out, f = types.Decimal(8, 6), func(us int64) any {
			return expr.Decimal{Unscaled: decimal128.FromI64(us % microsPerMinute), Precision: 8, Scale: 6}
		}
	default:
		return nil, fmt.Errorf("[INVALID_EXTRACT_FIELD] Cannot extract %s from %s. SQLSTATE: 42601", field, types.Name(types.DayTimeInterval))
	}
	return &rowImpl{resolve: func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		return []arrow.DataType{tString, nil}, out, nil
	}, eval: func(v []any) (any, error) {
		d, ok := v[1].(time.Duration)
		if !ok {
			return nil, fmt.Errorf("an interval source, got %T", v[1])
		}
		return f(d.Microseconds()), nil
	}}, nil
}
