package engine

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"sort"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/file"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/kafka"
	mem "github.com/atlas-lakehouse/atlas/atlas/internal/source/memory"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/rate"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// DataStreamReader describes a streaming source, as spark.readStream.
type DataStreamReader struct {
	s      *Session
	format string
	opts   map[string]string
	schema string
}

// Format picks the source: "kafka", "rate", "rate-micro-batch", "memory", or a file format
// ("json", "csv", "parquet") over a directory.
func (r *DataStreamReader) Format(name string) *DataStreamReader {
	r.format = strings.ToLower(name)
	return r
}

// Option sets a source option, spelled as in Spark
// ("kafka.bootstrap.servers", "subscribe", "startingOffsets",
// "maxOffsetsPerTrigger", ...).
func (r *DataStreamReader) Option(key string, value any) *DataStreamReader {
	r.opts[key] = fmt.Sprint(value)
	return r
}

// Options sets several options.
func (r *DataStreamReader) Options(opts map[string]string) *DataStreamReader {
	for k, v := range opts {
		r.opts[k] = v
	}
	return r
}

// Schema sets the schema of sources that take one (a DDL string such as
// "user_id string, event string, ts timestamp"); Kafka's schema is fixed.
func (r *DataStreamReader) Schema(ddl string) *DataStreamReader {
	r.schema = ddl
	return r
}

// JSON reads a directory of JSON Lines files as a stream, as
// spark.readStream.json(path); the schema is required.
func (r *DataStreamReader) JSON(path string) *DataFrame { return r.Format("json").Load(path) }

// CSV reads a directory of CSV files as a stream, as
// spark.readStream.csv(path); the schema is required.
func (r *DataStreamReader) CSV(path string) *DataFrame { return r.Format("csv").Load(path) }

// Parquet reads a directory of Parquet files as a stream, as
// spark.readStream.parquet(path).
func (r *DataStreamReader) Parquet(path string) *DataFrame { return r.Format("parquet").Load(path) }

// Load creates the streaming DataFrame; a file format takes the directory
// to watch as path (or the option "path"). Errors (unknown format or
// option, missing required option) are kept in the DataFrame and reported
// by Err and Start, with the list of valid choices. The DataFrame keeps the
// source's description, not an instance: every query started from it opens
// its own source (its own Kafka client and starting offsets).
func (r *DataStreamReader) Load(path ...string) *DataFrame {
	df := &DataFrame{s: r.s}
	format, schema := r.format, r.schema
	opts := make(map[string]string, len(r.opts)+1)
	for k, v := range r.opts {
		opts[k] = v
	}
	switch len(path) {
	case 0:
	case 1:
		opts["path"] = path[0]
	default:
		df.err = fmt.Errorf("readStream.format(%q).load(): a stream reads one path (a directory or a glob), got %d", r.format, len(path))
		return df
	}
	open := func() (source.Source, error) { return r.s.openSource(format, opts, schema) }
	if format == "memory" {
		// The DataFrame reads the stream named now, even if the name is
		// given to a new stream later.
		if src, err := open(); err == nil {
			stream := src.(*mem.Reader).Stream
			open = func() (source.Source, error) { return stream.Open(), nil }
		}
	}
	scan, err := plan.NewStreamScan(format, open)
	if err != nil {
		df.err = fmt.Errorf("readStream.format(%q).load(): %w", r.format, err)
		return df
	}
	df.node = scan
	return df
}

// openSource creates one instance of a streaming source from the reader's
// settings, copied at Load so later calls on the reader change nothing.
func (s *Session) openSource(format string, ropts map[string]string, schema string) (source.Source, error) {
	switch format {
	case "kafka":
		if schema != "" {
			return nil, fmt.Errorf("the kafka source has a fixed schema (key, value, topic, partition, offset, timestamp, timestampType) and cannot take a user schema; parse value with FromJSON instead")
		}
		opts := map[string]string{}
		for k, v := range ropts {
			opts[k] = v
		}
		if opts["kafka.bootstrap.servers"] == "" {
			opts["kafka.bootstrap.servers"] = s.Brokers()
		}
		return kafka.New(opts)
	case "rate":
		if schema != "" {
			return nil, fmt.Errorf("the rate source has a fixed schema (timestamp, value) and cannot take a user schema")
		}
		return rate.New(ropts)
	case "rate-micro-batch":
		if schema != "" {
			return nil, fmt.Errorf("the rate-micro-batch source has a fixed schema (timestamp, value) and cannot take a user schema")
		}
		return rate.NewMicroBatch(ropts)
	case "json", "csv", "parquet":
		if err := s.CheckPath(ropts["path"]); err != nil {
			return nil, err
		}
		var sch *arrow.Schema
		if schema != "" {
			var err error
			if sch, err = types.ParseDDL(schema); err != nil {
				return nil, err
			}
		}
		return file.New(format, ropts, sch)
	case "memory":
		name := ropts["name"]
		ms, ok := s.memoryStream(name)
		if !ok {
			return nil, fmt.Errorf("no memory stream named %q in this session: create one with session.MemoryStream(name, schema)", name)
		}
		if schema != "" {
			want, err := types.ParseDDL(schema)
			if err != nil {
				return nil, err
			}
			if !want.Equal(ms.Schema()) {
				return nil, fmt.Errorf("memory stream %q has schema %s, not %s", name, ms.Schema(), want)
			}
		}
		return ms.Open(), nil
	case "":
		return nil, fmt.Errorf("no format: call Format(\"kafka\"), Format(\"rate\"), Format(\"memory\") or a file format (\"json\", \"csv\", \"parquet\")")
	}
	valid := []string{"kafka", "rate", "rate-micro-batch", "memory", "json", "csv", "parquet"}
	sort.Strings(valid)
	return nil, fmt.Errorf("unknown format %q; valid formats: %s", format, strings.Join(valid, ", "))
}
