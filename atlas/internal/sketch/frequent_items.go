package sketch

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The items of a frequent-items sketch, as approx_top_k counts them: a
// key (8 little-endian bytes for a number, date, timestamp or boolean;
// the UTF-8 bytes of a string) and the hashCode of the Java object Spark
// puts in its ItemsSketch (Integer, Long, Float, Double, Boolean, String),
// which decides the order of items of equal count.

// TopKItemType reports whether approx_top_k counts values of type t (as
// Spark: not BINARY; Atlas also refuses DECIMAL, whose Java hashCode it
// does not reproduce).
func TopKItemType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DATE32, arrow.TIMESTAMP, arrow.STRING:
		return true
	}
	return false
}

func key8(v uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return string(b[:])
}

func longHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// javaStringHash is String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// TopKItems reads row i of a column as an item key and its Java hashCode;
// ok is false for a null.
func TopKItems(arg arrow.Array) (func(i int) (key string, hash int32, ok bool), error) {
	valid := arg.IsValid
	switch a := arg.(type) {
	case *array.Boolean:
		return func(i int) (string, int32, bool) {
			if a.Value(i) {
				return key8(1), 1231, valid(i)
			}
			return key8(0), 1237, valid(i)
		}, nil
	case *array.Int8:
		return func(i int) (string, int32, bool) { v := a.Value(i); return key8(uint64(v)), int32(v), valid(i) }, nil
	case *array.Int16:
		return func(i int) (string, int32, bool) { v := a.Value(i); return key8(uint64(v)), int32(v), valid(i) }, nil
	case *array.Int32:
		return func(i int) (string, int32, bool) { v := a.Value(i); return key8(uint64(v)), v, valid(i) }, nil
	case *array.Date32:
		return func(i int) (string, int32, bool) { v := int32(a.Value(i)); return key8(uint64(v)), v, valid(i) }, nil
	case *array.Int64:
		return func(i int) (string, int32, bool) { v := a.Value(i); return key8(uint64(v)), longHash(v), valid(i) }, nil
	case *array.Timestamp:
		return func(i int) (string, int32, bool) {
			v := int64(a.Value(i))
			return key8(uint64(v)), longHash(v), valid(i)
		}, nil
	case *array.Float32:
		return func(i int) (string, int32, bool) {
			v := a.Value(i)
			bits := math.Float32bits(v)
			if v != v {
				bits = 0x7fc00000 // Float.floatToIntBits' canonical NaN
			}
			return key8(uint64(bits)), int32(bits), valid(i)
		}, nil
	case *array.Float64:
		return func(i int) (string, int32, bool) {
			v := a.Value(i)
			bits := math.Float64bits(v)
			if v != v {
				bits = 0x7ff8000000000000
			}
			return key8(bits), longHash(int64(bits)), valid(i)
		}, nil
	case *array.String:
		return func(i int) (string, int32, bool) { v := a.Value(i); return v, javaStringHash(v), valid(i) }, nil
	}
	return nil, fmt.Errorf("approx_top_k does not count %s values", arg.DataType())
}

// AppendTopKItem appends the value of an item key to a builder of the
// item type.
func AppendTopKItem(b array.Builder, key string) error {
	if _, ok := b.(*array.StringBuilder); ok {
		b.(*array.StringBuilder).Append(key)
		return nil
	}
	if len(key) != 8 {
		return fmt.Errorf("%w: an item of %d bytes for %s", ErrCorrupt, len(key), b.Type())
	}
	v := binary.LittleEndian.Uint64([]byte(key))
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v == 1)
	case *array.Int8Builder:
		b.Append(int8(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Date32Builder:
		b.Append(arrow.Date32(int32(v)))
	case *array.Int64Builder:
		b.Append(int64(v))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(int64(v)))
	case *array.Float32Builder:
		b.Append(math.Float32frombits(uint32(v)))
	case *array.Float64Builder:
		b.Append(math.Float64frombits(v))
	default:
		return fmt.Errorf("approx_top_k cannot return %s items", b.Type())
	}
	return nil
}

// TopKResultType is approx_top_k's result: array<struct<item, count>>.
func TopKResultType(item arrow.DataType) arrow.DataType {
	return arrow.ListOfNonNullable(arrow.StructOf(
		arrow.Field{Name: "item", Type: item, Nullable: true},
		arrow.Field{Name: "count", Type: arrow.PrimitiveTypes.Int64},
	))
}

// TopKStateType is approx_top_k_accumulate's result, Spark's state struct.
func TopKStateType(item arrow.DataType) *arrow.StructType {
	return arrow.StructOf(
		arrow.Field{Name: "sketch", Type: arrow.BinaryTypes.Binary},
		arrow.Field{Name: "maxItemsTracked", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "itemDataType", Type: item, Nullable: true},
		arrow.Field{Name: "itemDataTypeDDL", Type: arrow.BinaryTypes.String},
	)
}

// TopK is a frequent-items sketch with Spark's count of nulls.
type TopK struct {
	F         *Frequent
	NullCount int64
}

// EncodeTopK encodes a sketch and its null count.
func EncodeTopK(t *TopK) []byte {
	return binary.LittleEndian.AppendUint64(EncodeFrequent(t.F), uint64(t.NullCount))
}

// DecodeTopK decodes what EncodeTopK wrote.
func DecodeTopK(b []byte) (*TopK, error) {
	if len(b) < 8 {
		return nil, ErrCorrupt
	}
	f, err := DecodeFrequent(b[:len(b)-8])
	if err != nil {
		return nil, err
	}
	return &TopK{F: f, NullCount: int64(binary.LittleEndian.Uint64(b[len(b)-8:]))}, nil
}

// Merge adds o's counts to t.
func (t *TopK) Merge(o *TopK) {
	t.F.Merge(o.F)
	t.NullCount += o.NullCount
}

// AppendTopK appends the k most frequent items of t (a null item among
// them by its count, before items of equal count only when strictly
// more frequent, as Spark's ApproxTopKAggregateBuffer.eval) to b, a
// builder of TopKResultType.
func AppendTopK(b *array.ListBuilder, t *TopK, k int) error {
	rows := t.F.Frequent()
	st := b.ValueBuilder().(*array.StructBuilder)
	item, count := st.FieldBuilder(0), st.FieldBuilder(1).(*array.Int64Builder)
	b.Append(true)
	n, nullAdded := 0, t.NullCount == 0
	for _, r := range rows {
		if n == k {
			return nil
		}
		if !nullAdded && t.NullCount > r.Estimate {
			st.Append(true)
			item.AppendNull()
			count.Append(t.NullCount)
			nullAdded = true
			n++
			if n == k {
				return nil
			}
		}
		st.Append(true)
		if err := AppendTopKItem(item, r.Key); err != nil {
			return err
		}
		count.Append(r.Estimate)
		n++
	}
	if n < k && !nullAdded {
		st.Append(true)
		item.AppendNull()
		count.Append(t.NullCount)
	}
	return nil
}

// TopKItemDDL is Spark's DDL of the item type in approx_top_k's state.
func TopKItemDDL(t arrow.DataType) string {
	names := map[arrow.Type]string{arrow.BOOL: "BOOLEAN", arrow.INT8: "TINYINT", arrow.INT16: "SMALLINT",
		arrow.INT32: "INT", arrow.INT64: "BIGINT", arrow.FLOAT32: "FLOAT", arrow.FLOAT64: "DOUBLE",
		arrow.DATE32: "DATE", arrow.TIMESTAMP: "TIMESTAMP"}
	if t.ID() == arrow.STRING {
		return "item string not null"
	}
	return "item " + names[t.ID()] + " NOT NULL"
}
