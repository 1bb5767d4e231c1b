package state

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Grouping keys are encoded into one byte string per group: for each key
// column a null marker byte, then the value (8 bytes little-endian for
// fixed-width types, a 4-byte length and the bytes for strings; a struct's
// fields in order, an array's 4-byte length then its elements, each
// encoded the same way). The map
// from encoded key to group index is the only hash table; lookups with a
// reused buffer do not allocate (Go's m[string(b)] optimisation), so only a
// new group costs an allocation.

// keyEncoder appends row i of one key column to buf.
type keyEncoder func(buf []byte, i int) []byte

func newKeyEncoder(a arrow.Array) (keyEncoder, error) {
	switch c := a.(type) {
	case *array.String:
		return func(buf []byte, i int) []byte {
			if c.IsNull(i) {
				return append(buf, 0)
			}
			s := c.Value(i)
			buf = append(buf, 1)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s)))
			return append(buf, s...)
		}, nil
	case *array.Decimal128:
		// A column's decimals share one scale: the 128 bits identify the value.
		return func(buf []byte, i int) []byte {
			if c.IsNull(i) {
				return append(buf, 0)
			}
			n := c.Value(i)
			buf = append(buf, 1)
			buf = binary.LittleEndian.AppendUint64(buf, uint64(n.HighBits()))
			return binary.LittleEndian.AppendUint64(buf, n.LowBits())
		}, nil
	case *array.Int64:
		return fixedEncoder(c, func(i int) uint64 { return uint64(c.Value(i)) }), nil
	case *array.Int32:
		return fixedEncoder(c, func(i int) uint64 { return uint64(int64(c.Value(i))) }), nil
	case *array.Int16:
		return fixedEncoder(c, func(i int) uint64 { return uint64(int64(c.Value(i))) }), nil
	case *array.Int8:
		return fixedEncoder(c, func(i int) uint64 { return uint64(int64(c.Value(i))) }), nil
	case *array.Timestamp:
		return fixedEncoder(c, func(i int) uint64 { return uint64(c.Value(i)) }), nil
	case *array.Date32:
		return fixedEncoder(c, func(i int) uint64 { return uint64(int64(c.Value(i))) }), nil
	case *array.Duration:
		return fixedEncoder(c, func(i int) uint64 { return uint64(c.Value(i)) }), nil
	case *array.Float64:
		return fixedEncoder(c, func(i int) uint64 { return expr.NormalFloatBits(c.Value(i)) }), nil
	case *array.Float32:
		return fixedEncoder(c, func(i int) uint64 { return expr.NormalFloatBits(float64(c.Value(i))) }), nil
	case *array.Boolean:
		return fixedEncoder(c, func(i int) uint64 {
			if c.Value(i) {
				return 1
			}
			return 0
		}), nil
	case *array.Struct:
		fields := make([]keyEncoder, c.NumField())
		for j := range fields {
			enc, err := newKeyEncoder(c.Field(j))
			if err != nil {
				return nil, err
			}
			fields[j] = enc
		}
		return func(buf []byte, i int) []byte {
			if c.IsNull(i) {
				return append(buf, 0)
			}
			buf = append(buf, 1)
			for _, enc := range fields {
				buf = enc(buf, i)
			}
			return buf
		}, nil
	case *array.List:
		elem, err := newKeyEncoder(c.ListValues())
		if err != nil {
			return nil, err
		}
		return func(buf []byte, i int) []byte {
			if c.IsNull(i) {
				return append(buf, 0)
			}
			start, end := c.ValueOffsets(i)
			buf = append(buf, 1)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(end-start))
			for j := start; j < end; j++ {
				buf = elem(buf, int(j))
			}
			return buf
		}, nil
	}
	return nil, fmt.Errorf("grouping by %s is not supported", a.DataType())
}

func fixedEncoder(a arrow.Array, v func(int) uint64) keyEncoder {
	return func(buf []byte, i int) []byte {
		if a.IsNull(i) {
			return append(buf, 0)
		}
		buf = append(buf, 1)
		return binary.LittleEndian.AppendUint64(buf, v(i))
	}
}

// appendKey decodes one key column value at key[pos:] into b and returns
// the position after it.
func appendKey(b array.Builder, key string, pos int) (int, error) {
	if key[pos] == 0 {
		b.AppendNull()
		return pos + 1, nil
	}
	pos++
	switch nb := b.(type) {
	case *array.StructBuilder:
		// Struct keys (a window selected as a column, any struct): the
		// fields follow in order, each with its own null marker.
		nb.Append(true)
		for j := 0; j < nb.NumField(); j++ {
			var err error
			if pos, err = appendKey(nb.FieldBuilder(j), key, pos); err != nil {
				return 0, err
			}
		}
		return pos, nil
	case *array.ListBuilder:
		n := int(binary.LittleEndian.Uint32([]byte(key[pos : pos+4])))
		pos += 4
		nb.Append(true)
		for j := 0; j < n; j++ {
			var err error
			if pos, err = appendKey(nb.ValueBuilder(), key, pos); err != nil {
				return 0, err
			}
		}
		return pos, nil
	}
	if db, ok := b.(*array.Decimal128Builder); ok {
		hi := binary.LittleEndian.Uint64([]byte(key[pos : pos+8]))
		lo := binary.LittleEndian.Uint64([]byte(key[pos+8 : pos+16]))
		db.Append(decimal128.New(int64(hi), lo))
		return pos + 16, nil
	}
	if sb, ok := b.(*array.StringBuilder); ok {
		n := int(binary.LittleEndian.Uint32([]byte(key[pos : pos+4])))
		sb.Append(key[pos+4 : pos+4+n])
		return pos + 4 + n, nil
	}
	v := binary.LittleEndian.Uint64([]byte(key[pos : pos+8]))
	switch x := b.(type) {
	case *array.Int64Builder:
		x.Append(int64(v))
	case *array.Int32Builder:
		x.Append(int32(int64(v)))
	case *array.Int16Builder:
		x.Append(int16(int64(v)))
	case *array.Int8Builder:
		x.Append(int8(int64(v)))
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(int64(v)))
	case *array.Date32Builder:
		x.Append(arrow.Date32(int64(v)))
	case *array.DurationBuilder:
		x.Append(arrow.Duration(int64(v)))
	case *array.Float64Builder:
		x.Append(math.Float64frombits(v))
	case *array.Float32Builder:
		x.Append(float32(math.Float64frombits(v)))
	case *array.BooleanBuilder:
		x.Append(v == 1)
	default:
		return 0, fmt.Errorf("cannot decode grouping key into %T", b)
	}
	return pos + 8, nil
}
