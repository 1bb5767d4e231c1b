package atlas

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// arrowSchema converts an analyzed struct type to an Arrow schema, with
// the Arrow types Spark uses for its results (timestamps in microseconds,
// UTC for TIMESTAMP).
func arrowSchema(dt *pb.DataType) (*arrow.Schema, error) {
	st := dt.GetStruct()
	if st == nil {
		return nil, fmt.Errorf("schema: want a struct type, got %v", dt)
	}
	fields, err := arrowFields(st)
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(fields, nil), nil
}

func arrowFields(st *pb.DataType_Struct) ([]arrow.Field, error) {
	fields := make([]arrow.Field, len(st.GetFields()))
	for i, f := range st.GetFields() {
		t, err := arrowType(f.GetDataType())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.GetName(), err)
		}
		fields[i] = arrow.Field{Name: f.GetName(), Type: t, Nullable: f.GetNullable()}
	}
	return fields, nil
}

func arrowType(dt *pb.DataType) (arrow.DataType, error) {
	switch k := dt.GetKind().(type) {
	case *pb.DataType_Null:
		return arrow.Null, nil
	case *pb.DataType_Boolean_:
		return arrow.FixedWidthTypes.Boolean, nil
	case *pb.DataType_Byte_:
		return arrow.PrimitiveTypes.Int8, nil
	case *pb.DataType_Short_:
		return arrow.PrimitiveTypes.Int16, nil
	case *pb.DataType_Integer_:
		return arrow.PrimitiveTypes.Int32, nil
	case *pb.DataType_Long_:
		return arrow.PrimitiveTypes.Int64, nil
	case *pb.DataType_Float_:
		return arrow.PrimitiveTypes.Float32, nil
	case *pb.DataType_Double_:
		return arrow.PrimitiveTypes.Float64, nil
	case *pb.DataType_Decimal_:
		p, s := k.Decimal.GetPrecision(), k.Decimal.GetScale()
		if k.Decimal.Precision == nil {
			p, s = 10, 0
		}
		return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
	case *pb.DataType_String_, *pb.DataType_Char_, *pb.DataType_VarChar_:
		return arrow.BinaryTypes.String, nil
	case *pb.DataType_Binary_:
		return arrow.BinaryTypes.Binary, nil
	case *pb.DataType_Date_:
		return arrow.FixedWidthTypes.Date32, nil
	case *pb.DataType_Timestamp_:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case *pb.DataType_TimestampNtz:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case *pb.DataType_DayTimeInterval_:
		return &arrow.DurationType{Unit: arrow.Microsecond}, nil
	case *pb.DataType_Array_:
		el, err := arrowType(k.Array.GetElementType())
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(el), nil
	case *pb.DataType_Map_:
		kt, err := arrowType(k.Map.GetKeyType())
		if err != nil {
			return nil, err
		}
		vt, err := arrowType(k.Map.GetValueType())
		if err != nil {
			return nil, err
		}
		return arrow.MapOf(kt, vt), nil
	case *pb.DataType_Struct_:
		fields, err := arrowFields(k.Struct)
		if err != nil {
			return nil, err
		}
		return arrow.StructOf(fields...), nil
	}
	return nil, fmt.Errorf("type %v has no Arrow counterpart in this client", dt)
}
