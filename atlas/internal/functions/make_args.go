package functions

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// intFieldWant is the cast an INT field argument of a make_* function
// needs: integers are read as they are and range-checked by intField
// (Spark's ANSI cast to INT), other numbers and strings are cast.
func intFieldWant(i int, t arrow.DataType) (arrow.DataType, error) {
	switch {
	case isIntegral(t), t.ID() == arrow.NULL:
		return nil, nil
	case t.ID() == arrow.FLOAT32, t.ID() == arrow.FLOAT64, t.ID() == arrow.DECIMAL128, t.ID() == arrow.STRING:
		return tInt, nil
	}
	return nil, fmt.Errorf("argument %d requires an integer, got %s", i+1, types.Name(t))
}

// secFieldWant is the cast a seconds argument needs: numbers are read as
// they are and converted by secMicros, strings are cast to a decimal.
func secFieldWant(i int, t arrow.DataType, precision int32) (arrow.DataType, error) {
	switch {
	case isIntegral(t), t.ID() == arrow.NULL, t.ID() == arrow.DECIMAL128, t.ID() == arrow.FLOAT32, t.ID() == arrow.FLOAT64:
		return nil, nil
	case t.ID() == arrow.STRING:
		return types.Decimal(precision, 6), nil
	}
	return nil, fmt.Errorf("argument %d requires a number of seconds, got %s", i+1, types.Name(t))
}

// intField is an INT argument: Spark casts a wider integer to INT, which
// under ANSI fails with CAST_OVERFLOW.
func intField(v any) (int64, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("expected an integer, got %T", v)
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, dtError("CAST_OVERFLOW", "22003", "The value %dL of the type \"BIGINT\" cannot be cast to \"INT\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", n)
	}
	return n, nil
}

// secMicros is a seconds argument as Spark casts it to DECIMAL(precision,
// 6): the microseconds, rounded half up; a value with too many digits
// fails with NUMERIC_VALUE_OUT_OF_RANGE.
func secMicros(v any, precision int32) (int64, error) {
	var d expr.Decimal
	switch x := v.(type) {
	case int64:
		d = expr.DecimalFromInt(x)
	case expr.Decimal:
		d = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, dtError("CAST_INVALID_INPUT", "22018", "The value '%v' of the type \"DOUBLE\" cannot be cast to \"DECIMAL(%d,6)\" because it is malformed.", x, precision)
		}
		var err error
		if d, err = expr.ParseDecimal(strconv.FormatFloat(x, 'f', -1, 64)); err != nil {
			return 0, fmt.Errorf("seconds %v: %w", x, err)
		}
	default:
		return 0, fmt.Errorf("expected a number of seconds, got %T", v)
	}
	r, _, err := expr.RescaleDecimal(d, types.Decimal(precision, 6), expr.RoundHalfUp, true)
	if err != nil {
		return 0, err
	}
	return r.Unscaled.BigInt().Int64(), nil
}
