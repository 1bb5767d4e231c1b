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
	r := &Reader{format: format, schema: schema, opts: ro, mem: memory.DefaultAllocator}
	switch format {
	case "json", "csv":
		if format == "csv" {
			for _, f := range schema.Fields() {
				if err := csvType(f); err != nil {
					return nil, err
				}
			}
		}
		dec, err := jsonx.NewDecoder(schema, jsonx.Options{})
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
		return 0, r.yieldStruct(st, nil, fn)
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
			return n, fmt.Errorf("%s line %d: malformed record (%s); mode FAILFAST stops at the first one: fix the file, or read with the option mode PERMISSIVE (nulls) or DROPMALFORMED (leave it out)", file, lineNos[i], why)
		}
	}
	if r.opts.mode == DropMalformed {
		return n, r.yieldStruct(st, flags, fn)
	}
	return n, r.yieldStruct(st, nil, fn)
}

func (r *Reader) decode(texts []string) (*array.Struct, jsonx.Stats, error) {
	b := array.NewStringBuilder(r.mem)
	defer b.Release()
	b.AppendValues(texts, nil)
	in := b.NewArray()
	defer in.Release()
	return r.dec.Decode(in)
}

// yieldStruct passes the struct's rows to fn as a record, leaving out the
// rows drop marks.
func (r *Reader) yieldStruct(st *array.Struct, drop []bool, fn func(arrow.RecordBatch) error) error {
	rec := array.RecordFromStructArray(st, r.schema)
	defer rec.Release()
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
