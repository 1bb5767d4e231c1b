package planner

import (
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// literal translates a Spark literal into a constant Column: integers keep
// their width (byte, short and int as int, long as bigint), timestamps are
// microseconds since the epoch in UTC, dates days since the epoch.
func literal(l *pb.Expression_Literal) (engine.Column, error) {
	v, err := literalValue(l)
	if err != nil {
		return engine.Column{}, err
	}
	c := engine.Lit(v)
	if _, ok := l.GetLiteralType().(*pb.Expression_Literal_Date); ok {
		c = c.Cast("date")
	}
	return c, nil
}

// literalValue is the Go value of a Spark literal (as engine.Lit takes it).
func literalValue(l *pb.Expression_Literal) (any, error) {
	switch x := l.GetLiteralType().(type) {
	case *pb.Expression_Literal_Null:
		return nil, nil
	case *pb.Expression_Literal_Boolean:
		return x.Boolean, nil
	case *pb.Expression_Literal_Byte:
		return x.Byte, nil
	case *pb.Expression_Literal_Short:
		return x.Short, nil
	case *pb.Expression_Literal_Integer:
		return x.Integer, nil
	case *pb.Expression_Literal_Long:
		return x.Long, nil
	case *pb.Expression_Literal_Float:
		return float64(x.Float), nil
	case *pb.Expression_Literal_Double:
		return x.Double, nil
	case *pb.Expression_Literal_String_:
		return x.String_, nil
	case *pb.Expression_Literal_Timestamp:
		return time.UnixMicro(x.Timestamp).UTC(), nil
	case *pb.Expression_Literal_TimestampNtz:
		return time.UnixMicro(x.TimestampNtz).UTC(), nil
	case *pb.Expression_Literal_Date:
		return time.Unix(int64(x.Date)*86400, 0).UTC(), nil
	case *pb.Expression_Literal_DayTimeInterval:
		return time.Duration(x.DayTimeInterval) * time.Microsecond, nil
	case nil:
		return nil, unsupported("a literal without a value", "")
	}
	return nil, unsupported("literal "+OneofName(l.ProtoReflect(), "literal_type"), "use a number, a string, a boolean, a timestamp or null")
}
