package expr

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Literal is a constant: nil, bool, int/int32/int64, float64, string,
// time.Time (a timestamp), arrow.Date32 (a date) or time.Duration (a
// day-time interval, in microseconds: types.DayTimeInterval) or Decimal.
type Literal struct {
	Value any
}

// Lit makes a literal from a Go value.
func Lit(v any) *Literal {
	switch x := v.(type) {
	case int:
		return &Literal{Value: int64(x)}
	case float32:
		return &Literal{Value: float64(x)}
	}
	return &Literal{Value: v}
}

func (l *Literal) String() string {
	switch v := l.Value.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case time.Time:
		// In the value's own location: the session time zone for a
		// literal the parser read, as Spark names it.
		return "TIMESTAMP '" + v.Format("2006-01-02 15:04:05.999999") + "'"
	case YearMonth:
		return v.String()
	case TimestampNTZ:
		return "TIMESTAMP_NTZ '" + v.Wall.UTC().Format("2006-01-02 15:04:05.999999") + "'"
	case float64:
		// Spark names a double literal by Java's Double.toString: 1.0, 2.5, 1.0E10.
		return numfmt.JavaFloat(v, 64)
	case time.Duration:
		return types.IntervalText(v.Microseconds())
	case arrow.Date32:
		return "DATE '" + v.ToTime().Format("2006-01-02") + "'"
	case []byte:
		return "X'" + strings.ToUpper(hex.EncodeToString(v)) + "'"
	case Decimal:
		return v.String()
	}
	return fmt.Sprint(l.Value)
}

// Type returns the Arrow type of the literal.
func (l *Literal) Type() (arrow.DataType, error) {
	switch v := l.Value.(type) {
	case nil:
		return arrow.Null, nil
	case bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case int32:
		return arrow.PrimitiveTypes.Int32, nil
	case int64:
		return arrow.PrimitiveTypes.Int64, nil
	case float64:
		return arrow.PrimitiveTypes.Float64, nil
	case string:
		return arrow.BinaryTypes.String, nil
	case time.Time:
		return types.Timestamp, nil
	case TimestampNTZ:
		return TimestampNTZType, nil
	case YearMonth:
		return YearMonthType, nil
	case arrow.Date32:
		return arrow.FixedWidthTypes.Date32, nil
	case []byte:
		return arrow.BinaryTypes.Binary, nil
	case time.Duration:
		return types.DayTimeInterval, nil
	case Decimal:
		return v.Type(), nil
	}
	return nil, fmt.Errorf("unsupported literal %v of type %T", l.Value, l.Value)
}

// Bind returns a constant column.
func (l *Literal) Bind(*arrow.Schema) (Bound, error) {
	t, err := l.Type()
	if err != nil {
		return nil, err
	}
	return &litBound{lit: l, typ: t}, nil
}

// Scalar returns the literal as an Arrow scalar.
func (l *Literal) Scalar() (scalar.Scalar, error) {
	switch v := l.Value.(type) {
	case nil:
		return scalar.MakeNullScalar(arrow.Null), nil
	case time.Time:
		return scalar.NewTimestampScalar(arrow.Timestamp(v.UnixMicro()), types.Timestamp), nil
	case YearMonth:
		return scalar.NewMonthIntervalScalar(arrow.MonthInterval(v.Months)), nil
	case TimestampNTZ:
		return scalar.NewTimestampScalar(arrow.Timestamp(v.Wall.UnixMicro()), TimestampNTZType), nil
	case time.Duration:
		return scalar.NewDurationScalar(arrow.Duration(v.Microseconds()), types.DayTimeInterval), nil
	case arrow.Date32:
		return scalar.NewDate32Scalar(v), nil
	case []byte:
		return scalar.NewBinaryScalar(memory.NewBufferBytes(v), arrow.BinaryTypes.Binary), nil
	case Decimal:
		return scalar.NewDecimal128Scalar(v.Unscaled, v.Type()), nil
	}
	return scalar.MakeScalar(l.Value), nil
}

// TimestampNTZ is a literal of Spark's TIMESTAMP_NTZ: a wall-clock time
// of no zone, held in Wall as if in UTC.
type TimestampNTZ struct{ Wall time.Time }

// TimestampNTZType is Spark's TimestampNTZType (types.TimestampNTZ).
var TimestampNTZType = types.TimestampNTZ

type litBound struct {
	lit *Literal
	typ arrow.DataType
}

func (b *litBound) Type() arrow.DataType { return b.typ }
func (b *litBound) Nullable() bool       { return b.lit.Value == nil }
func (b *litBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	s, err := b.lit.Scalar()
	if err != nil {
		return nil, err
	}
	if b.lit.Value == nil {
		return array.MakeArrayOfNull(c.Mem, arrow.Null, int(rec.NumRows())), nil
	}
	return scalar.MakeArrayFromScalar(s, int(rec.NumRows()), c.Mem)
}
