package file

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// checkType refuses, at Start, columns a format cannot hold.
func checkType(format string, f arrow.Field) error {
	if format != "csv" {
		return nil
	}
	switch f.Type.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_LIST:
		return fmt.Errorf("CSV data source does not support %s data type (column %q): write it as JSON (Format(\"json\")) or turn it into a string first, e.g. ToJSON(Col(%q))", f.Type, f.Name, f.Name)
	}
	return nil
}

// onlyWriter hides a file's Close from the Parquet writer, which would
// close it before it is synced.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

func writeParquet(w io.Writer, schema *arrow.Schema, recs []arrow.RecordBatch) error {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(schema, onlyWriter{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := fw.WriteBuffered(r); err != nil {
			fw.Close()
			return err
		}
	}
	return fw.Close()
}

// writeJSON writes one JSON object per row, as Spark's JSON data source:
// null fields are left out, timestamps are ISO-8601 with milliseconds and
// the offset (UTC: "Z"), dates yyyy-MM-dd, binary base64.
func writeJSON(ctx context.Context, w io.Writer, recs []arrow.RecordBatch) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := array.RecordToStructArray(r)
		for i := 0; i < int(r.NumRows()); i++ {
			buf = appendJSON(buf[:0], st, i)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				st.Release()
				return err
			}
		}
		st.Release()
	}
	return bw.Flush()
}

func appendJSON(b []byte, a arrow.Array, i int) []byte {
	if a.IsNull(i) {
		return append(b, "null"...)
	}
	switch c := a.(type) {
	case *array.Struct:
		st := c.DataType().(*arrow.StructType)
		b = append(b, '{')
		first := true
		for f := 0; f < c.NumField(); f++ {
			if c.Field(f).IsNull(i) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, st.Field(f).Name)
			b = append(b, ':')
			b = appendJSON(b, c.Field(f), i)
		}
		return append(b, '}')
	case *array.List:
		start, end := c.ValueOffsets(i)
		b = append(b, '[')
		for j := start; j < end; j++ {
			if j > start {
				b = append(b, ',')
			}
			b = appendJSON(b, c.ListValues(), int(j))
		}
		return append(b, ']')
	case *array.Map:
		start, end := c.ValueOffsets(i)
		b = append(b, '{')
		for j := start; j < end; j++ {
			if j > start {
				b = append(b, ',')
			}
			b = appendString(b, scalarText(c.Keys(), int(j)))
			b = append(b, ':')
			b = appendJSON(b, c.Items(), int(j))
		}
		return append(b, '}')
	case *array.String, *array.LargeString, *array.Binary, *array.LargeBinary, *array.Timestamp, *array.Date32, *array.Date64:
		return appendString(b, scalarText(a, i))
	case *array.Float64:
		return appendFloat(b, c.Value(i))
	case *array.Float32:
		return appendFloat(b, float64(c.Value(i)))
	}
	return append(b, scalarText(a, i)...)
}

func appendString(b []byte, s string) []byte {
	js, _ := json.Marshal(s)
	return append(b, js...)
}

// appendFloat writes a double as Spark (Jackson) does: 1.0, 0.5, 1.0E20,
// and NaN and infinities as strings.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	return append(b, javaDouble(v)...)
}

// javaDouble formats v as Java's Double.toString.
func javaDouble(v float64) string {
	abs := math.Abs(v)
	if abs != 0 && (abs < 1e-3 || abs >= 1e7) {
		s := strconv.FormatFloat(v, 'E', -1, 64)
		// Go: 1E+20, 1.5E-05; Java: 1.0E20, 1.5E-5.
		mant, exp := s, ""
		for k := 0; k < len(s); k++ {
			if s[k] == 'E' {
				mant, exp = s[:k], s[k+1:]
				break
			}
		}
		if !containsDot(mant) {
			mant += ".0"
		}
		e, _ := strconv.Atoi(exp)
		return mant + "E" + strconv.Itoa(e)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !containsDot(s) {
		s += ".0"
	}
	return s
}

func containsDot(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] == '.' {
			return true
		}
	}
	return false
}

// scalarText is a scalar as text in Spark's JSON and CSV formats.
func scalarText(a arrow.Array, i int) string {
	switch c := a.(type) {
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	case *array.Binary:
		return base64.StdEncoding.EncodeToString(c.Value(i))
	case *array.LargeBinary:
		return base64.StdEncoding.EncodeToString(c.Value(i))
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		return c.Value(i).ToTime(unit).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	case *array.Date32:
		return c.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Date64:
		return c.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Float64:
		return javaDouble(c.Value(i))
	case *array.Float32:
		return javaDouble(float64(c.Value(i)))
	}
	return a.ValueStr(i)
}

// writeCSV writes rows as Spark's CSV data source: comma-separated,
// quoted when needed, null as an empty field, no header unless asked.
func writeCSV(ctx context.Context, w io.Writer, schema *arrow.Schema, recs []arrow.RecordBatch, header bool) error {
	cw := csv.NewWriter(w)
	row := make([]string, schema.NumFields())
	if header {
		for i, f := range schema.Fields() {
			row[i] = f.Name
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := 0; i < int(r.NumRows()); i++ {
			for c := range row {
				col := r.Column(c)
				if col.IsNull(i) {
					row[c] = ""
				} else {
					row[c] = scalarText(col, i)
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
