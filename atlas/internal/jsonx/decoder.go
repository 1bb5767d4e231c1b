package jsonx

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Decoder is from_json(col, schema) for one schema: it turns a column of
// JSON texts into a struct array, one row per text. See the package
// documentation for the exact Spark semantics.
//
// A Decoder keeps buffers between calls so that decoding allocates nothing
// per row; it is not safe for concurrent use. Use one Decoder per goroutine.
type Decoder struct {
	schema *arrow.Schema
	typ    *arrow.StructType
	opts   Options
	root   *level

	// The rows of the batch being decoded: their count and the struct's
	// validity (the columns' values are in root's outputs).
	n, nulls int
	valid    []byte

	scratch []byte    // unescaped text of the current row's strings
	keyBuf  []byte    // unescaped text of the current key
	decoded []byte    // base64-decoded bytes of the current value
	zones   zoneCache // region time zones seen so far
	dates   dateCache // the last date the timestamp fast path parsed

	row    int  // index of the current row, for error messages
	rowBad bool // the current row has a field that did not convert
	stats  Stats
}

// NewDecoder returns a Decoder for schema, whose fields become the fields of
// the decoded struct. Supported field types are string, binary, int8/16/32/64,
// float32/64, boolean, timestamp[us, tz=UTC] (types.Timestamp), date32 and
// structs of these; any other type is an error naming the field.
func NewDecoder(schema *arrow.Schema, opts Options) (*Decoder, error) {
	if schema == nil {
		return nil, fmt.Errorf("jsonx: new decoder: schema is nil")
	}
	root, err := compileLevel(schema.Fields(), "")
	if err != nil {
		return nil, fmt.Errorf("jsonx: new decoder for schema %s: %w", schema, err)
	}
	return &Decoder{
		schema: schema,
		typ:    arrow.StructOf(schema.Fields()...),
		opts:   opts,
		root:   root,
		zones:  zoneCache{},
	}, nil
}

// Schema returns the schema the Decoder was made for.
func (d *Decoder) Schema() *arrow.Schema { return d.schema }

// Type returns the type of the struct arrays Decode returns: a struct of
// the schema's fields.
func (d *Decoder) Type() *arrow.StructType { return d.typ }

// Release is kept for callers that release what they hold: the Decoder
// keeps nothing between calls but scratch space the garbage collector
// frees.
func (d *Decoder) Release() {}

// Decode parses every value of values, a *array.Binary, *array.String,
// *array.LargeBinary or *array.LargeString column of JSON texts, and returns
// a struct array with one row per value. Its buffers are Go memory, which
// the garbage collector frees. The caller owns the result and should
// Release it.
// Bad rows do not fail the call: they become nulls as Spark's PERMISSIVE
// mode says and are counted in Stats. The error is for input of the wrong
// type only.
func (d *Decoder) Decode(values arrow.Array) (*array.Struct, Stats, error) {
	if values == nil {
		return nil, Stats{}, fmt.Errorf("jsonx: decode: values column is nil")
	}
	d.stats = Stats{}
	switch a := values.(type) {
	case *array.Binary:
		d.start(a.Len())
		decodeRows(d, a, a.ValueOffsets(), a.Data().Buffers()[2])
	case *array.String:
		d.start(a.Len())
		decodeRows(d, a, a.ValueOffsets(), a.Data().Buffers()[2])
	case *array.LargeBinary:
		d.start(a.Len())
		decodeRows(d, a, a.ValueOffsets(), a.Data().Buffers()[2])
	case *array.LargeString:
		d.start(a.Len())
		decodeRows(d, a, a.ValueOffsets(), a.Data().Buffers()[2])
	default:
		return nil, Stats{}, fmt.Errorf("jsonx: decode: values column is %s, want binary or string", values.DataType())
	}
	return d.finish(), d.stats, nil
}

// start readies the outputs for n rows.
func (d *Decoder) start(n int) {
	d.n, d.nulls = 0, 0
	d.valid = make([]byte, (n+7)/8)
	start(d.root, n)
}

// appendRow appends a struct row: valid, its fields to be committed; or
// null, with a null in every field.
func (d *Decoder) appendRow(valid bool) {
	if valid {
		d.valid[d.n>>3] |= 1 << (d.n & 7)
	} else {
		d.nulls++
		appendNulls(d.root)
	}
	d.n++
}

// finish returns the decoded struct array.
func (d *Decoder) finish() *array.Struct {
	var validity *memory.Buffer
	if d.nulls > 0 {
		validity = memory.NewBufferBytes(d.valid)
	}
	children := finish(d.root, d.n)
	data := array.NewData(d.typ, d.n, []*memory.Buffer{validity}, children, d.nulls, 0)
	for _, c := range children {
		c.Release()
	}
	out := array.NewStructData(data)
	data.Release()
	d.valid = nil
	return out
}

// decodeRows decodes every row of a binary-like column given its offsets
// and data buffer.
func decodeRows[O int32 | int64](d *Decoder, a arrow.Array, offsets []O, data *memory.Buffer) {
	var buf []byte
	if data != nil {
		buf = data.Bytes()
	}
	hasNulls := a.NullN() > 0
	for r := 0; r+1 < len(offsets); r++ {
		if hasNulls && a.IsNull(r) {
			d.appendRow(false)
			continue
		}
		d.row = r
		d.decodeRow(buf[offsets[r]:offsets[r+1]])
	}
}

// decodeRow decodes one JSON text and appends its row.
func (d *Decoder) decodeRow(b []byte) {
	i := skipWS(b, 0)
	if i == len(b) {
		// Spark's parser yields no row for empty input: a null struct.
		d.appendRow(false)
		return
	}
	d.scratch = d.scratch[:0]
	d.rowBad = false
	if b[i] != '{' {
		d.malformedRow(i, synNotObject)
		return
	}
	if end, err := d.parseObject(b, i+1, d.root, 1); err != synOK {
		d.malformedRow(end, err)
		return
	}
	d.appendRow(true)
	d.commit(d.root, b)
	if d.rowBad {
		d.stats.Malformed++
	}
}

// malformedRow appends the all-null row Spark gives a record that is not a
// JSON object and records why.
func (d *Decoder) malformedRow(pos int, err synErr) {
	d.stats.Malformed++
	if d.stats.FirstError == "" {
		if err == synNotObject {
			d.stats.FirstError = fmt.Sprintf("row %d: not a JSON object", d.row)
		} else {
			d.stats.FirstError = fmt.Sprintf("row %d: malformed JSON at byte %d: %s", d.row, pos, err)
		}
	}
	d.appendRow(true)
	appendNulls(d.root)
}

// mismatch records that the value raw of column c does not fit its type.
func (d *Decoder) mismatch(c *column, raw []byte) {
	d.rowBad = true
	if d.stats.FirstError == "" {
		const maxShown = 64
		shown := string(raw)
		if len(shown) > maxShown {
			shown = shown[:maxShown] + "..."
		}
		d.stats.FirstError = fmt.Sprintf("row %d: field %q: cannot parse %s as %s", d.row, c.path, shown, sqlName(c.typ))
	}
}
