package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// A type string is Spark's JSON type name with nested types spelled out
// inline: integer, long, decimal(2,1), array<integer>, map<string,long>,
// struct<a:integer,b:string>. Both Spark's schema (jsonTypeString) and
// Atlas's Arrow schema (ArrowTypeString) are rendered that way to compare
// them. Element, value and field nullability are not part of it.

type jsonType struct {
	Type         string          `json:"type"`
	ElementType  json.RawMessage `json:"elementType"`
	KeyType      json.RawMessage `json:"keyType"`
	ValueType    json.RawMessage `json:"valueType"`
	Fields       []jsonField     `json:"fields"`
	SQLType      json.RawMessage `json:"sqlType"`
	ContainsNull bool            `json:"containsNull"`
}

func jsonTypeString(raw json.RawMessage) (string, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		return strings.ReplaceAll(name, ", ", ","), nil
	}
	var t jsonType
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", fmt.Errorf("type %s: %w", raw, err)
	}
	switch t.Type {
	case "array":
		el, err := jsonTypeString(t.ElementType)
		return "array<" + el + ">", err
	case "map":
		k, err := jsonTypeString(t.KeyType)
		if err != nil {
			return "", err
		}
		v, err := jsonTypeString(t.ValueType)
		return "map<" + k + "," + v + ">", err
	case "struct":
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := jsonTypeString(f.Type)
			if err != nil {
				return "", err
			}
			parts[i] = f.Name + ":" + ft
		}
		return "struct<" + strings.Join(parts, ",") + ">", nil
	case "udt":
		return jsonTypeString(t.SQLType)
	}
	return "", fmt.Errorf("unknown type %s", raw)
}

// ArrowTypeString renders an Arrow type the way Spark names the type it
// maps to over Spark Connect.
func ArrowTypeString(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.NullType:
		return "null"
	case *arrow.BooleanType:
		return "boolean"
	case *arrow.Int8Type:
		return "byte"
	case *arrow.Int16Type:
		return "short"
	case *arrow.Int32Type:
		return "integer"
	case *arrow.Int64Type:
		return "long"
	case *arrow.Float32Type:
		return "float"
	case *arrow.Float64Type:
		return "double"
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "string"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return "binary"
	case *arrow.Date32Type, *arrow.Date64Type:
		return "date"
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return "timestamp_ntz"
		}
		return "timestamp"
	case *arrow.Time64Type, *arrow.Time32Type:
		return "time(6)"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *arrow.DurationType:
		return "interval day to second"
	case *arrow.MonthIntervalType:
		return "interval year to month"
	case *arrow.MonthDayNanoIntervalType:
		return "interval"
	case *arrow.ListType:
		return "array<" + ArrowTypeString(t.Elem()) + ">"
	case *arrow.LargeListType:
		return "array<" + ArrowTypeString(t.Elem()) + ">"
	case *arrow.MapType:
		return "map<" + ArrowTypeString(t.KeyType()) + "," + ArrowTypeString(t.ItemType()) + ">"
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = f.Name + ":" + ArrowTypeString(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return t.String()
}
