package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// This file is from_json for the schemas and options the streaming decoder
// (package jsonx, the hot path) does not take: arrays and maps in the
// schema, and the timestampFormat / dateFormat options. It parses each
// record into a tree and converts it with the decoder's PERMISSIVE rules:
// a malformed record or one whose top level is not an object is a struct
// of NULLs, a value that does not fit its field's type is NULL for that
// field only, a missing field or JSON null is NULL.

// needsTreeDecoder reports whether a schema holds a type jsonx does not
// decode (an array or a map, at any depth).
func needsTreeDecoder(fields []arrow.Field) bool {
	for _, f := range fields {
		switch t := f.Type.(type) {
		case *arrow.ListType, *arrow.MapType:
			return true
		case *arrow.StructType:
			if needsTreeDecoder(t.Fields()) {
				return true
			}
		}
	}
	return false
}

// fromJSONTree is from_json(json, schema[, options]) over parsed trees.
type fromJSONTree struct {
	x        expr.Expr
	typ      *arrow.StructType
	ts, date *expr.DatetimePattern // nil: Spark's default grammars
}

func (e *fromJSONTree) String() string { return "from_json(" + e.x.String() + ")" }

// treeOptions reads from_json's options.
func (e *fromJSONTree) setOptions(opts map[string]string) error {
	for k, v := range opts {
		if k != "timestampFormat" && k != "dateFormat" {
			return fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: the from_json option %q (Atlas knows timestampFormat and dateFormat). SQLSTATE: 0A000", k)
		}
		p, err := expr.ParseDatetimePattern(v)
		if err != nil {
			return fmt.Errorf("from_json: %s %q: %w", k, v, err)
		}
		if k == "timestampFormat" {
			e.ts = p
		} else {
			e.date = p
		}
	}
	return nil
}

// Bind checks the input is a string.
func (e *fromJSONTree) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := e.x.Bind(s)
	if err != nil {
		return nil, err
	}
	if id := x.Type().ID(); id != arrow.STRING && id != arrow.BINARY && id != arrow.NULL {
		return nil, fmt.Errorf("from_json(%s): the input must be string or binary, got %s", e.x, types.Name(x.Type()))
	}
	return &fromJSONTreeBound{x: expr.CastBound(x, tString), e: e}, nil
}

type fromJSONTreeBound struct {
	x expr.Bound
	e *fromJSONTree
}

func (b *fromJSONTreeBound) Type() arrow.DataType { return b.e.typ }
func (b *fromJSONTreeBound) Nullable() bool       { return true }
func (b *fromJSONTreeBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	bld := array.NewStructBuilder(mem, b.e.typ)
	defer bld.Release()
	malformed := int64(0)
	loc := c.Zone()
	for i := 0; i < in.Len(); i++ {
		if isNullAt(in, i) {
			bld.AppendNull()
			continue
		}
		v, err := jsonx.ParseTree([]byte(in.(*array.String).Value(i)), jsonx.TreeOptions{SingleQuotes: true, NonNumeric: true})
		if err == jsonx.ErrEmpty {
			bld.AppendNull()
			continue
		}
		row := make([]any, len(b.e.typ.Fields()))
		if err != nil || v.Kind != jsonx.Object {
			malformed++
		} else if !(treeConv{b.e, loc}).convertObject(v, b.e.typ, row) {
			malformed++
		}
		if err := appendNested(bld, row); err != nil {
			return nil, fmt.Errorf("%s: %w", b.e, err)
		}
	}
	c.Add(expr.MetricMalformed, malformed)
	return bld.NewArray(), nil
}

// treeConv converts trees for one evaluation: timestamps without a zone
// are wall clocks in the session time zone loc.
type treeConv struct {
	*fromJSONTree
	loc *time.Location
}

// convertObject fills row with the fields of st found in v; ok is false
// when a value did not fit its field (that field stays NULL).
func (e treeConv) convertObject(v *jsonx.Value, st *arrow.StructType, row []any) bool {
	ok := true
	for k, key := range v.Keys {
		f, found := st.FieldIdx(key)
		if !found {
			continue
		}
		val, fits := e.convert(v.Elems[k], st.Field(f).Type)
		if !fits {
			ok = false
			continue // an earlier value of a repeated key stays
		}
		row[f] = val
	}
	return ok
}

// convert converts one JSON value to a field type's Go value (nil for
// JSON null); fits is false when it does not fit the type.
func (e treeConv) convert(v *jsonx.Value, t arrow.DataType) (any, bool) {
	if v.Kind == jsonx.Null {
		return nil, true
	}
	switch t := t.(type) {
	case *arrow.StructType:
		if v.Kind != jsonx.Object {
			return nil, false
		}
		row := make([]any, t.NumFields())
		return row, e.convertObject(v, t, row)
	case *arrow.ListType:
		if v.Kind != jsonx.Array {
			return nil, false
		}
		out := make([]any, len(v.Elems))
		for i, el := range v.Elems {
			x, ok := e.convert(el, t.Elem())
			if !ok {
				return nil, false
			}
			out[i] = x
		}
		return out, true
	case *arrow.MapType:
		if v.Kind != jsonx.Object || t.KeyType().ID() != arrow.STRING {
			return nil, false
		}
		out := make([][2]any, len(v.Keys))
		for i, k := range v.Keys {
			x, ok := e.convert(v.Elems[i], t.ItemType())
			if !ok {
				return nil, false
			}
			out[i] = [2]any{k, x}
		}
		return out, true
	}
	return e.convertScalar(v, t)
}

func (e treeConv) convertScalar(v *jsonx.Value, t arrow.DataType) (any, bool) {
	switch t.ID() {
	case arrow.STRING:
		switch v.Kind {
		case jsonx.String:
			return v.Text, true
		case jsonx.Number, jsonx.Bool:
			return v.Text, true
		}
		return string(jsonx.AppendJSON(nil, v)), true
	case arrow.BINARY:
		if v.Kind == jsonx.String {
			return []byte(v.Text), true
		}
	case arrow.BOOL:
		if v.Kind == jsonx.Bool {
			return v.Text == "true", true
		}
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		if v.Kind == jsonx.Number && !v.Float {
			n, err := strconv.ParseInt(v.Text, 10, t.(arrow.FixedWidthDataType).BitWidth())
			return n, err == nil
		}
	case arrow.FLOAT32, arrow.FLOAT64:
		text := v.Text
		if v.Kind == jsonx.String {
			switch text {
			case "NaN", "Infinity", "+Infinity", "-Infinity", "+INF", "-INF":
			default:
				return nil, false
			}
		} else if v.Kind != jsonx.Number {
			return nil, false
		}
		switch text {
		case "+INF", "Infinity", "+Infinity":
			return math.Inf(1), true
		case "-INF", "-Infinity":
			return math.Inf(-1), true
		}
		f, err := strconv.ParseFloat(text, 64)
		return f, err == nil || strings.Contains(err.Error(), "range")
	case arrow.DECIMAL128:
		if v.Kind == jsonx.Number || (v.Kind == jsonx.String && v.Text != "") {
			d, err := expr.ParseDecimal(v.Text)
			if err != nil {
				return nil, false
			}
			d, ok, _ := expr.RescaleDecimal(d, t.(*arrow.Decimal128Type), expr.RoundHalfUp, false)
			return d, ok
		}
	case arrow.TIMESTAMP:
		switch {
		case v.Kind == jsonx.Number && !v.Float:
			n, err := strconv.ParseInt(v.Text, 10, 64)
			if err != nil || n > math.MaxInt64/1_000_000 || n < math.MinInt64/1_000_000 {
				return nil, false
			}
			return timeFromMicros(n * 1_000_000), true
		case v.Kind == jsonx.String && e.ts != nil:
			tm, err := e.ts.ParseIn(v.Text, e.loc)
			return tm, err == nil
		case v.Kind == jsonx.String:
			return expr.ParseSparkTimestampIn(v.Text, e.loc)
		}
	case arrow.DATE32:
		switch {
		case v.Kind == jsonx.String && e.date != nil:
			tm, err := e.date.Parse(v.Text)
			return tm, err == nil
		case v.Kind == jsonx.String:
			d, ok := expr.ParseSparkDate(v.Text)
			return d.ToTime(), ok
		}
	}
	return nil, false
}

func timeFromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// appendNested appends a struct row (fields as Go values, nested structs
// as []any, maps as [][2]any) to a struct builder.
func appendNested(b *array.StructBuilder, row []any) error {
	b.Append(true)
	for i, v := range row {
		if err := appendAny(b.FieldBuilder(i), v); err != nil {
			return err
		}
	}
	return nil
}

func appendAny(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.StructBuilder:
		return appendNested(b, v.([]any))
	case *array.MapBuilder:
		b.Append(true)
		for _, kv := range v.([][2]any) {
			if err := appendAny(b.KeyBuilder(), kv[0]); err != nil {
				return err
			}
			if err := appendAny(b.ItemBuilder(), kv[1]); err != nil {
				return err
			}
		}
		return nil
	case *array.ListBuilder:
		b.Append(true)
		for _, x := range v.([]any) {
			if err := appendAny(b.ValueBuilder(), x); err != nil {
				return err
			}
		}
		return nil
	}
	return appendValue(b, v)
}
