package functions

import (
	"encoding/base64"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// This file is to_json: Spark's JacksonGenerator over Arrow values.

// Spark's JSON and CSV default datetime formats (JSONOptions, CSVOptions).
const (
	jsonTimestampFormat    = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"
	jsonTimestampNTZFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS"
	jsonDateFormat         = "yyyy-MM-dd"
)

// valueWriter writes Arrow values as Spark's generators write them.
type valueWriter struct {
	ts, tsNTZ, date *expr.DatetimePattern
	// ignoreNullFields leaves out struct fields that are null (Spark's
	// spark.sql.jsonGenerator.ignoreNullFields, true by default).
	ignoreNullFields bool
	// sortKeys writes struct fields sorted by name (the sortKeys option).
	sortKeys bool
	// loc is the session time zone timestamps are written in; textBound
	// sets it on its copy of the writer for each evaluation.
	loc *time.Location
}

func newValueWriter(ts, date string) (*valueWriter, error) {
	w := &valueWriter{ignoreNullFields: true, loc: time.UTC}
	var err error
	if w.ts, err = expr.ParseDatetimePattern(ts); err != nil {
		return nil, fmt.Errorf("timestampFormat %q: %w", ts, err)
	}
	if w.tsNTZ, err = expr.ParseDatetimePattern(jsonTimestampNTZFormat); err != nil {
		return nil, err
	}
	if w.date, err = expr.ParseDatetimePattern(date); err != nil {
		return nil, fmt.Errorf("dateFormat %q: %w", date, err)
	}
	return w, nil
}

// checkJSONWritable refuses the types to_json cannot write.
func checkJSONWritable(t arrow.DataType) error {
	switch t := t.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if err := checkJSONWritable(f.Type); err != nil {
				return err
			}
		}
		return nil
	case *arrow.MapType:
		if err := checkJSONWritable(t.KeyType()); err != nil {
			return err
		}
		return checkJSONWritable(t.ItemType())
	case *arrow.ListType:
		return checkJSONWritable(t.Elem())
	}
	switch t.ID() {
	case arrow.NULL, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64,
		arrow.STRING, arrow.BINARY, arrow.DECIMAL128, arrow.DATE32, arrow.TIMESTAMP, arrow.DURATION:
		return nil
	}
	return fmt.Errorf("the type %s cannot be written as JSON", types.SQL(t))
}

// appendJSON appends row i of a as JSON.
func (w *valueWriter) appendJSON(buf []byte, a arrow.Array, i int) []byte {
	if isNullAt(a, i) {
		return append(buf, "null"...)
	}
	switch a := a.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		buf = append(buf, '{')
		first := true
		for _, f := range w.fieldOrder(st) {
			col := a.Field(f)
			if isNullAt(col, i) && w.ignoreNullFields {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = jsonx.AppendQuoted(buf, st.Field(f).Name)
			buf = append(buf, ':')
			buf = w.appendJSON(buf, col, i)
		}
		return append(buf, '}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		buf = append(buf, '{')
		for j := start; j < end; j++ {
			if j > start {
				buf = append(buf, ',')
			}
			buf = jsonx.AppendQuoted(buf, w.keyText(a.Keys(), int(j)))
			buf = append(buf, ':')
			buf = w.appendJSON(buf, a.Items(), int(j))
		}
		return append(buf, '}')
	case *array.List:
		start, end := a.ValueOffsets(i)
		buf = append(buf, '[')
		for j := start; j < end; j++ {
			if j > start {
				buf = append(buf, ',')
			}
			buf = w.appendJSON(buf, a.ListValues(), int(j))
		}
		return append(buf, ']')
	case *array.String:
		return jsonx.AppendQuoted(buf, a.Value(i))
	case *array.Binary:
		return jsonx.AppendQuoted(buf, base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.Float64:
		return appendJavaDouble(buf, a.Value(i), 64)
	case *array.Float32:
		return appendJavaDouble(buf, float64(a.Value(i)), 32)
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return append(buf, expr.Decimal{Unscaled: a.Value(i), Precision: dt.Precision, Scale: dt.Scale}.String()...)
	}
	return w.appendScalar(buf, a, i, true)
}

// fieldOrder is the order struct fields are written in.
func (w *valueWriter) fieldOrder(st *arrow.StructType) []int {
	order := make([]int, st.NumFields())
	for i := range order {
		order[i] = i
	}
	if w.sortKeys {
		sort.SliceStable(order, func(i, j int) bool { return javaLess(st.Field(order[i]).Name, st.Field(order[j]).Name) })
	}
	return order
}

// appendScalar appends an atomic value: as a JSON value when quoted (a
// string, a timestamp in quotes), or as the text Spark's CSV writer and
// map keys use.
func (w *valueWriter) appendScalar(buf []byte, a arrow.Array, i int, quoted bool) []byte {
	text := ""
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.AppendBool(buf, a.Value(i))
	case *array.Int8:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(buf, a.Value(i), 10)
	case *array.Float64:
		return append(buf, numfmt.JavaFloat(a.Value(i), 64)...)
	case *array.Float32:
		return append(buf, numfmt.JavaFloat(float64(a.Value(i)), 32)...)
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return append(buf, expr.Decimal{Unscaled: a.Value(i), Precision: dt.Precision, Scale: dt.Scale}.String()...)
	case *array.String:
		text = a.Value(i)
	case *array.Binary:
		text = string(a.Value(i))
	case *array.Date32:
		text = w.date.Format(a.Value(i).ToTime().UTC())
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		t := a.Value(i).ToTime(tt.Unit).UTC()
		if tt.TimeZone == "" {
			text = w.tsNTZ.Format(t)
		} else {
			text = string(w.ts.AppendFormatIn(nil, t, w.loc))
		}
	case *array.Duration:
		text = types.IntervalText(int64(a.Value(i)))
	default:
		text = a.ValueStr(i)
	}
	if quoted {
		return jsonx.AppendQuoted(buf, text)
	}
	return append(buf, text...)
}

// keyText is a map key as JacksonGenerator names the field: its string,
// or the value's toString (a struct as [1,2]).
func (w *valueWriter) keyText(a arrow.Array, i int) string {
	switch k := a.(type) {
	case *array.Struct:
		b := []byte{'['}
		for f := 0; f < k.NumField(); f++ {
			if f > 0 {
				b = append(b, ',')
			}
			if isNullAt(k.Field(f), i) {
				b = append(b, "null"...)
				continue
			}
			b = append(b, w.keyText(k.Field(f), i)...)
		}
		return string(append(b, ']'))
	case *array.List, *array.Map:
		return string(w.appendJSON(nil, a, i))
	}
	return string(w.appendScalar(nil, a, i, false))
}

// isNullAt is a.IsNull(i), true for every row of an untyped NULL column
// (an Arrow null array has no validity bitmap).
func isNullAt(a arrow.Array, i int) bool {
	return a.DataType().ID() == arrow.NULL || a.IsNull(i)
}

// appendJavaDouble writes a double as Jackson's writeNumber does: Java's
// Double.toString (Float.toString for a float), NaN and the infinities
// quoted.
func appendJavaDouble(buf []byte, v float64, bits int) []byte {
	s := numfmt.JavaFloat(v, bits)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return jsonx.AppendQuoted(buf, s)
	}
	return append(buf, s...)
}

// toJSON is to_json(struct | array | map).
type toJSON struct {
	x    expr.Expr
	opts map[string]string
}

func (e *toJSON) String() string { return "to_json(" + e.x.String() + ")" }

func buildToJSON(name string, args []expr.Expr) (expr.Expr, error) {
	e := &toJSON{x: args[0]}
	if len(args) == 2 {
		o, err := constOptions(name, args[1])
		if err != nil {
			return nil, err
		}
		e.opts = o
	}
	return e, nil
}

// Bind checks the input is a struct, an array or a map of writable types.
func (e *toJSON) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := e.x.Bind(s)
	if err != nil {
		return nil, err
	}
	switch x.Type().ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP:
	default:
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.INVALID_JSON_SCHEMA] Cannot resolve \"%s\" due to data type mismatch: Input schema \"%s\" must be a struct, an array, a map or a variant. SQLSTATE: 42K09", e, types.SQL(x.Type()))
	}
	if err := checkJSONWritable(x.Type()); err != nil {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH] Cannot resolve \"%s\": %w", e, err)
	}
	w, err := writerWithOptions("to_json", e.opts, map[string]bool{"ignoreNullFields": true, "sortKeys": true})
	if err != nil {
		return nil, err
	}
	return &textBound{x: x, w: w, write: func(w *valueWriter, buf []byte, a arrow.Array, i int) ([]byte, error) {
		return w.appendJSON(buf, a, i), nil
	}}, nil
}

// writerWithOptions makes a value writer from Spark's timestampFormat and
// dateFormat options and the boolean options extra names; other options
// are refused by name.
func writerWithOptions(fn string, opts map[string]string, extra map[string]bool) (*valueWriter, error) {
	ts, date := jsonTimestampFormat, jsonDateFormat
	ignoreNull, sortKeys := true, false
	for k, v := range opts {
		switch {
		case k == "timestampFormat":
			ts = v
		case k == "dateFormat":
			date = v
		case (k == "ignoreNullFields" || k == "sortKeys") && extra[k]:
			if k == "sortKeys" {
				sortKeys = strings.EqualFold(v, "true")
			} else {
				ignoreNull = !strings.EqualFold(v, "false")
			}
		default:
			return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: the %s option %q (Atlas knows timestampFormat, dateFormat, and for to_json ignoreNullFields and sortKeys). SQLSTATE: 0A000", fn, k)
		}
	}
	w, err := newValueWriter(ts, date)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	w.ignoreNullFields, w.sortKeys = ignoreNull, sortKeys
	return w, nil
}

// textBound writes each non-null row of its input as text, with w in the
// session time zone.
type textBound struct {
	x     expr.Bound
	w     *valueWriter
	write func(w *valueWriter, buf []byte, a arrow.Array, i int) ([]byte, error)
}

func (b *textBound) Type() arrow.DataType { return tString }
func (b *textBound) Nullable() bool       { return true }
func (b *textBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	out := array.NewStringBuilder(mem)
	defer out.Release()
	w := *b.w
	w.loc = c.Zone()
	var buf []byte
	for i := 0; i < in.Len(); i++ {
		if isNullAt(in, i) {
			out.AppendNull()
			continue
		}
		if buf, err = b.write(&w, buf[:0], in, i); err != nil {
			return nil, err
		}
		out.BinaryBuilder.Append(buf)
	}
	return out.NewArray(), nil
}
