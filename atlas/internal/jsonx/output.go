package jsonx

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// output is a column's Arrow builder, held by its concrete type so that the
// commit loop appends without interface calls.
type output struct {
	any  array.Builder
	text *array.BinaryBuilder // string and binary
	i8   *array.Int8Builder
	i16  *array.Int16Builder
	i32  *array.Int32Builder
	i64  *array.Int64Builder
	f32  *array.Float32Builder
	f64  *array.Float64Builder
	bool *array.BooleanBuilder
	ts   *array.TimestampBuilder
	date *array.Date32Builder
	st   *array.StructBuilder
}

// bindBuilders points every column of lv at its field builder in sb.
func bindBuilders(lv *level, sb *array.StructBuilder) {
	for i := range lv.cols {
		c := &lv.cols[i]
		fb := sb.FieldBuilder(i)
		c.out = output{any: fb}
		switch c.kind {
		case kindString:
			c.out.text = fb.(*array.StringBuilder).BinaryBuilder
		case kindBinary:
			c.out.text = fb.(*array.BinaryBuilder)
		case kindInt8:
			c.out.i8 = fb.(*array.Int8Builder)
		case kindInt16:
			c.out.i16 = fb.(*array.Int16Builder)
		case kindInt32:
			c.out.i32 = fb.(*array.Int32Builder)
		case kindInt64:
			c.out.i64 = fb.(*array.Int64Builder)
		case kindFloat32:
			c.out.f32 = fb.(*array.Float32Builder)
		case kindFloat64:
			c.out.f64 = fb.(*array.Float64Builder)
		case kindBool:
			c.out.bool = fb.(*array.BooleanBuilder)
		case kindTimestamp:
			c.out.ts = fb.(*array.TimestampBuilder)
		case kindDate:
			c.out.date = fb.(*array.Date32Builder)
		case kindStruct:
			c.out.st = fb.(*array.StructBuilder)
			bindBuilders(c.child, c.out.st)
		}
	}
}

// commit appends the slots of lv for the current row to the builders; b is
// the row's input text, which string slots may point into. Every builder
// has room for the batch's rows (Decoder.start reserves them), so values
// are appended without a capacity check per row.
func (d *Decoder) commit(lv *level, b []byte) {
	for i := range lv.cols {
		c, s := &lv.cols[i], &lv.slots[i]
		if s.state != slotValue {
			c.out.any.AppendNull()
			continue
		}
		switch c.kind {
		case kindString, kindBinary:
			src := b
			if s.inScratch {
				src = d.scratch
			}
			if v := src[s.off:s.end]; c.out.text.DataCap()-c.out.text.DataLen() >= len(v) {
				c.out.text.UnsafeAppend(v)
			} else {
				c.out.text.Append(v) // grows the data buffer geometrically
			}
		case kindInt8:
			c.out.i8.UnsafeAppend(int8(s.i))
		case kindInt16:
			c.out.i16.UnsafeAppend(int16(s.i))
		case kindInt32:
			c.out.i32.UnsafeAppend(int32(s.i))
		case kindInt64:
			c.out.i64.UnsafeAppend(s.i)
		case kindFloat32:
			c.out.f32.UnsafeAppend(float32(s.f))
		case kindFloat64:
			c.out.f64.UnsafeAppend(s.f)
		case kindBool:
			c.out.bool.UnsafeAppend(s.i != 0)
		case kindTimestamp:
			c.out.ts.UnsafeAppend(arrow.Timestamp(s.i))
		case kindDate:
			c.out.date.UnsafeAppend(arrow.Date32(s.i))
		case kindStruct:
			c.out.st.Append(true)
			d.commit(c.child, b)
		}
	}
}

// reserve makes room in every builder of lv for n rows, and in text
// builders for the bytes per row the previous batch had.
func reserve(lv *level, n int) {
	for i := range lv.cols {
		c := &lv.cols[i]
		switch c.kind {
		case kindString, kindBinary:
			if c.lastRows > 0 {
				c.out.text.ReserveData(int(int64(c.lastBytes) * int64(n) / int64(c.lastRows) * 9 / 8))
			}
		case kindStruct:
			reserve(c.child, n)
		}
	}
}

// remember notes the text bytes per row of the batch just built, before
// NewArray resets the builders.
func remember(lv *level) {
	for i := range lv.cols {
		c := &lv.cols[i]
		switch c.kind {
		case kindString, kindBinary:
			c.lastBytes, c.lastRows = c.out.text.DataLen(), c.out.text.Len()
		case kindStruct:
			remember(c.child)
		}
	}
}

// sqlName is the Spark DDL name of t for error messages.
func sqlName(t arrow.DataType) string { return types.SQLName(t) }
