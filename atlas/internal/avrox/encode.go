package avrox

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/avro"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Encoder writes Arrow values as Avro binary (Spark's to_avro). It is
// safe for concurrent use.
type Encoder struct {
	schema *avro.Schema
	root   *node
	json   string
}

// NewEncoder prepares to write values of type t. schemaJSON is the Avro
// schema to write with; empty derives it from t as Spark does (SchemaFor).
func NewEncoder(t arrow.DataType, nullable bool, schemaJSON string) (*Encoder, error) {
	if schemaJSON == "" {
		var err error
		if schemaJSON, err = SchemaFor(t, nullable); err != nil {
			return nil, err
		}
	}
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("to_avro: invalid Avro schema: %w", err)
	}
	root, err := arrowType(s)
	if err != nil {
		return nil, fmt.Errorf("to_avro: %w", err)
	}
	if err := compatible(t, root, "value"); err != nil {
		return nil, fmt.Errorf("to_avro: the column cannot be written with this schema: %w", err)
	}
	return &Encoder{schema: s, root: root, json: schemaJSON}, nil
}

// Schema is the Avro schema the encoder writes with.
func (e *Encoder) Schema() string { return e.json }

// compatible checks that values of t can be written as n: structs by field
// name (every field of the schema must exist), and matching kinds.
func compatible(t arrow.DataType, n *node, path string) error {
	mismatch := fmt.Errorf("%s is %s, the Avro schema wants %s", path, types.SQLName(t), n.kind)
	switch n.kind {
	case "record":
		st, ok := t.(*arrow.StructType)
		if !ok {
			return mismatch
		}
		for _, f := range n.fields {
			i, ok := st.FieldIdx(f.name)
			if !ok {
				return fmt.Errorf("%s has no field %s, which the Avro schema needs", path, f.name)
			}
			if err := compatible(st.Field(i).Type, f.n, path+"."+f.name); err != nil {
				return err
			}
		}
		return nil
	case "array":
		lt, ok := t.(*arrow.ListType)
		if !ok {
			return mismatch
		}
		return compatible(lt.Elem(), n.items, path+"[]")
	case "map":
		mt, ok := t.(*arrow.MapType)
		if !ok || mt.KeyType().ID() != arrow.STRING {
			return mismatch
		}
		return compatible(mt.ItemType(), n.items, path+"{}")
	case "boolean":
		if t.ID() == arrow.BOOL {
			return nil
		}
	case "int":
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.DATE32:
			return nil
		}
	case "long":
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.TIMESTAMP:
			return nil
		}
	case "float", "double":
		switch t.ID() {
		case arrow.FLOAT32, arrow.FLOAT64:
			return nil
		}
	case "string", "enum":
		if t.ID() == arrow.STRING {
			return nil
		}
	case "bytes", "fixed":
		if t.ID() == arrow.BINARY || t.ID() == arrow.STRING {
			return nil
		}
	case "null":
		return nil
	}
	return mismatch
}

// Encode writes every value of in; a null value gives null.
func (e *Encoder) Encode(mem memory.Allocator, in arrow.Array) (arrow.Array, error) {
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	var buf []byte
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, err := goValue(in, i, e.root)
		if err != nil {
			return nil, fmt.Errorf("to_avro: row %d: %w", i, err)
		}
		buf, err = e.schema.AppendEncode(buf[:0], v)
		if err != nil {
			return nil, fmt.Errorf("to_avro: row %d: %w", i, err)
		}
		b.Append(buf)
	}
	return b.NewArray(), nil
}

// goValue reads row i of a as the Go value twmb/avro encodes as n.
func goValue(a arrow.Array, i int, n *node) (any, error) {
	if a.IsNull(i) {
		if !n.nullable {
			return nil, fmt.Errorf("a null value where the Avro schema has no null")
		}
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			idx, _ := st.FieldIdx(f.name)
			v, err := goValue(x.Field(idx), i, f.n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			m[f.name] = v
		}
		return m, nil
	case *array.List:
		start, end := x.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := goValue(x.ListValues(), int(j), n.items)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Map:
		start, end := x.ValueOffsets(i)
		keys := x.Keys().(*array.String)
		out := make(map[string]any, end-start)
		for j := start; j < end; j++ {
			v, err := goValue(x.Items(), int(j), n.items)
			if err != nil {
				return nil, err
			}
			out[keys.Value(int(j))] = v
		}
		return out, nil
	case *array.Boolean:
		return x.Value(i), nil
	case *array.Int8:
		return intAs(int64(x.Value(i)), n), nil
	case *array.Int16:
		return intAs(int64(x.Value(i)), n), nil
	case *array.Int32:
		return intAs(int64(x.Value(i)), n), nil
	case *array.Int64:
		return intAs(x.Value(i), n), nil
	case *array.Float32:
		if n.kind == "double" {
			return float64(x.Value(i)), nil
		}
		return x.Value(i), nil
	case *array.Float64:
		if n.kind == "float" {
			return float32(x.Value(i)), nil
		}
		return x.Value(i), nil
	case *array.String:
		if n.kind == "bytes" || n.kind == "fixed" {
			return []byte(x.Value(i)), nil
		}
		return x.Value(i), nil
	case *array.Binary:
		return x.Value(i), nil
	case *array.Date32:
		if n.logical == "date" {
			return x.Value(i).ToTime(), nil
		}
		return int32(x.Value(i)), nil
	case *array.Timestamp:
		unit := x.DataType().(*arrow.TimestampType).Unit
		t := x.Value(i).ToTime(unit).UTC()
		switch n.logical {
		case "timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros":
			return t, nil
		}
		return t.UnixMicro(), nil
	}
	return nil, fmt.Errorf("type %s cannot be written as Avro", types.SQLName(a.DataType()))
}

func intAs(v int64, n *node) any {
	switch {
	case n.kind == "int":
		return int32(v)
	case n.logical == "timestamp-millis" || n.logical == "local-timestamp-millis":
		return time.UnixMilli(v).UTC()
	case n.logical == "timestamp-micros" || n.logical == "local-timestamp-micros":
		return time.UnixMicro(v).UTC()
	}
	return v
}
