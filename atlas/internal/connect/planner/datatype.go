package planner

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Schema is the Spark struct type of an Arrow schema (AnalyzePlan's schema
// and ExecutePlanResponse.schema).
func Schema(s *arrow.Schema) (*pb.DataType, error) {
	fields := make([]*pb.DataType_StructField, s.NumFields())
	for i, f := range s.Fields() {
		t, err := DataType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		fields[i] = &pb.DataType_StructField{Name: f.Name, DataType: t, Nullable: f.Nullable}
	}
	return &pb.DataType{Kind: &pb.DataType_Struct_{Struct: &pb.DataType_Struct{Fields: fields}}}, nil
}

// DataType is the Spark type of an Arrow type, as Spark maps them: a
// timestamp with a time zone is TimestampType, without one TimestampNTZType.
func DataType(t arrow.DataType) (*pb.DataType, error) {
	switch t := t.(type) {
	case *arrow.NullType:
		return &pb.DataType{Kind: &pb.DataType_Null{Null: &pb.DataType_NULL{}}}, nil
	case *arrow.BooleanType:
		return &pb.DataType{Kind: &pb.DataType_Boolean_{Boolean: &pb.DataType_Boolean{}}}, nil
	case *arrow.Int8Type:
		return &pb.DataType{Kind: &pb.DataType_Byte_{Byte: &pb.DataType_Byte{}}}, nil
	case *arrow.Int16Type:
		return &pb.DataType{Kind: &pb.DataType_Short_{Short: &pb.DataType_Short{}}}, nil
	case *arrow.Int32Type:
		return &pb.DataType{Kind: &pb.DataType_Integer_{Integer: &pb.DataType_Integer{}}}, nil
	case *arrow.Int64Type:
		return &pb.DataType{Kind: &pb.DataType_Long_{Long: &pb.DataType_Long{}}}, nil
	case *arrow.Float32Type:
		return &pb.DataType{Kind: &pb.DataType_Float_{Float: &pb.DataType_Float{}}}, nil
	case *arrow.Float64Type:
		return &pb.DataType{Kind: &pb.DataType_Double_{Double: &pb.DataType_Double{}}}, nil
	case *arrow.StringType, *arrow.LargeStringType:
		return &pb.DataType{Kind: &pb.DataType_String_{String_: &pb.DataType_String{}}}, nil
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return &pb.DataType{Kind: &pb.DataType_Binary_{Binary: &pb.DataType_Binary{}}}, nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return &pb.DataType{Kind: &pb.DataType_Date_{Date: &pb.DataType_Date{}}}, nil
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return &pb.DataType{Kind: &pb.DataType_TimestampNtz{TimestampNtz: &pb.DataType_TimestampNTZ{}}}, nil
		}
		return &pb.DataType{Kind: &pb.DataType_Timestamp_{Timestamp: &pb.DataType_Timestamp{}}}, nil
	case *arrow.Decimal128Type:
		return &pb.DataType{Kind: &pb.DataType_Decimal_{Decimal: &pb.DataType_Decimal{Precision: &t.Precision, Scale: &t.Scale}}}, nil
	case *arrow.StructType:
		s, err := Schema(arrow.NewSchema(t.Fields(), nil))
		if err != nil {
			return nil, err
		}
		return s, nil
	case *arrow.DurationType:
		// Spark's DayTimeIntervalType(DAY, SECOND): fields 0 (DAY) to 3 (SECOND).
		day, second := int32(0), int32(3)
		return &pb.DataType{Kind: &pb.DataType_DayTimeInterval_{DayTimeInterval: &pb.DataType_DayTimeInterval{StartField: &day, EndField: &second}}}, nil
	case *arrow.MonthDayNanoIntervalType:
		// Spark's CalendarIntervalType, which Atlas's copy of the Connect
		// protocol has no message for: named by its DDL string.
		return &pb.DataType{Kind: &pb.DataType_Unparsed_{Unparsed: &pb.DataType_Unparsed{DataTypeString: "interval"}}}, nil
	case *arrow.ListType:
		el, err := DataType(t.Elem())
		if err != nil {
			return nil, err
		}
		return &pb.DataType{Kind: &pb.DataType_Array_{Array: &pb.DataType_Array{ElementType: el, ContainsNull: t.ElemField().Nullable}}}, nil
	case *arrow.MapType:
		k, err := DataType(t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := DataType(t.ItemType())
		if err != nil {
			return nil, err
		}
		return &pb.DataType{Kind: &pb.DataType_Map_{Map: &pb.DataType_Map{KeyType: k, ValueType: v, ValueContainsNull: t.ItemField().Nullable}}}, nil
	}
	return nil, fmt.Errorf("the Arrow type %s has no Spark type in Atlas Connect", t)
}

// TypeName is the Spark SQL name of a Spark type that the engine can cast
// to (string, int, bigint, double, timestamp, ...).
func TypeName(t *pb.DataType) (string, error) {
	switch t.GetKind().(type) {
	case *pb.DataType_String_:
		return "string", nil
	case *pb.DataType_Integer_:
		return "int", nil
	case *pb.DataType_Long_:
		return "bigint", nil
	case *pb.DataType_Short_:
		return "smallint", nil
	case *pb.DataType_Byte_:
		return "tinyint", nil
	case *pb.DataType_Double_:
		return "double", nil
	case *pb.DataType_Float_:
		return "float", nil
	case *pb.DataType_Boolean_:
		return "boolean", nil
	case *pb.DataType_Timestamp_:
		return "timestamp", nil
	case *pb.DataType_Date_:
		return "date", nil
	case *pb.DataType_Binary_:
		return "binary", nil
	case *pb.DataType_Decimal_:
		// DecimalType() without parameters is Spark's DECIMAL(10,0).
		p, s := int32(10), int32(0)
		if d := t.GetDecimal(); d.Precision != nil {
			p, s = d.GetPrecision(), d.GetScale()
		}
		return fmt.Sprintf("decimal(%d,%d)", p, s), nil
	case *pb.DataType_Unparsed_:
		return t.GetUnparsed().GetDataTypeString(), nil
	}
	return "", unsupported("casting to "+OneofName(t.ProtoReflect(), "kind"), "cast to string, int, bigint, smallint, tinyint, double, float, boolean, timestamp, date, binary or decimal")
}

// ParseDDL parses a DDL column list ("a string, b bigint") into a Spark
// struct type, as AnalyzePlan's DDLParse.
func ParseDDL(ddl string) (*pb.DataType, error) {
	s, err := types.ParseDDL(ddl)
	if err != nil {
		return nil, fmt.Errorf("parse DDL %q: %w", ddl, err)
	}
	return Schema(s)
}
