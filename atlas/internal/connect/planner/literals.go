package planner

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"

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
		if d, ok, err := decimalLiteral(l); ok || err != nil {
			return d, err
		}
		return nil, unsupported("a literal without a value", "")
	}
	return nil, unsupported("literal "+OneofName(l.ProtoReflect(), "literal_type"), "use a number, a string, a boolean, a timestamp or null")
}

// decimalLiteral reads Spark's Expression.Literal.Decimal (field 12: value
// text, optional precision and scale), which the trimmed protos keep as an
// unknown field, as an exact decimal: lit(Decimal("1.50")) in PySpark is
// DECIMAL(3,2), or the precision and scale the client sent. ok is false
// when l holds no decimal.
func decimalLiteral(l *pb.Expression_Literal) (any, bool, error) {
	b := l.ProtoReflect().GetUnknown()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false, nil
		}
		b = b[n:]
		if num != 12 || typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return nil, false, nil
			}
			b = b[n:]
			continue
		}
		msg, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, true, fmt.Errorf("decimal literal: malformed message")
		}
		return decodeDecimal(msg)
	}
	return nil, false, nil
}

func decodeDecimal(msg []byte) (any, bool, error) {
	var text string
	prec, scale := int64(-1), int64(-1)
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return nil, true, fmt.Errorf("decimal literal: malformed message")
		}
		msg = msg[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(msg)
			if m < 0 {
				return nil, true, fmt.Errorf("decimal literal: malformed value")
			}
			text, n = string(v), m
		case (num == 2 || num == 3) && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(msg)
			if m < 0 {
				return nil, true, fmt.Errorf("decimal literal: malformed precision or scale")
			}
			if num == 2 {
				prec = int64(int32(v))
			} else {
				scale = int64(int32(v))
			}
			n = m
		default:
			if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
				return nil, true, fmt.Errorf("decimal literal: malformed message")
			}
		}
		msg = msg[n:]
	}
	d, err := expr.ParseDecimal(text)
	if err != nil {
		return nil, true, fmt.Errorf("decimal literal: %w", err)
	}
	if prec < 0 && scale < 0 {
		return d, true, nil
	}
	if prec < 0 {
		prec = types.MaxDecimalPrecision
	}
	if scale < 0 {
		scale = 0
	}
	if prec < 1 || prec > types.MaxDecimalPrecision || scale > prec {
		return nil, true, fmt.Errorf("decimal literal %s: DECIMAL(%d,%d) is not a decimal type: the precision is 1 to 38, the scale 0 to the precision", text, prec, scale)
	}
	r, _, err := expr.RescaleDecimal(d, types.Decimal(int32(prec), int32(scale)), expr.RoundHalfUp, true)
	if err != nil {
		return nil, true, fmt.Errorf("decimal literal: %w", err)
	}
	return r, true, nil
}
