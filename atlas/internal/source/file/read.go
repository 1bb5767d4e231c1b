package file

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MetricMalformed counts malformed JSON or CSV lines, as from_json's
// numMalformedRows, under the same name.
const MetricMalformed = "numMalformedRows"

// linesPerRecord bounds the rows of one record the readers yield.
const linesPerRecord = 8192

// Reader reads files of one format into records of a fixed schema. A
// Reader is not safe for concurrent use.
type Reader struct {
	format string
	schema *arrow.Schema
	opts   readOptions
	mem    memory.Allocator
	dec    *jsonx.Decoder // json and csv
	// corruptAt is the position in schema of the JSON column that holds
	// malformed lines (columnNameOfCorruptRecord), -1 when schema has
	// none; decSchema is schema without it, what dec decodes.
	corruptAt int
	decSchema *arrow.Schema
	// lists says decSchema has arrays: dec decodes them as their JSON
	// text (withoutLists) and decode turns the text into the arrays.
	lists bool
}

// NewReader returns a reader of format ("json", "csv" or "parquet") files
// into rows of schema, with the format's options (mode, header, sep, ...).
func NewReader(format string, schema *arrow.Schema, opts map[string]string) (*Reader, error) {
	ro, err := parseReadOptions(format, opts, false)
	if err != nil {
		return nil, err
	}
	return newReader(format, schema, ro)
}

func newReader(format string, schema *arrow.Schema, ro readOptions) (*Reader, error) {
	r := &Reader{format: format, schema: schema, opts: ro, mem: memory.DefaultAllocator, corruptAt: -1, decSchema: schema}
	if format == "json" {
		if err := r.findCorruptColumn(); err != nil {
			return nil, err
		}
	}
	switch format {
	case "json", "csv":
		if format == "csv" {
			for _, f := range schema.Fields() {
				if err := csvType(f); err != nil {
					return nil, err
				}
			}
		}
		decSchema := r.decSchema
		if format == "json" {
			if flat, changed := withoutLists(arrow.StructOf(r.decSchema.Fields()...)); changed {
				decSchema, r.lists = arrow.NewSchema(flat.(*arrow.StructType).Fields(), nil), true
			}
		}
		dec, err := jsonx.NewDecoder(decSchema, jsonx.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s source: %w", format, err)
		}
		r.dec = dec
	case "parquet":
	default:
		return nil, fmt.Errorf("unknown file format %q; valid formats: %s", format, strings.Join(Formats, ", "))
	}
	return r, nil
}

// findCorruptColumn finds the columnNameOfCorruptRecord column in the
// schema: it must be a nullable string, as Spark requires.
func (r *Reader) findCorruptColumn() error {
	idx := r.schema.FieldIndices(r.opts.corrupt)
	if r.opts.corrupt == "" || len(idx) == 0 {
		return nil
	}
	f := r.schema.Field(idx[0])
	if f.Type.ID() != arrow.STRING || !f.Nullable {
		return sparkerr.New("INVALID_CORRUPT_RECORD_TYPE", "The column %s for corrupt records must have the nullable STRING type, but got %s.", "`"+f.Name+"`", types.SQLName(f.Type))
	}
	r.corruptAt = idx[0]
	fields := append([]arrow.Field(nil), r.schema.Fields()[:idx[0]]...)
	fields = append(fields, r.schema.Fields()[idx[0]+1:]...)
	r.decSchema = arrow.NewSchema(fields, nil)
	return nil
}

// Schema is the schema of the records the reader yields.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Close releases the reader's buffers.
func (r *Reader) Close() {
	if r.dec != nil {
		r.dec.Release()
	}
}

// ReadFile reads one file and passes its rows to fn as records valid
// during the call. It returns how many lines were malformed (JSON and
// CSV): with mode PERMISSIVE they are rows whose unparsable fields are
// null, with DROPMALFORMED they are left out, with FAILFAST the first one
// is an error naming the file and the line.
func (r *Reader) ReadFile(ctx context.Context, path string, fn func(arrow.RecordBatch) error) (int64, error) {
	switch r.format {
	case "json":
		return r.readJSON(ctx, path, fn)
	case "csv":
		return r.readCSV(ctx, path, fn)
	default:
		return 0, r.readParquet(ctx, path, fn)
	}
}

// decodeLines decodes JSON texts (one row each; lineNos[i] is text i's
// line in file) with the schema and yields the rows as the mode says.
// bad says why rows already known to be malformed are (a CSV line with
// the wrong number of fields), "" for the others; it may be nil.
func (r *Reader) decodeLines(file string, texts []string, lineNos []int, bad []string, fn func(arrow.RecordBatch) error) (int64, error) {
	if len(texts) == 0 {
		return 0, nil
	}
	st, stats, err := r.decode(texts)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	defer st.Release()
	preBad := 0
	for _, b := range bad {
		if b != "" {
			preBad++
		}
	}
	if stats.Malformed == 0 && preBad == 0 {
		return 0, r.yieldStruct(st, nil, nil, fn)
	}
	// Some rows are malformed: find which, one row at a time.
	flags := make([]bool, len(texts))
	var n int64
	for i, t := range texts {
		why := ""
		if bad != nil {
			why = bad[i]
		}
		if why == "" {
			one, s1, err := r.decode([]string{t})
			if err != nil {
				return 0, fmt.Errorf("%s: %w", file, err)
			}
			one.Release()
			if s1.Malformed > 0 {
				why = strings.TrimPrefix(s1.FirstError, "row 0: ")
			}
		}
		if why == "" {
			continue
		}
		flags[i] = true
		n++
		if r.opts.mode == FailFast {
			record := t // a JSON line as read; a CSV line's fields were re-encoded, so name it
			if r.format != "json" {
				record = fmt.Sprintf("line %d of %s", lineNos[i], file)
			}
			return n, sparkerr.WithParams("MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", map[string]string{"badRecord": record, "failFastMode": "FAILFAST"},
				"Malformed records are detected in record parsing: %s. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE' (%s line %d: malformed record (%s))", record, file, lineNos[i], why)
		}
	}
	if r.opts.mode == DropMalformed {
		return n, r.yieldStruct(st, flags, nil, fn)
	}
	var corrupt []string
	if r.corruptAt >= 0 {
		corrupt = texts
	}
	return n, r.yieldStruct(st, nil, func(i int) bool { return flags[i] && corrupt != nil }, fn, corrupt...)
}

func (r *Reader) decode(texts []string) (*array.Struct, jsonx.Stats, error) {
	b := array.NewStringBuilder(r.mem)
	defer b.Release()
	b.AppendValues(texts, nil)
	in := b.NewArray()
	defer in.Release()
	st, stats, err := r.dec.Decode(in)
	if err != nil || !r.lists {
		return st, stats, err
	}
	defer st.Release()
	bad := make([]bool, len(texts))
	out, err := listsFrom(r.mem, st, arrow.StructOf(r.decSchema.Fields()...), bad)
	if err != nil {
		return nil, stats, fmt.Errorf("json source: %w", err)
	}
	for i, b := range bad {
		if b {
			stats.Malformed++
			if stats.FirstError == "" {
				stats.FirstError = fmt.Sprintf("row %d: an array field is not a JSON array of its element type", i)
			}
		}
	}
	return out.(*array.Struct), stats, nil
}

// yieldStruct passes the struct's rows to fn as a record, leaving out the
// rows drop marks. With a corrupt-record column in the schema, row i's
// corrupt value is texts[i] where bad(i) holds, null elsewhere.
func (r *Reader) yieldStruct(st *array.Struct, drop []bool, bad func(int) bool, fn func(arrow.RecordBatch) error, texts ...string) error {
	rec := array.RecordFromStructArray(st, r.decSchema)
	defer rec.Release()
	if r.corruptAt >= 0 {
		b := array.NewStringBuilder(r.mem)
		defer b.Release()
		for i := 0; i < int(rec.NumRows()); i++ {
			if bad != nil && bad(i) {
				b.Append(texts[i])
			} else {
				b.AppendNull()
			}
		}
		col := b.NewArray()
		defer col.Release()
		cols := append([]arrow.Array(nil), rec.Columns()[:r.corruptAt]...)
		cols = append(cols, col)
		cols = append(cols, rec.Columns()[r.corruptAt:]...)
		full := array.NewRecordBatch(r.schema, cols, rec.NumRows())
		defer full.Release()
		rec = full
	}
	if drop == nil {
		return fn(rec)
	}
	mb := array.NewBooleanBuilder(r.mem)
	defer mb.Release()
	for _, d := range drop {
		mb.Append(!d)
	}
	mask := mb.NewArray()
	defer mask.Release()
	kept, err := compute.FilterRecordBatch(context.Background(), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return err
	}
	defer kept.Release()
	if kept.NumRows() == 0 {
		return nil
	}
	return fn(kept)
}

func csvType(f arrow.Field) error {
	switch f.Type.ID() {
	case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL, arrow.TIMESTAMP, arrow.DATE32:
		return nil
	}
	return fmt.Errorf("csv source: column %s has type %s, which CSV cannot hold; use string, int, bigint, double, boolean, timestamp or date", f.Name, types.SQLName(f.Type))
}
