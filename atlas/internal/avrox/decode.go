package avrox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/avro"
)

// Stats counts the values one Decode call could not read.
type Stats struct {
	Malformed     int64
	UnknownSchema int64
	// FirstError describes the first of them, with its row (0-based).
	FirstError string
}

// Decoder reads Avro values of one schema into Arrow. It is not safe for
// concurrent use.
type Decoder struct {
	schema *avro.Schema
	root   *node
	opts   Options
	header [10]byte // the single-object header of the schema
}

// NewDecoder parses the reader schema (Avro JSON).
func NewDecoder(schemaJSON string, opts Options) (*Decoder, error) {
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("from_avro: invalid Avro schema: %w", err)
	}
	root, err := arrowType(s)
	if err != nil {
		return nil, fmt.Errorf("from_avro: %w", err)
	}
	d := &Decoder{schema: s, root: root, opts: opts}
	d.header[0], d.header[1] = 0xC3, 0x01
	h := avro.NewRabin()
	h.Write(s.Canonical())
	binary.LittleEndian.PutUint64(d.header[2:], h.Sum64())
	return d, nil
}

// Type is the Arrow type of the values Decode returns.
func (d *Decoder) Type() arrow.DataType { return d.root.typ }

// Fingerprint is the CRC-64-AVRO fingerprint of the reader schema, as
// single-object headers carry it.
func (d *Decoder) Fingerprint() uint64 { return binary.LittleEndian.Uint64(d.header[2:]) }

type readError struct {
	unknown bool
	msg     string
}

// Decode reads a binary (or string) array of Avro values. A null value
// gives null. A value that cannot be read gives null and is counted in
// PERMISSIVE mode, and is an error naming the row otherwise.
func (d *Decoder) Decode(mem memory.Allocator, in arrow.Array) (arrow.Array, Stats, error) {
	var st Stats
	b := array.NewBuilder(mem, d.root.typ)
	defer b.Release()
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		raw := valueBytes(in, i)
		v, rerr := d.read(raw)
		if rerr == nil {
			if err := appendValue(b, d.root, v); err != nil {
				return nil, st, fmt.Errorf("from_avro: row %d: %w", i, err)
			}
			continue
		}
		if !d.opts.Permissive {
			return nil, st, fmt.Errorf("from_avro: malformed record at row %d: %s; mode FAILFAST stops at the first one: set the option mode to PERMISSIVE to count such records (%s, %s) and read them as null", i, rerr.msg, MetricMalformed, MetricUnknownSchema)
		}
		if rerr.unknown {
			st.UnknownSchema++
		} else {
			st.Malformed++
		}
		if st.FirstError == "" {
			st.FirstError = fmt.Sprintf("row %d: %s", i, rerr.msg)
		}
		b.AppendNull()
	}
	return b.NewArray(), st, nil
}

func valueBytes(in arrow.Array, i int) []byte {
	switch a := in.(type) {
	case *array.Binary:
		return a.Value(i)
	case *array.String:
		return []byte(a.Value(i))
	case *array.LargeBinary:
		return a.Value(i)
	}
	return nil
}

func (d *Decoder) read(raw []byte) (any, *readError) {
	payload := raw
	switch d.opts.Framing {
	case SingleObject:
		if len(raw) < 10 || raw[0] != 0xC3 || raw[1] != 0x01 {
			return nil, &readError{msg: "not an Avro single-object encoding (no C3 01 header)"}
		}
		if !bytes.Equal(raw[2:10], d.header[2:]) {
			return nil, &readError{unknown: true, msg: fmt.Sprintf("schema fingerprint %016x is not the reader schema's %016x", binary.LittleEndian.Uint64(raw[2:10]), d.Fingerprint())}
		}
		payload = raw[10:]
	case Confluent:
		if len(raw) < 5 || raw[0] != 0 {
			return nil, &readError{msg: "not in the Confluent wire format (no 0 magic byte and schema id)"}
		}
		if id := binary.BigEndian.Uint32(raw[1:5]); id != d.opts.SchemaID {
			return nil, &readError{unknown: true, msg: fmt.Sprintf("schema id %d is not the reader schema's %d", id, d.opts.SchemaID)}
		}
		payload = raw[5:]
	}
	var v any
	rest, err := d.schema.Decode(payload, &v)
	if err != nil {
		return nil, &readError{msg: err.Error()}
	}
	if len(rest) > 0 {
		return nil, &readError{msg: fmt.Sprintf("%d bytes left after the value: the payload was written with another schema", len(rest))}
	}
	if err := check(d.root, v); err != nil {
		return nil, &readError{msg: err.Error()}
	}
	return v, nil
}

// check verifies a decoded value has the shapes appendValue expects, so a
// surprise never leaves the builders half-appended.
func check(n *node, v any) error {
	if v == nil {
		return nil
	}
	switch n.kind {
	case "record":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("record decoded as %T", v)
		}
		for _, f := range n.fields {
			if err := check(f.n, m[f.name]); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
	case "array":
		xs, ok := v.([]any)
		if !ok {
			return fmt.Errorf("array decoded as %T", v)
		}
		for _, x := range xs {
			if err := check(n.items, x); err != nil {
				return err
			}
		}
	case "map":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("map decoded as %T", v)
		}
		for _, x := range m {
			if err := check(n.items, x); err != nil {
				return err
			}
		}
	}
	return nil
}

func appendValue(b array.Builder, n *node, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("Avro %s value decoded as %T", n.kind, v) }
	switch n.kind {
	case "null":
		b.AppendNull()
	case "boolean":
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.(*array.BooleanBuilder).Append(x)
	case "int":
		switch x := v.(type) {
		case int32:
			b.(*array.Int32Builder).Append(x)
		case time.Time: // date
			b.(*array.Date32Builder).Append(arrow.Date32FromTime(x))
		case time.Duration: // time-millis
			b.(*array.Int32Builder).Append(int32(x / time.Millisecond))
		default:
			return bad()
		}
	case "long":
		switch x := v.(type) {
		case int64:
			b.(*array.Int64Builder).Append(x)
		case int32:
			b.(*array.Int64Builder).Append(int64(x))
		case time.Time:
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(x.UnixMicro()))
		case time.Duration: // time-micros
			b.(*array.Int64Builder).Append(int64(x / time.Microsecond))
		default:
			return bad()
		}
	case "float":
		x, ok := v.(float32)
		if !ok {
			return bad()
		}
		b.(*array.Float32Builder).Append(x)
	case "double":
		switch x := v.(type) {
		case float64:
			b.(*array.Float64Builder).Append(x)
		case float32:
			b.(*array.Float64Builder).Append(float64(x))
		default:
			return bad()
		}
	case "string", "enum":
		switch x := v.(type) {
		case string:
			b.(*array.StringBuilder).Append(x)
		case []byte:
			b.(*array.StringBuilder).Append(string(x))
		default:
			return bad()
		}
	case "bytes", "fixed":
		switch x := v.(type) {
		case []byte:
			b.(*array.BinaryBuilder).Append(x)
		case string:
			b.(*array.BinaryBuilder).Append([]byte(x))
		default:
			rv := reflect.ValueOf(v)
			if rv.Kind() != reflect.Array || rv.Type().Elem().Kind() != reflect.Uint8 {
				return bad()
			}
			buf := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(buf), rv)
			b.(*array.BinaryBuilder).Append(buf)
		}
	case "record":
		m := v.(map[string]any)
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i, f := range n.fields {
			if err := appendValue(sb.FieldBuilder(i), f.n, m[f.name]); err != nil {
				return err
			}
		}
	case "array":
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for _, x := range v.([]any) {
			if err := appendValue(lb.ValueBuilder(), n.items, x); err != nil {
				return err
			}
		}
	case "map":
		m := v.(map[string]any)
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			mb.KeyBuilder().(*array.StringBuilder).Append(k)
			if err := appendValue(mb.ItemBuilder(), n.items, m[k]); err != nil {
				return err
			}
		}
	default:
		return bad()
	}
	return nil
}
