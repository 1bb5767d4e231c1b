package file

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// readCSV reads CSV with encoding/csv (RFC 4180 quoting: a quote inside a
// quoted field is written twice) and converts each line's fields by the
// schema's types, by position as Spark does with a user schema. The
// fields go through the same decoder as JSON, as typed JSON values, so
// timestamps and dates follow Spark's cast grammar and a field that does
// not convert is null and marks its line malformed. A line with more or
// fewer fields than the schema is malformed too; in PERMISSIVE mode it
// keeps the fields it has (missing ones are null, extra ones dropped), as
// Spark does.
func (r *Reader) readCSV(ctx context.Context, path string, fn func(arrow.RecordBatch) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("csv source: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comma = r.opts.sep
	cr.Comment = r.opts.comment
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	var (
		texts   []string
		lineNos []int
		bad     []string
		total   int64
		first   = true
	)
	flush := func() error {
		n, err := r.decodeLines(path, texts, lineNos, bad, fn)
		total += n
		texts, lineNos, bad = texts[:0], lineNos[:0], bad[:0]
		return err
	}
	fields := r.schema.Fields()
	keys := make([]string, len(fields))
	for i, fd := range fields {
		keys[i] = string(appendJSONString(nil, fd.Name)) + ":"
	}
	var sb strings.Builder
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if err != nil && !errors.As(err, &pe) {
			return total, fmt.Errorf("csv source: %s: %w", path, err)
		}
		why := ""
		var line int
		if err != nil {
			line, rec, why = pe.StartLine, nil, pe.Err.Error()
		} else {
			line, _ = cr.FieldPos(0)
		}
		if first {
			first = false
			if r.opts.header {
				continue
			}
		}
		if len(rec) == 1 && rec[0] == "" && len(fields) != 1 {
			continue // a blank line
		}
		sb.Reset()
		sb.WriteByte('{')
		for i, fd := range fields {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(keys[i])
			if i >= len(rec) {
				sb.WriteString("null")
				continue
			}
			r.csvValue(&sb, fd.Type, rec[i])
		}
		sb.WriteByte('}')
		texts = append(texts, sb.String())
		lineNos = append(lineNos, line)
		if why == "" && len(rec) != len(fields) {
			why = fmt.Sprintf("%d fields where the schema has %d", len(rec), len(fields))
		}
		bad = append(bad, why)
		if len(texts) == linesPerRecord {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	return total, flush()
}

// csvValue writes token as the JSON value the decoder converts to t the
// way Spark's CSV parser converts it.
func (r *Reader) csvValue(sb *strings.Builder, t arrow.DataType, tok string) {
	if tok == r.opts.nullValue {
		sb.WriteString("null")
		return
	}
	var scratch [128]byte
	str := func(s string) { sb.Write(appendJSONString(scratch[:0], s)) }
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		if v, err := strconv.ParseInt(tok, 10, 64); err == nil {
			sb.WriteString(strconv.FormatInt(v, 10))
			return
		}
	case arrow.FLOAT32, arrow.FLOAT64:
		switch tok {
		case r.opts.nanValue:
			sb.WriteString(`"NaN"`)
			return
		case r.opts.posInf:
			sb.WriteString(`"Infinity"`)
			return
		case r.opts.negInf:
			sb.WriteString(`"-Infinity"`)
			return
		}
		if v, err := strconv.ParseFloat(tok, 64); err == nil || (errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0)) {
			switch {
			case math.IsInf(v, 1):
				sb.WriteString(`"Infinity"`)
			case math.IsInf(v, -1):
				sb.WriteString(`"-Infinity"`)
			case math.IsNaN(v):
				sb.WriteString(`"NaN"`)
			default:
				sb.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
			return
		}
	case arrow.BOOL:
		switch strings.ToLower(tok) {
		case "true":
			sb.WriteString("true")
			return
		case "false":
			sb.WriteString("false")
			return
		}
		// A JSON string does not fit a boolean: the field is null and the
		// line malformed.
	}
	str(tok)
}

// CSVStringSchema is the schema Spark gives a CSV read without a schema
// (and without inferSchema): one string column per field of the first
// line of path, named by that line when header is set, else _c0, _c1, ...
func CSVStringSchema(path string, opts map[string]string) (*arrow.Schema, error) {
	ro, err := parseReadOptions("csv", opts, false)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("csv source: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comma, cr.Comment, cr.FieldsPerRecord, cr.LazyQuotes = ro.sep, ro.comment, -1, true
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("csv source: %s is empty: give the schema with Schema(\"a string, b int\")", path)
	}
	if err != nil {
		return nil, fmt.Errorf("csv source: %s: %w", path, err)
	}
	fields := make([]arrow.Field, len(rec))
	for i, name := range rec {
		if !ro.header || name == "" {
			name = "_c" + strconv.Itoa(i)
		}
		fields[i] = arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	return arrow.NewSchema(fields, nil), nil
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, other bytes as they are (the decoder
// replaces invalid UTF-8 as Spark does).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
