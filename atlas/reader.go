package atlas

import (
	"fmt"
	"strconv"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// DataStreamReader describes a streaming source, as spark.readStream.
type DataStreamReader struct {
	s      *Session
	format string
	schema string
	opts   map[string]string
}

// ReadStream starts describing a streaming source.
func (s *Session) ReadStream() *DataStreamReader {
	return &DataStreamReader{s: s, opts: map[string]string{}}
}

// Format names the source: "kafka", "rate", "memory"...
func (r *DataStreamReader) Format(name string) *DataStreamReader { r.format = name; return r }

// Option sets a source option; numbers and booleans are sent as text.
func (r *DataStreamReader) Option(key string, value any) *DataStreamReader {
	r.opts[key] = optionText(value)
	return r
}

// Options sets several source options.
func (r *DataStreamReader) Options(opts map[string]string) *DataStreamReader {
	for k, v := range opts {
		r.opts[k] = v
	}
	return r
}

// Schema sets the source's schema as DDL ("a int, b string").
func (r *DataStreamReader) Schema(ddl string) *DataStreamReader { r.schema = ddl; return r }

// Load returns the streaming DataFrame; a file format ("json", "csv",
// "parquet") takes the directory to watch as path or the "path" option (a
// relative path is made absolute here, so that it names the directory the
// program sees, not one under the server's working directory).
func (r *DataStreamReader) Load(path ...string) *DataFrame {
	ds := &pb.Read_DataSource{Options: absPathOptions(r.opts, "path"), Paths: absPaths(path)}
	if r.format != "" {
		ds.Format = ptr(r.format)
	}
	if r.schema != "" {
		ds.Schema = ptr(r.schema)
	}
	return r.s.newDF(&pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{
		ReadType: &pb.Read_DataSource_{DataSource: ds}, IsStreaming: true,
	}}})
}

// optionText formats an option value as PySpark's to_str does.
func optionText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
