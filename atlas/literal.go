package atlas

import (
	"fmt"
	"math"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// literal encodes a Go value as PySpark's lit() would encode the matching
// Python value: int as integer when it fits 32 bits else long, typed Go
// integers by their width, time.Time as a timestamp in microseconds.
func literal(v any) (*pb.Expression_Literal, error) {
	l := &pb.Expression_Literal{}
	switch x := v.(type) {
	case nil:
		l.LiteralType = &pb.Expression_Literal_Null{Null: &pb.DataType{Kind: &pb.DataType_Null{Null: &pb.DataType_NULL{}}}}
	case bool:
		l.LiteralType = &pb.Expression_Literal_Boolean{Boolean: x}
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			l.LiteralType = &pb.Expression_Literal_Integer{Integer: int32(x)}
		} else {
			l.LiteralType = &pb.Expression_Literal_Long{Long: int64(x)}
		}
	case int8:
		l.LiteralType = &pb.Expression_Literal_Byte{Byte: int32(x)}
	case int16:
		l.LiteralType = &pb.Expression_Literal_Short{Short: int32(x)}
	case int32:
		l.LiteralType = &pb.Expression_Literal_Integer{Integer: x}
	case int64:
		l.LiteralType = &pb.Expression_Literal_Long{Long: x}
	case float32:
		l.LiteralType = &pb.Expression_Literal_Float{Float: x}
	case float64:
		l.LiteralType = &pb.Expression_Literal_Double{Double: x}
	case string:
		l.LiteralType = &pb.Expression_Literal_String_{String_: x}
	case []byte:
		l.LiteralType = &pb.Expression_Literal_Binary{Binary: x}
	case time.Time:
		l.LiteralType = &pb.Expression_Literal_Timestamp{Timestamp: x.UnixMicro()}
	case time.Duration:
		// As PySpark's lit(datetime.timedelta): a day-time interval in microseconds.
		l.LiteralType = &pb.Expression_Literal_DayTimeInterval{DayTimeInterval: x.Microseconds()}
	default:
		return nil, fmt.Errorf("unsupported literal type %T (use bool, int, int64, float64, string, []byte, time.Time, time.Duration or nil)", v)
	}
	return l, nil
}

// intervalString turns a duration argument into a Spark interval string:
// a string is passed as written ("10 minutes"), a time.Duration becomes
// microseconds.
func intervalString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "", fmt.Errorf("empty interval")
		}
		return x, nil
	case time.Duration:
		if x <= 0 {
			return "", fmt.Errorf("interval %s is not positive", x)
		}
		return fmt.Sprintf("%d microseconds", x.Microseconds()), nil
	}
	return "", fmt.Errorf("want an interval string (\"10 minutes\") or a time.Duration, got %T", v)
}
