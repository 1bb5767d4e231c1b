package atlas

import (
	"path/filepath"
	"sort"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// JSON watches a directory of JSON Lines files, as
// spark.readStream.json(path); the schema is required.
func (r *DataStreamReader) JSON(path string) *DataFrame { return r.Format("json").Load(path) }

// CSV watches a directory of CSV files, as spark.readStream.csv(path);
// the schema is required.
func (r *DataStreamReader) CSV(path string) *DataFrame { return r.Format("csv").Load(path) }

// Parquet watches a directory of Parquet files, as
// spark.readStream.parquet(path).
func (r *DataStreamReader) Parquet(path string) *DataFrame { return r.Format("parquet").Load(path) }

// DataFrameReader reads files into a batch DataFrame, as spark.read.
type DataFrameReader struct {
	s      *Session
	format string
	schema string
	opts   map[string]string
}

// Read starts describing a batch read of files.
func (s *Session) Read() *DataFrameReader {
	return &DataFrameReader{s: s, opts: map[string]string{}}
}

// Format names the format: "json", "csv" or "parquet" files, or "kafka"
// (Spark's Kafka batch source: options subscribe, subscribePattern or
// assign, startingOffsets (default earliest) and endingOffsets (default
// latest); no path).
func (r *DataFrameReader) Format(name string) *DataFrameReader { r.format = name; return r }

// Option sets a reader option ("header", "sep", "mode", ...); numbers and
// booleans are sent as text.
func (r *DataFrameReader) Option(key string, value any) *DataFrameReader {
	r.opts[key] = optionText(value)
	return r
}

// Options sets several reader options.
func (r *DataFrameReader) Options(opts map[string]string) *DataFrameReader {
	for k, v := range opts {
		r.opts[k] = v
	}
	return r
}

// Schema sets the schema as DDL ("district string, province string").
func (r *DataFrameReader) Schema(ddl string) *DataFrameReader { r.schema = ddl; return r }

// Load reads the files at paths (files, directories or globs, or the
// "path" option); relative paths are made absolute here, against the
// program's working directory, as the writers' are.
func (r *DataFrameReader) Load(paths ...string) *DataFrame {
	ds := &pb.Read_DataSource{Options: absPathOptions(r.opts, "path"), Paths: absPaths(paths)}
	if r.format != "" {
		ds.Format = ptr(strings.ToLower(r.format))
	}
	if r.schema != "" {
		ds.Schema = ptr(r.schema)
	}
	return r.s.newDF(&pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: ds}}}})
}

// absPaths makes local relative paths absolute: the server resolves
// paths against its own working directory, which is not the notebook's.
// URLs (s3://...) and absolute paths are kept.
func absPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if p != "" && !strings.Contains(p, "://") && !filepath.IsAbs(p) {
			if abs, err := filepath.Abs(p); err == nil {
				out[i] = abs
			}
		}
	}
	return out
}

// JSON reads JSON Lines files, as spark.read.json.
func (r *DataFrameReader) JSON(paths ...string) *DataFrame { return r.Format("json").Load(paths...) }

// CSV reads CSV files, as spark.read.csv.
func (r *DataFrameReader) CSV(paths ...string) *DataFrame { return r.Format("csv").Load(paths...) }

// Parquet reads Parquet files, as spark.read.parquet.
func (r *DataFrameReader) Parquet(paths ...string) *DataFrame {
	return r.Format("parquet").Load(paths...)
}

// FromAvro reads a binary column of Avro values with an Avro JSON schema,
// as from_avro(data, jsonFormatSchema, options): options are Spark's mode
// (FAILFAST or PERMISSIVE) and Atlas's framing ("none", "single-object",
// "confluent" with schemaId). Sent as PySpark sends it, the options as
// map(k1, v1, ...).
func FromAvro(c Column, jsonFormatSchema string, options ...map[string]string) Column {
	opts := map[string]string{}
	for _, o := range options {
		for k, v := range o {
			opts[k] = v
		}
	}
	if len(opts) == 0 {
		return fn("from_avro", c, Lit(jsonFormatSchema))
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kv := make([]Column, 0, 2*len(keys))
	for _, k := range keys {
		kv = append(kv, Lit(k), Lit(opts[k]))
	}
	return fn("from_avro", c, Lit(jsonFormatSchema), fn("map", kv...))
}

// ToAvro writes a column as Avro binary, as to_avro(data[,
// jsonFormatSchema]).
func ToAvro(c Column, jsonFormatSchema ...string) Column {
	if len(jsonFormatSchema) == 0 || jsonFormatSchema[0] == "" {
		return fn("to_avro", c)
	}
	return fn("to_avro", c, Lit(jsonFormatSchema[0]))
}
