// Package avrox is Spark's from_avro and to_avro for Atlas: it converts
// between Avro binary values and Arrow arrays with the type mapping of
// Spark's SchemaConverters, using github.com/twmb/avro for the Avro
// encoding (schema parsing, binary coding, CRC-64-AVRO fingerprints).
//
// Values may be framed. Spark's from_avro reads bare Avro binary; records
// that carry their writer's contract are framed with a header, and the
// option "framing" reads them:
//
//   - "single-object": Avro single-object encoding, C3 01 followed by the
//     8-byte little-endian CRC-64-AVRO (Rabin) fingerprint of the writer
//     schema's canonical form, then the binary payload;
//   - "confluent": the Confluent wire format, a 0 byte and the 4-byte
//     big-endian schema registry id (option "schemaId"), then the payload.
//
// A value whose fingerprint or schema id is not the reader schema's counts
// as an unknown schema; a value whose payload does not decode (truncated,
// bytes left over, an invalid union branch or length) counts as malformed.
// In PERMISSIVE mode both give a null struct and are counted; in FAILFAST
// mode (Spark's default) the first one fails the query.
package avrox

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/avro"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// node is an Avro schema node resolved for conversion: its Arrow type and
// how values map.
type node struct {
	kind     string // boolean, int, long, float, double, bytes, string, enum, fixed, record, array, map, null
	logical  string
	nullable bool // a union with null
	fields   []field
	items    *node // array items, map values
	typ      arrow.DataType
}

type field struct {
	name string
	n    *node
}

// arrowType converts an Avro schema to the Arrow type Spark's
// SchemaConverters.toSqlType gives it.
func arrowType(s *avro.Schema) (*node, error) {
	root := s.Root()
	names := map[string]*avro.SchemaNode{}
	collectNames(root, "", names)
	return convert(root, "", names, map[string]bool{})
}

func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func collectNames(n *avro.SchemaNode, ns string, names map[string]*avro.SchemaNode) {
	switch n.Type {
	case "record", "error", "enum", "fixed":
		if n.Namespace != "" {
			ns = n.Namespace
		}
		full := fullName(n.Name, ns)
		names[full] = n
		if _, ok := names[n.Name]; !ok {
			names[n.Name] = n
		}
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			ns = full[:i]
		}
		for i := range n.Fields {
			collectNames(&n.Fields[i].Type, ns, names)
		}
	case "array":
		collectNames(n.Items, ns, names)
	case "map":
		collectNames(n.Values, ns, names)
	case "union":
		for i := range n.Branches {
			collectNames(&n.Branches[i], ns, names)
		}
	}
}

func convert(n *avro.SchemaNode, ns string, names map[string]*avro.SchemaNode, visiting map[string]bool) (*node, error) {
	switch n.Type {
	case "null":
		return &node{kind: "null", typ: arrow.Null, nullable: true}, nil
	case "boolean":
		return &node{kind: n.Type, typ: arrow.FixedWidthTypes.Boolean}, nil
	case "int":
		if n.LogicalType == "date" {
			return &node{kind: n.Type, logical: "date", typ: arrow.FixedWidthTypes.Date32}, nil
		}
		return &node{kind: n.Type, logical: n.LogicalType, typ: arrow.PrimitiveTypes.Int32}, nil
	case "long":
		switch n.LogicalType {
		case "timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros":
			return &node{kind: n.Type, logical: n.LogicalType, typ: types.Timestamp}, nil
		}
		return &node{kind: n.Type, logical: n.LogicalType, typ: arrow.PrimitiveTypes.Int64}, nil
	case "float":
		return &node{kind: n.Type, typ: arrow.PrimitiveTypes.Float32}, nil
	case "double":
		return &node{kind: n.Type, typ: arrow.PrimitiveTypes.Float64}, nil
	case "string", "enum":
		return &node{kind: n.Type, typ: arrow.BinaryTypes.String}, nil
	case "bytes", "fixed":
		if n.LogicalType == "decimal" {
			return nil, fmt.Errorf("the Avro decimal logical type is not supported yet; read the field as bytes by removing its logicalType")
		}
		return &node{kind: n.Type, typ: arrow.BinaryTypes.Binary}, nil
	case "array":
		it, err := convert(n.Items, ns, names, visiting)
		if err != nil {
			return nil, err
		}
		return &node{kind: "array", items: it, typ: arrow.ListOf(it.typ)}, nil
	case "map":
		v, err := convert(n.Values, ns, names, visiting)
		if err != nil {
			return nil, err
		}
		return &node{kind: "map", items: v, typ: arrow.MapOf(arrow.BinaryTypes.String, v.typ)}, nil
	case "union":
		var nonNull []*avro.SchemaNode
		for i := range n.Branches {
			if n.Branches[i].Type != "null" {
				nonNull = append(nonNull, &n.Branches[i])
			}
		}
		hasNull := len(nonNull) < len(n.Branches)
		switch {
		case len(nonNull) == 0:
			return &node{kind: "null", typ: arrow.Null, nullable: true}, nil
		case len(nonNull) == 1:
			x, err := convert(nonNull[0], ns, names, visiting)
			if err != nil {
				return nil, err
			}
			x.nullable = x.nullable || hasNull
			return x, nil
		case len(nonNull) == 2 && bothOf(nonNull, "int", "long"):
			return &node{kind: "long", typ: arrow.PrimitiveTypes.Int64, nullable: hasNull}, nil
		case len(nonNull) == 2 && bothOf(nonNull, "float", "double"):
			return &node{kind: "double", typ: arrow.PrimitiveTypes.Float64, nullable: hasNull}, nil
		}
		return nil, fmt.Errorf("Avro unions of several non-null types are not supported yet (Spark reads them as a struct of member0, member1, ...); use a union of null and one type")
	case "record", "error":
		if n.Namespace != "" {
			ns = n.Namespace
		}
		full := fullName(n.Name, ns)
		if visiting[full] {
			return nil, fmt.Errorf("Avro record %s refers to itself; recursive schemas cannot be read as a struct (as in Spark)", full)
		}
		visiting[full] = true
		defer delete(visiting, full)
		childNS := ns
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			childNS = full[:i]
		}
		out := &node{kind: "record"}
		var afs []arrow.Field
		for i := range n.Fields {
			f := &n.Fields[i]
			x, err := convert(&f.Type, childNS, names, visiting)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			out.fields = append(out.fields, field{name: f.Name, n: x})
			afs = append(afs, arrow.Field{Name: f.Name, Type: x.typ, Nullable: x.nullable})
		}
		out.typ = arrow.StructOf(afs...)
		return out, nil
	}
	// A reference to a named type defined elsewhere in the schema.
	if def, ok := names[fullName(n.Type, ns)]; ok {
		return convert(def, ns, names, visiting)
	}
	if def, ok := names[n.Type]; ok {
		return convert(def, ns, names, visiting)
	}
	return nil, fmt.Errorf("unknown Avro type %q", n.Type)
}

func bothOf(ns []*avro.SchemaNode, a, b string) bool {
	return (ns[0].Type == a && ns[1].Type == b) || (ns[0].Type == b && ns[1].Type == a)
}

// SchemaFor derives the Avro schema Spark's to_avro writes for an Arrow
// type (SchemaConverters.toAvroType): records named after their field in
// the namespace of their parent ("topLevelRecord" at the top), nullable
// values as the union [type, "null"].
func SchemaFor(t arrow.DataType, nullable bool) (string, error) {
	v, err := avroType(t, nullable, "topLevelRecord", "")
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func avroType(t arrow.DataType, nullable bool, name, ns string) (any, error) {
	var v any
	switch t.ID() {
	case arrow.BOOL:
		v = "boolean"
	case arrow.INT8, arrow.INT16, arrow.INT32:
		v = "int"
	case arrow.INT64:
		v = "long"
	case arrow.FLOAT32:
		v = "float"
	case arrow.FLOAT64:
		v = "double"
	case arrow.STRING, arrow.LARGE_STRING:
		v = "string"
	case arrow.BINARY, arrow.LARGE_BINARY:
		v = "bytes"
	case arrow.DATE32:
		v = map[string]any{"type": "int", "logicalType": "date"}
	case arrow.TIMESTAMP:
		v = map[string]any{"type": "long", "logicalType": "timestamp-micros"}
	case arrow.LIST:
		lt := t.(*arrow.ListType)
		it, err := avroType(lt.Elem(), lt.ElemField().Nullable, name, ns)
		if err != nil {
			return nil, err
		}
		v = map[string]any{"type": "array", "items": it}
	case arrow.MAP:
		mt := t.(*arrow.MapType)
		if mt.KeyType().ID() != arrow.STRING {
			return nil, fmt.Errorf("to_avro: map keys must be strings, got %s", types.SQLName(mt.KeyType()))
		}
		it, err := avroType(mt.ItemType(), mt.ItemField().Nullable, name, ns)
		if err != nil {
			return nil, err
		}
		v = map[string]any{"type": "map", "values": it}
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		childNS := name
		if ns != "" {
			childNS = ns + "." + name
		}
		var fs []any
		for _, f := range st.Fields() {
			ft, err := avroType(f.Type, f.Nullable, f.Name, childNS)
			if err != nil {
				return nil, err
			}
			fs = append(fs, map[string]any{"name": f.Name, "type": ft})
		}
		rec := map[string]any{"type": "record", "name": name, "fields": fs}
		if ns != "" {
			rec["namespace"] = ns
		}
		if fs == nil {
			rec["fields"] = []any{}
		}
		v = rec
	default:
		return nil, fmt.Errorf("to_avro: type %s cannot be written as Avro", types.SQLName(t))
	}
	if nullable {
		return []any{v, "null"}, nil
	}
	return v, nil
}
