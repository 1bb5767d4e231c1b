package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Spark's DecimalType bounds (DecimalType.scala).
const (
	// MaxDecimalPrecision is DecimalType.MAX_PRECISION: 38 digits, what
	// Arrow's decimal128 holds.
	MaxDecimalPrecision = 38
	// MinimumAdjustedScale is DecimalType.MINIMUM_ADJUSTED_SCALE: when an
	// operation's exact result needs more than 38 digits, its scale is
	// reduced, but not below 6 (or the exact scale, when that is smaller).
	MinimumAdjustedScale = 6
)

// Decimal returns Spark's DECIMAL(p,s) as Arrow's decimal128.
func Decimal(p, s int32) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: p, Scale: s}
}

// DecimalBounded is DecimalType.bounded: DECIMAL(p,s) with p and s capped
// at 38.
func DecimalBounded(p, s int32) *arrow.Decimal128Type {
	return Decimal(min(p, MaxDecimalPrecision), min(s, MaxDecimalPrecision))
}

// DecimalAdjusted is DecimalType.adjustPrecisionScale, the result type of
// decimal arithmetic under spark.sql.decimalOperations.allowPrecisionLoss
// (true by default): a precision beyond 38 becomes 38, keeping the integer
// digits and reducing the scale, down to min(s, 6) at the least.
func DecimalAdjusted(p, s int32) *arrow.Decimal128Type {
	if p <= MaxDecimalPrecision {
		return Decimal(p, s)
	}
	intDigits := p - s
	minScale := min(s, MinimumAdjustedScale)
	return Decimal(MaxDecimalPrecision, max(MaxDecimalPrecision-intDigits, minScale))
}

// DecimalForIntegral is DecimalType.forType: the decimal an integer type
// turns into beside a decimal (tinyint DECIMAL(3,0), smallint (5,0), int
// (10,0), bigint (20,0)); ok is false for other types.
func DecimalForIntegral(t arrow.DataType) (*arrow.Decimal128Type, bool) {
	switch t.ID() {
	case arrow.INT8:
		return Decimal(3, 0), true
	case arrow.INT16:
		return Decimal(5, 0), true
	case arrow.INT32:
		return Decimal(10, 0), true
	case arrow.INT64:
		return Decimal(20, 0), true
	}
	return nil, false
}

// parseDecimalName reads decimal, decimal(p) and decimal(p,s) (also dec
// and numeric), Spark's default being DECIMAL(10,0). ok is false when the
// name is not a decimal type at all.
func parseDecimalName(low string) (*arrow.Decimal128Type, bool, error) {
	name, args, hasArgs := strings.Cut(low, "(")
	name = strings.TrimSpace(name)
	if name != "decimal" && name != "dec" && name != "numeric" {
		return nil, false, nil
	}
	if !hasArgs {
		return Decimal(10, 0), true, nil
	}
	if !strings.HasSuffix(args, ")") {
		return nil, true, fmt.Errorf("type %q: close the parameters of DECIMAL with )", low)
	}
	parts := strings.Split(strings.TrimSuffix(args, ")"), ",")
	if len(parts) > 2 {
		return nil, true, fmt.Errorf("type %q: DECIMAL takes a precision and a scale, such as decimal(10,2)", low)
	}
	nums := make([]int32, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
		if err != nil {
			return nil, true, fmt.Errorf("type %q: DECIMAL's parameters are integers, such as decimal(10,2)", low)
		}
		nums[i] = int32(n)
	}
	p, s := nums[0], int32(0)
	if len(nums) == 2 {
		s = nums[1]
	}
	switch {
	case p > MaxDecimalPrecision:
		return nil, true, fmt.Errorf("[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision %d exceeds max precision %d. SQLSTATE: 22003", p, MaxDecimalPrecision)
	case p < 1:
		return nil, true, fmt.Errorf("type %q: the precision of a DECIMAL is between 1 and %d", low, MaxDecimalPrecision)
	case s < 0 || s > p:
		return nil, true, fmt.Errorf("type %q: the scale of a DECIMAL is between 0 and its precision %d", low, p)
	}
	return Decimal(p, s), true, nil
}
