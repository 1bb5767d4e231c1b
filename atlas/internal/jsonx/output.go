package jsonx

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// output collects one column's values for the batch being decoded in plain
// Go slices, sized for the batch's rows when it starts, and hands them to
// Arrow as the array's buffers when it ends. An Arrow builder per column
// cost a call through a function value per string offset, a capacity
// check per value and a second zeroing of every buffer it reserved: a
// fifth of from_json's time.
type output struct {
	n, nulls int
	valid    []byte // validity bitmap: bit i set when row i has a value

	offs []int32 // string, binary: n+1 offsets into data
	data []byte  // string, binary: the values' bytes
	i64  []int64 // bigint, timestamp
	i32  []int32 // int, date
	i16  []int16
	i8   []int8
	f64  []float64
	f32  []float32
	bits []byte // boolean values, a bitmap
}

// start readies every column of lv for n rows; text columns reserve the
// bytes per row the previous batch had.
func start(lv *level, n int) {
	for i := range lv.cols {
		c := &lv.cols[i]
		o := &c.out
		*o = output{valid: make([]byte, (n+7)/8)}
		switch c.kind {
		case kindString, kindBinary:
			o.offs = make([]int32, 1, n+1)
			hint := 16 * n
			if c.lastRows > 0 {
				hint = int(int64(c.lastBytes) * int64(n) / int64(c.lastRows) * 9 / 8)
			}
			o.data = make([]byte, 0, hint)
		case kindInt64, kindTimestamp:
			o.i64 = make([]int64, 0, n)
		case kindInt32, kindDate:
			o.i32 = make([]int32, 0, n)
		case kindInt16:
			o.i16 = make([]int16, 0, n)
		case kindInt8:
			o.i8 = make([]int8, 0, n)
		case kindFloat64:
			o.f64 = make([]float64, 0, n)
		case kindFloat32:
			o.f32 = make([]float32, 0, n)
		case kindBool:
			o.bits = make([]byte, (n+7)/8)
		case kindStruct:
			start(c.child, n)
		}
	}
}

// appendNull appends a null to column c (and, for a struct, to each of its
// fields, as Arrow's struct children hold one row per struct row).
func appendNull(c *column) {
	o := &c.out
	o.nulls++
	o.n++
	switch c.kind {
	case kindString, kindBinary:
		o.offs = append(o.offs, int32(len(o.data)))
	case kindInt64, kindTimestamp:
		o.i64 = append(o.i64, 0)
	case kindInt32, kindDate:
		o.i32 = append(o.i32, 0)
	case kindInt16:
		o.i16 = append(o.i16, 0)
	case kindInt8:
		o.i8 = append(o.i8, 0)
	case kindFloat64:
		o.f64 = append(o.f64, 0)
	case kindFloat32:
		o.f32 = append(o.f32, 0)
	case kindStruct:
		for i := range c.child.cols {
			appendNull(&c.child.cols[i])
		}
	}
}

// appendNulls appends a null to every column of lv.
func appendNulls(lv *level) {
	for i := range lv.cols {
		appendNull(&lv.cols[i])
	}
}

// setValid marks the row about to be appended to o as valid.
func (o *output) setValid() {
	o.valid[o.n>>3] |= 1 << (o.n & 7)
	o.n++
}

// commit appends the slots of lv for the current row; b is the row's
// input text, which string slots may point into.
func (d *Decoder) commit(lv *level, b []byte) {
	for i := range lv.cols {
		c, s := &lv.cols[i], &lv.slots[i]
		if s.state != slotValue {
			appendNull(c)
			continue
		}
		o := &c.out
		switch c.kind {
		case kindString, kindBinary:
			src := b
			if s.inScratch {
				src = d.scratch
			}
			o.data = append(o.data, src[s.off:s.end]...)
			o.offs = append(o.offs, int32(len(o.data)))
		case kindInt8:
			o.i8 = append(o.i8, int8(s.i))
		case kindInt16:
			o.i16 = append(o.i16, int16(s.i))
		case kindInt32, kindDate:
			o.i32 = append(o.i32, int32(s.i))
		case kindInt64, kindTimestamp:
			o.i64 = append(o.i64, s.i)
		case kindFloat32:
			o.f32 = append(o.f32, float32(s.f))
		case kindFloat64:
			o.f64 = append(o.f64, s.f)
		case kindBool:
			if s.i != 0 {
				o.bits[o.n>>3] |= 1 << (o.n & 7)
			}
		case kindStruct:
			d.commit(c.child, b)
		}
		o.setValid()
	}
}

// finish turns the columns of lv into the child arrays' data of a struct
// of n rows, and notes the text bytes per row for the next batch.
func finish(lv *level, n int) []arrow.ArrayData {
	children := make([]arrow.ArrayData, len(lv.cols))
	for i := range lv.cols {
		c := &lv.cols[i]
		o := &c.out
		var validity *memory.Buffer
		if o.nulls > 0 {
			validity = memory.NewBufferBytes(o.valid)
		}
		var bufs []*memory.Buffer
		var kids []arrow.ArrayData
		switch c.kind {
		case kindString, kindBinary:
			c.lastBytes, c.lastRows = len(o.data), n
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(o.offs)), memory.NewBufferBytes(o.data)}
		case kindInt64, kindTimestamp:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(o.i64))}
		case kindInt32, kindDate:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(o.i32))}
		case kindInt16:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int16Traits.CastToBytes(o.i16))}
		case kindInt8:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int8Traits.CastToBytes(o.i8))}
		case kindFloat64:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(o.f64))}
		case kindFloat32:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Float32Traits.CastToBytes(o.f32))}
		case kindBool:
			bufs = []*memory.Buffer{validity, memory.NewBufferBytes(o.bits)}
		case kindStruct:
			bufs = []*memory.Buffer{validity}
			kids = finish(c.child, n)
		}
		children[i] = array.NewData(c.typ, n, bufs, kids, o.nulls, 0)
		for _, k := range kids {
			k.Release()
		}
		*o = output{}
	}
	return children
}

// sqlName is the Spark DDL name of t for error messages.
func sqlName(t arrow.DataType) string { return types.SQLName(t) }
