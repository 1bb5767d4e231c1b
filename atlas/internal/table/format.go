package table

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// NullText is how a null value is shown in tables. Spark's show() prints
// "NULL" since Spark 3.5 (ToPrettyString); earlier versions printed "null".
const NullText = "NULL"

// cellText formats row i of arr the way Spark's Dataset.show() does
// (ToPrettyString with the session time zone set to UTC; cellTextIn takes
// another zone): integers in
// decimal, decimals with their scale's digits, doubles as Java's Double.toString ("2.55", "17850.0", "1.0E7"),
// timestamps as "2006-01-02 15:04:05[.ffffff]", dates as "2006-01-02",
// binary as "[0A FF]", arrays as "[a, b]", maps as "{k -> v}", structs as
// "{a, b}" and nulls as [NullText].
func cellText(arr arrow.Array, i int) string { return cellTextIn(arr, i, time.UTC) }

// cellTextIn is cellText showing timestamps in loc, the session time zone.
func cellTextIn(arr arrow.Array, i int, loc *time.Location) string {
	if arr.IsNull(i) {
		return NullText
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float32:
		return javaFloatString(float64(a.Value(i)), 32)
	case *array.Float64:
		return javaFloatString(a.Value(i), 64)
	case *array.Decimal32:
		return a.Value(i).ToString(decimalScale(a))
	case *array.Decimal64:
		return a.Value(i).ToString(decimalScale(a))
	case *array.Decimal128:
		return a.Value(i).ToString(decimalScale(a))
	case *array.Decimal256:
		return a.Value(i).ToString(decimalScale(a))
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Binary:
		return binaryText(a.Value(i))
	case *array.LargeBinary:
		return binaryText(a.Value(i))
	case *array.BinaryView:
		return binaryText(a.Value(i))
	case *array.FixedSizeBinary:
		return binaryText(a.Value(i))
	case *array.Date32:
		return a.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Date64:
		return a.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return timestampIn(a.Value(i).ToTime(unit), loc)
	case *array.MonthInterval:
		return yearMonthText(int32(a.Value(i)))
	case *array.Duration:
		return durationText(a.DataType().(*arrow.DurationType).Unit, int64(a.Value(i)))
	case *array.Dictionary:
		return cellTextIn(a.Dictionary(), a.GetValueIndex(i), loc)
	case *array.Map:
		return mapText(a, i, loc)
	case array.ListLike:
		return listText(a, i, loc)
	case *array.Struct:
		return structText(a, i, loc)
	case array.ExtensionArray:
		return cellTextIn(a.Storage(), i, loc)
	}
	return arr.ValueStr(i)
}

// decimalScale is the scale of a decimal array: Spark shows exactly that
// many fractional digits ("2.50" for decimal(10,2)).
func decimalScale(a arrow.Array) int32 {
	return a.DataType().(arrow.DecimalType).GetScale()
}

// durationText shows a duration as Spark shows a day-time interval:
// INTERVAL '0 00:10:00' DAY TO SECOND.
func durationText(unit arrow.TimeUnit, v int64) string {
	switch unit {
	case arrow.Second:
		v *= 1_000_000
	case arrow.Millisecond:
		v *= 1_000
	case arrow.Nanosecond:
		v /= 1_000
	}
	return types.IntervalText(v)
}

// TimestampText formats t in UTC with Spark's pattern (numfmt.Timestamp).
func TimestampText(t time.Time) string { return numfmt.Timestamp(t) }

// timestampIn formats t in loc with Spark's pattern.
func timestampIn(t time.Time, loc *time.Location) string {
	if loc == time.UTC {
		return TimestampText(t)
	}
	return t.In(loc).Format("2006-01-02 15:04:05.999999999")
}

func binaryText(b []byte) string {
	if len(b) == 0 {
		return "[]"
	}
	h := strings.ToUpper(hex.EncodeToString(b))
	var sb strings.Builder
	sb.Grow(len(h) + len(b) + 1)
	sb.WriteByte('[')
	for j := 0; j < len(h); j += 2 {
		if j > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(h[j : j+2])
	}
	sb.WriteByte(']')
	return sb.String()
}

func listText(a array.ListLike, i int, loc *time.Location) string {
	start, end := a.ValueOffsets(i)
	values := a.ListValues()
	parts := make([]string, 0, end-start)
	for j := start; j < end; j++ {
		parts = append(parts, cellTextIn(values, int(j), loc))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func mapText(a *array.Map, i int, loc *time.Location) string {
	start, end := a.ValueOffsets(i)
	keys, items := a.Keys(), a.Items()
	parts := make([]string, 0, end-start)
	for j := start; j < end; j++ {
		parts = append(parts, cellTextIn(keys, int(j), loc)+" -> "+cellTextIn(items, int(j), loc))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func structText(a *array.Struct, i int, loc *time.Location) string {
	parts := make([]string, a.NumField())
	for f := range parts {
		parts[f] = cellTextIn(a.Field(f), i, loc)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// javaFloatString formats v as Spark casts floating point to string
// (Java's Double.toString / Float.toString): numfmt.JavaFloat.
func javaFloatString(v float64, bitSize int) string { return numfmt.JavaFloat(v, bitSize) }

// metaEscaper makes control characters visible.
var metaEscaper = strings.NewReplacer(
	"\n", `\n`,
	"\r", `\r`,
	"\t", `\t`,
	"\f", `\f`,
	"\b", `\b`,
	"\v", `\v`,
	"\a", `\a`,
)

// escapeMetaCharacters makes control characters visible so they cannot
// break the table layout, as Spark's SchemaUtils.escapeMetaCharacters does.
func escapeMetaCharacters(s string) string { return metaEscaper.Replace(s) }

// yearMonthText shows a year-month interval as Spark does:
// INTERVAL '2-11' YEAR TO MONTH.
func yearMonthText(months int32) string {
	sign, m := "", int64(months)
	if m < 0 {
		sign, m = "-", -m
	}
	return "INTERVAL '" + sign + strconv.FormatInt(m/12, 10) + "-" + strconv.FormatInt(m%12, 10) + "' YEAR TO MONTH"
}
