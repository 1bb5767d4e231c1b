package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source/file"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/kafka"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// DataFrameReader reads files into a batch DataFrame, as spark.read.
type DataFrameReader struct {
	s      *Session
	format string
	opts   map[string]string
	schema string
	// warnings are what the last Load warned of (see Warnings).
	warnings []string
}

// Read starts describing a batch read of files.
func (s *Session) Read() *DataFrameReader {
	return &DataFrameReader{s: s, opts: map[string]string{}}
}

// Format picks the format: "json", "csv" or "parquet" files, or "kafka"
// (Spark's Kafka batch source: the records between startingOffsets and
// endingOffsets, read once).
func (r *DataFrameReader) Format(name string) *DataFrameReader {
	r.format = strings.ToLower(name)
	return r
}

// Option sets a reader option, spelled as in Spark ("header", "sep",
// "mode", ...).
func (r *DataFrameReader) Option(key string, value any) *DataFrameReader {
	r.opts[key] = fmt.Sprint(value)
	return r
}

// Options sets several options.
func (r *DataFrameReader) Options(opts map[string]string) *DataFrameReader {
	for k, v := range opts {
		r.opts[k] = v
	}
	return r
}

// Schema sets the schema as a DDL string ("district string, province
// string"). Without one, CSV columns are strings named by the header (or
// _c0, _c1, ...), or of inferred types with the option inferSchema=true,
// JSON's are inferred from every line and Parquet takes the first file's
// schema, as in Spark.
func (r *DataFrameReader) Schema(ddl string) *DataFrameReader {
	r.schema = ddl
	return r
}

// JSON reads JSON Lines files, as spark.read.json.
func (r *DataFrameReader) JSON(paths ...string) *DataFrame { return r.Format("json").Load(paths...) }

// CSV reads CSV files, as spark.read.csv.
func (r *DataFrameReader) CSV(paths ...string) *DataFrame { return r.Format("csv").Load(paths...) }

// Parquet reads Parquet files, as spark.read.parquet.
func (r *DataFrameReader) Parquet(paths ...string) *DataFrame {
	return r.Format("parquet").Load(paths...)
}

// Load reads the files at paths (files, directories or globs) now and
// returns them as a batch DataFrame. Errors are kept in the DataFrame.
// Malformed JSON or CSV lines follow the option mode (PERMISSIVE by
// default: unparsable fields are null).
func (r *DataFrameReader) Load(paths ...string) *DataFrame {
	df, err := r.load(paths)
	if err != nil {
		return &DataFrame{s: r.s, err: fmt.Errorf("read.format(%q).load(%s): %w", r.format, strings.Join(paths, ", "), err)}
	}
	return df
}

func (r *DataFrameReader) load(paths []string) (*DataFrame, error) {
	if r.format == "kafka" {
		return r.loadKafka()
	}
	if p, ok := r.opts["path"]; ok {
		paths = append(paths, p)
		delete(r.opts, "path")
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no path: give the files to read, as Load(\"data/x.csv\")")
	}
	if err := r.s.checkPaths(paths); err != nil {
		return nil, err
	}
	files, err := file.ListFiles(paths)
	if err != nil {
		return nil, err
	}
	if err := r.s.checkPaths(files); err != nil {
		return nil, err
	}
	infer, err := r.inferSchema()
	if err != nil {
		return nil, err
	}
	var schema *arrow.Schema
	switch {
	case r.schema != "":
		if schema, err = types.ParseDDL(r.schema); err != nil {
			return nil, err
		}
	case len(files) == 0:
		return nil, fmt.Errorf("no file to read and no schema: give the schema with Schema(\"a string, b int\")")
	case r.format == "csv" && infer:
		schema, err = file.InferCSVSchema(files, r.opts)
	case r.format == "csv":
		schema, err = file.CSVStringSchema(files[0], r.opts)
	case r.format == "parquet":
		schema, err = file.ParquetSchema(files[0])
	case r.format == "json":
		schema, err = file.InferJSONSchema(files, r.opts)
	default:
		return nil, fmt.Errorf("a schema is required to read %s: call Schema(\"a string, b int\") before Load", r.format)
	}
	if err != nil {
		return nil, err
	}
	rd, err := file.NewReader(r.format, schema, r.opts)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for _, f := range files {
		_, err := rd.ReadFile(context.Background(), f, func(rec arrow.RecordBatch) error {
			rec.Retain()
			recs = append(recs, rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return r.s.CreateDataFrame(schema, recs), nil
}

// inferSchema reads and removes the option inferSchema: true infers the
// column types of a CSV read without a schema (file.InferCSVSchema), as
// Spark does; a given schema wins. JSON reads infer their schema without
// it (file.InferJSONSchema), and ignore it as Spark does.
func (r *DataFrameReader) inferSchema() (bool, error) {
	for k, v := range r.opts {
		if !strings.EqualFold(k, "inferSchema") {
			continue
		}
		delete(r.opts, k)
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			return r.format == "csv", nil
		case "false":
			return false, nil
		}
		return false, fmt.Errorf("option inferSchema must be true or false, got %q", v)
	}
	return false, nil
}

// loadKafka reads Kafka now, as spark.read.format("kafka").load(): the
// options are the streaming source's plus endingOffsets, startingOffsets
// defaults to earliest and endingOffsets to latest, and the trigger
// options are ignored (Spark logs a warning; so does Atlas's server).
// kafka.bootstrap.servers defaults to the session's brokers.
func (r *DataFrameReader) loadKafka() (*DataFrame, error) {
	if r.schema != "" {
		return nil, fmt.Errorf("the kafka source has a fixed schema (key, value, topic, partition, offset, timestamp, timestampType) and cannot take a user schema; parse value with from_json instead")
	}
	opts := make(map[string]string, len(r.opts)+1)
	for k, v := range r.opts {
		if !strings.EqualFold(k, "path") { // Spark's Kafka source ignores a path
			opts[k] = v
		}
	}
	if opts["kafka.bootstrap.servers"] == "" {
		opts["kafka.bootstrap.servers"] = r.s.Brokers()
	}
	b, err := kafka.NewBatch(opts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	r.warnings = b.Warnings()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	err = b.Read(context.Background(), func(rec arrow.RecordBatch) error {
		rec.Retain()
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.s.CreateDataFrame(b.Schema(), recs), nil
}

// Warnings are what the last Load warned of without failing: the Kafka
// trigger options a batch read ignores, as Spark logs them.
func (r *DataFrameReader) Warnings() []string { return r.warnings }
