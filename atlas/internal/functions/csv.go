package functions

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// csvDefs defines the csv group: from_csv, to_csv and schema_of_csv, with
// Spark's CSV defaults (delimiter ',', quote '"', escape '\', empty value
// and null value "").
func csvDefs() []*Def {
	return []*Def{
		{Name: "from_csv", Group: "csv", MinArgs: 2, MaxArgs: 3, Build: buildFromCSV, ColumnName: firstArgName},
		{Name: "to_csv", Group: "csv", MinArgs: 1, MaxArgs: 2, Build: buildToCSV, ColumnName: firstArgName},
		{Name: "schema_of_csv", Group: "csv", MinArgs: 1, MaxArgs: 2, Build: buildSchemaOfCSV, ColumnName: firstArgName},
	}
}

// splitCSV splits one CSV record as Spark's Univocity parser reads it: a
// field in quotes may hold delimiters, with \" or "" for a quote; an empty
// field is "" (both null for Spark's default nullValue).
func splitCSV(line string) []string {
	var out []string
	for i := 0; ; {
		var sb strings.Builder
		if i < len(line) && line[i] == '"' {
			i++
		quoted:
			for i < len(line) {
				c := line[i]
				switch {
				case (c == '\\' || c == '"') && i+1 < len(line) && line[i+1] == '"':
					sb.WriteByte('"')
					i += 2
				case c == '"':
					i++
					for i < len(line) && line[i] != ',' {
						i++ // text after the closing quote is dropped
					}
					break quoted
				default:
					sb.WriteByte(c)
					i++
				}
			}
		} else {
			j := strings.IndexByte(line[i:], ',')
			if j < 0 {
				j = len(line) - i
			}
			sb.WriteString(line[i : i+j])
			i += j
		}
		out = append(out, sb.String())
		if i >= len(line) {
			return out
		}
		i++ // the delimiter
	}
}

// csvRecord is the first line of a CSV text.
func csvRecord(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// --- from_csv ---------------------------------------------------------------

func buildFromCSV(name string, args []expr.Expr) (expr.Expr, error) {
	ddl, err := foldableString(name, args[1], "schema")
	if err != nil {
		return nil, err
	}
	schema, err := types.ParseDDL(ddl)
	if err != nil {
		return nil, fmt.Errorf("[PARSE_SYNTAX_ERROR] %s: the schema %q: %w. SQLSTATE: 42601", name, ddl, err)
	}
	conv := &csvReader{}
	if len(args) == 3 {
		opts, err := constOptions(name, args[2])
		if err != nil {
			return nil, err
		}
		for k, v := range opts {
			p, err := expr.ParseDatetimePattern(v)
			switch {
			case k != "timestampFormat" && k != "dateFormat":
				return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: the %s option %q (Atlas knows timestampFormat and dateFormat). SQLSTATE: 0A000", name, k)
			case err != nil:
				return nil, fmt.Errorf("%s: %s %q: %w", name, k, v, err)
			case k == "timestampFormat":
				conv.ts = p
			default:
				conv.date = p
			}
		}
	}
	for _, f := range schema.Fields() {
		if _, ok := f.Type.(arrow.NestedType); ok {
			return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE] %s: the field %s has the type %s; CSV fields are atomic. SQLSTATE: 42K09", name, f.Name, types.SQL(f.Type))
		}
	}
	return &fromCSV{x: args[0], typ: arrow.StructOf(schema.Fields()...), conv: conv}, nil
}

// csvReader converts CSV fields to values as Spark's UnivocityParser does.
type csvReader struct {
	ts, date *expr.DatetimePattern // nil: Spark's cast-like default parsing
}

// convert reads one field for type t; ok=false when it does not convert
// (a malformed field, NULL in PERMISSIVE mode). An empty field is NULL.
func (r *csvReader) convert(s string, t arrow.DataType, loc *time.Location) (any, bool) {
	if s == "" {
		return nil, true
	}
	switch t.ID() {
	case arrow.STRING:
		return s, true
	case arrow.BINARY:
		return []byte(s), true
	case arrow.BOOL:
		switch strings.ToLower(s) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		n, err := strconv.ParseInt(s, 10, t.(arrow.FixedWidthDataType).BitWidth())
		return n, err == nil
	case arrow.FLOAT32, arrow.FLOAT64:
		switch s {
		case "NaN":
			return math.NaN(), true
		case "Inf":
			return math.Inf(1), true
		case "-Inf":
			return math.Inf(-1), true
		}
		return javaParseDouble(s)
	case arrow.DECIMAL128:
		d, err := expr.ParseDecimal(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			return nil, false
		}
		d, ok, _ := expr.RescaleDecimal(d, t.(*arrow.Decimal128Type), expr.RoundHalfUp, false)
		return d, ok
	case arrow.DATE32:
		if r.date != nil {
			tm, err := r.date.Parse(s)
			return tm, err == nil
		}
		d, ok := expr.ParseSparkDate(s)
		return d.ToTime(), ok
	case arrow.TIMESTAMP:
		if r.ts != nil {
			tm, err := r.ts.ParseIn(s, loc)
			return tm, err == nil
		}
		return expr.ParseSparkTimestampIn(s, loc)
	}
	return nil, false
}

// javaParseDouble is Java's Double.parseDouble: surrounding blanks and
// control characters ignored, an optional f/F/d/D suffix, Infinity and
// NaN spelled so.
func javaParseDouble(s string) (any, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	body := strings.TrimLeft(s, "+-")
	switch body {
	case "Infinity", "NaN":
	default:
		if n := len(s); n > 0 && strings.ContainsRune("fFdD", rune(s[n-1])) {
			s = s[:n-1]
		}
		if low := strings.ToLower(body); strings.Contains(low, "inf") || strings.Contains(low, "nan") || strings.Contains(s, "_") || s == "" {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return nil, false
	}
	return f, true
}

// fromCSV is from_csv(str, schema) in PERMISSIVE mode: a field that does
// not convert is NULL, missing fields are NULL, extra ones dropped.
type fromCSV struct {
	x    expr.Expr
	typ  *arrow.StructType
	conv *csvReader
}

func (e *fromCSV) String() string { return "from_csv(" + e.x.String() + ")" }

// Bind checks the input is a string.
func (e *fromCSV) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := e.x.Bind(s)
	if err != nil {
		return nil, err
	}
	if err := castable(x.Type(), tString); err != nil {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] %s: %w", e, err)
	}
	return &fromCSVBound{x: expr.CastBound(x, tString), nullable: x.Nullable(), e: e}, nil
}

type fromCSVBound struct {
	x        expr.Bound
	nullable bool
	e        *fromCSV
}

func (b *fromCSVBound) Type() arrow.DataType { return b.e.typ }
func (b *fromCSVBound) Nullable() bool       { return b.nullable }
func (b *fromCSVBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
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
	fields := b.e.typ.Fields()
	loc := c.Zone()
	for i := 0; i < in.Len(); i++ {
		if isNullAt(in, i) {
			bld.AppendNull()
			continue
		}
		bld.Append(true)
		toks := splitCSV(csvRecord(in.(*array.String).Value(i)))
		for f, fd := range fields {
			var v any
			if f < len(toks) {
				if cv, ok := b.e.conv.convert(toks[f], fd.Type, loc); ok {
					v = cv
				}
			}
			if err := appendValue(bld.FieldBuilder(f), v); err != nil {
				return nil, fmt.Errorf("%s: %w", b.e, err)
			}
		}
	}
	return bld.NewArray(), nil
}

// --- to_csv -----------------------------------------------------------------

func buildToCSV(name string, args []expr.Expr) (expr.Expr, error) {
	e := &toCSV{x: args[0]}
	if len(args) == 2 {
		o, err := constOptions(name, args[1])
		if err != nil {
			return nil, err
		}
		e.opts = o
	}
	return e, nil
}

// toCSV is to_csv(struct): the struct's fields as one CSV record.
type toCSV struct {
	x    expr.Expr
	opts map[string]string
}

func (e *toCSV) String() string { return "to_csv(" + e.x.String() + ")" }

// Bind checks the input is a struct of atomic values.
func (e *toCSV) Bind(s *arrow.Schema) (expr.Bound, error) {
	x, err := e.x.Bind(s)
	if err != nil {
		return nil, err
	}
	st, ok := x.Type().(*arrow.StructType)
	if !ok {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"%s\" due to data type mismatch: the first parameter requires the \"STRUCT\" type, however %s has the type \"%s\". SQLSTATE: 42K09", e, e.x, types.SQL(x.Type()))
	}
	for _, f := range st.Fields() {
		switch f.Type.ID() {
		case arrow.STRUCT, arrow.LIST, arrow.MAP, arrow.BINARY, arrow.DURATION:
			return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE] Cannot resolve \"%s\" due to data type mismatch: the input of `to_csv` can't be \"%s\" type data. SQLSTATE: 42K09", e, types.SQL(f.Type))
		}
	}
	w, err := writerWithOptions("to_csv", e.opts, nil)
	if err != nil {
		return nil, err
	}
	return &textBound{x: x, w: w, write: func(w *valueWriter, buf []byte, a arrow.Array, i int) ([]byte, error) {
		sa := a.(*array.Struct)
		for f := 0; f < sa.NumField(); f++ {
			if f > 0 {
				buf = append(buf, ',')
			}
			col := sa.Field(f)
			if isNullAt(col, i) {
				continue // nullValue ""
			}
			buf = appendCSVField(buf, string(w.appendScalar(nil, col, i, false)))
		}
		return buf, nil
	}}, nil
}

// appendCSVField writes one value as Spark's Univocity writer does:
// blanks around it trimmed, "" for an empty string, quotes (with \" for a
// quote) when it holds a delimiter, a quote or a line break.
func appendCSVField(buf []byte, s string) []byte {
	s = strings.Trim(s, " \t")
	if s == "" {
		return append(buf, `""`...)
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	buf = append(buf, strings.ReplaceAll(s, `"`, `\"`)...)
	return append(buf, '"')
}

// --- schema_of_csv ----------------------------------------------------------

func buildSchemaOfCSV(name string, args []expr.Expr) (expr.Expr, error) {
	text, err := foldableString(name, args[0], "csv")
	if err != nil {
		return nil, err
	}
	if len(args) == 2 {
		if _, err := constOptions(name, args[1]); err != nil {
			return nil, err
		}
	}
	toks := splitCSV(csvRecord(text))
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = fmt.Sprintf("_c%d: %s", i, inferCSVField(t))
	}
	ddl := "STRUCT<" + strings.Join(parts, ", ") + ">"
	return &expr.Named{X: &expr.Literal{Value: ddl}, Name: name + "(" + args[0].String() + ")"}, nil
}

// inferCSVField is CSVInferSchema.inferField for one field of one record:
// INT, BIGINT, DECIMAL(p,0) for a longer integer, DOUBLE, DATE,
// TIMESTAMP, BOOLEAN, else STRING (also for an empty field).
func inferCSVField(s string) string {
	if s == "" {
		return "STRING"
	}
	if _, err := strconv.ParseInt(s, 10, 32); err == nil {
		return "INT"
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return "BIGINT"
	}
	if d, err := expr.ParseDecimal(s); err == nil && d.Scale == 0 && !strings.ContainsAny(s, ".eE") {
		n, _ := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if n != nil {
			return fmt.Sprintf("DECIMAL(%d,0)", len(new(big.Int).Abs(n).String()))
		}
	}
	if _, ok := javaParseDouble(s); ok || s == "NaN" || s == "Inf" || s == "-Inf" {
		return "DOUBLE"
	}
	if isStrictDate(s) {
		return "DATE"
	}
	if _, ok := expr.ParseSparkTimestamp(s); ok {
		return "TIMESTAMP"
	}
	if low := strings.ToLower(s); low == "true" || low == "false" {
		return "BOOLEAN"
	}
	return "STRING"
}

// isStrictDate reports whether s is a date in Spark's default dateFormat,
// yyyy-MM-dd.
func isStrictDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}
