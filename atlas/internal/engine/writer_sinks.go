package engine

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink/console"
	filesink "github.com/atlas-lakehouse/atlas/atlas/internal/sink/file"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink/iceberg"
	kafkasink "github.com/atlas-lakehouse/atlas/atlas/internal/sink/kafka"
)

// availableSinks lists the sinks Atlas has, for messages.
const availableSinks = `Format("iceberg") or ToTable(name), Format("kafka"), Format("parquet"), Format("json"), Format("csv"), Format("console"), Format("memory"), Foreach(writer), ForeachBatch(fn)`

// commonWriterOptions are the options every sink takes.
var commonWriterOptions = []string{"checkpointLocation", "queryName", "lateRowsTable", "eventTimeMaxAheadOfProcessing", "holdBeforeCommit",
	checkpoint.OptionID, checkpoint.OptionOwner, checkpoint.OptionClassification}

// sinkOptions are the options of each Atlas sink, beyond the common ones.
var sinkOptions = map[string][]string{
	"iceberg":      {"path"},
	"kafka":        {"topic", "kafka.bootstrap.servers", "kafka.transaction.timeout.ms"},
	"parquet":      {"path"},
	"json":         {"path"},
	"csv":          {"path", "header"},
	"console":      {"numRows", "truncate"},
	"memory":       nil,
	"foreachBatch": nil,
	"foreach":      nil,
}

// foreignSinks are Spark sinks Atlas does not have, with what to use instead.
var foreignSinks = map[string]string{
	"delta":  `Atlas writes Apache Iceberg tables: use ToTable("lakehouse.db.table") (or Format("iceberg")); MERGE INTO and time travel work on them as on Delta tables`,
	"orc":    `use ToTable("lakehouse.db.table") (Iceberg tables of Parquet files)`,
	"text":   "use ForeachBatch(fn) and write the batch's rows from fn",
	"noop":   `use Format("console").Option("numRows", 0) to run a query without keeping its output`,
	"socket": "use ForeachBatch(fn) and send the batch's rows from fn",
}

// foreignOption names the Spark sink an option of a sink Atlas does not
// have belongs to, or "".
func foreignOption(key string) string {
	switch key {
	case "mergeSchema", "overwriteSchema", "txnAppId", "txnVersion", "replaceWhere", "optimizeWrite", "dataChange", "userMetadata":
		return "delta"
	}
	return ""
}

// sinkPlan is a validated sink choice: everything Start checks before it
// creates a table, a checkpoint directory or takes a lease.
type sinkPlan struct {
	kind       string // a key of sinkOptions
	table      string // iceberg: the target table
	lateTable  string // lateRowsTable, or ""
	checkpoint string // the checkpoint location, "" for a temporary one
	console    *console.Sink
	kafka      kafkasink.Options
	file       filesink.Options
	maxAhead   time.Duration        // eventTimeMaxAheadOfProcessing, 0 for none
	hold       *int64               // holdBeforeCommit, nil for none
	identity   *checkpoint.Identity // the checkpointId/Owner/Classification options, nil for none
}

// planSink validates the sink, its options, the output mode, lateRowsTable
// and the checkpoint location, with no side effect.
func (w *DataStreamWriter) planSink(mode sink.OutputMode, shape *plan.Shape, name string, out io.Writer) (*sinkPlan, error) {
	p := &sinkPlan{kind: w.format}
	if err := checkQueryName(name); err != nil {
		return nil, err
	}
	var err error
	switch {
	case w.foreach != nil && w.writer != nil:
		return nil, fmt.Errorf("both Foreach(writer) and ForeachBatch(fn) are set: keep one")
	case w.foreach != nil:
		p.kind = "foreachBatch"
	case w.writer != nil:
		p.kind = "foreach"
	case w.format == "":
		return nil, fmt.Errorf("no sink: use %s", availableSinks)
	case w.format == "foreach" || w.format == "foreachbatch":
		return nil, fmt.Errorf("Format(%q) needs code to call: use Foreach(writer) or ForeachBatch(fn)", w.format)
	case foreignSinks[w.format] != "":
		return nil, fmt.Errorf("sink format %q is not available in Atlas: %s. Available sinks: %s", w.format, foreignSinks[w.format], availableSinks)
	case !isAtlasFormat(w.format):
		return nil, fmt.Errorf("unknown sink format %q; available sinks: %s", w.format, availableSinks)
	}
	if err := w.checkOptions(p.kind); err != nil {
		return nil, err
	}
	switch p.kind {
	case "iceberg":
		if p.table = w.opts["path"]; p.table == "" {
			return nil, fmt.Errorf("the iceberg sink needs a table: use ToTable(\"lakehouse.gold.event_windows\")")
		}
		if err := iceberg.CheckMode(mode); err != nil {
			return nil, err
		}
	case "console":
		c, err := console.New(out, w.opts)
		if err != nil {
			return nil, err
		}
		p.console = c
	case "kafka":
		k, err := w.kafkaOptions(exec.ShapeOutputSchema(shape))
		if err != nil {
			return nil, err
		}
		p.kafka = k
	case "parquet", "json", "csv":
		if p.file, err = w.fileOptions(mode, exec.ShapeOutputSchema(shape)); err != nil {
			return nil, err
		}
	case "memory":
		if name == "" {
			return nil, fmt.Errorf("the memory sink needs a query name, used as the table name: add QueryName(\"...\")")
		}
	}
	if late := w.opts["lateRowsTable"]; late != "" {
		if exec.LateRowsSchema(shape) == nil || mode == sink.Complete {
			return nil, fmt.Errorf("lateRowsTable %q: late rows exist only for an aggregation with a watermark in append or update mode: add WithWatermark(\"ts\", \"10 minutes\") before GroupBy, or drop the option", late)
		}
		if strings.EqualFold(late, p.table) {
			return nil, fmt.Errorf("lateRowsTable %q is the query's own target table: late rows have other columns; name another table, e.g. %q", late, late+"_late")
		}
		p.lateTable = late
	}
	if v := w.opts["eventTimeMaxAheadOfProcessing"]; v != "" {
		d, err := plan.ParseDuration(v)
		if err != nil || d <= 0 || shape.Watermark == nil {
			return nil, fmt.Errorf("eventTimeMaxAheadOfProcessing %q: needs a positive duration such as \"1 hour\" and a query with WithWatermark(\"ts\", \"10 minutes\") (%v)", v, err)
		}
		p.maxAhead = d
	}
	if v, ok := w.opts["holdBeforeCommit"]; ok {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("holdBeforeCommit %q: needs a batch id (0, 1, ...): that batch then waits before its commit log entry until the query is stopped", v)
		}
		p.hold = &id
	}
	p.checkpoint = w.opts["checkpointLocation"]
	if p.checkpoint == "" && !usesTempCheckpoint(p.kind) {
		if name == "" {
			return nil, fmt.Errorf("checkpointLocation must be specified: add Option(\"checkpointLocation\", dir) or QueryName(\"...\") (which checkpoints under %s)", w.df.s.CheckpointDir("<name>"))
		}
		p.checkpoint = w.df.s.CheckpointDir(name)
	}
	id, ok, err := checkpoint.IdentityFromOptions(w.opts)
	if err != nil {
		return nil, err
	}
	if ok {
		if p.checkpoint == "" {
			return nil, fmt.Errorf("the options %s, %s and %s name a durable checkpoint, but this %s query has a temporary one: add Option(\"checkpointLocation\", dir) or drop them",
				checkpoint.OptionID, checkpoint.OptionOwner, checkpoint.OptionClassification, p.kind)
		}
		p.identity = &id
	}
	if err := w.df.s.checkPaths([]string{p.checkpoint, p.file.Path}); err != nil {
		return nil, err
	}
	return p, nil
}

// checkQueryName refuses a query name with "..": its checkpoint, under
// the checkpoint root by name, would land in the root's parent or the
// root itself (QueryName("..") checkpointed in the Atlas home).
func checkQueryName(name string) error {
	if name == "." || strings.Contains(name, "..") {
		return fmt.Errorf("queryName %q: a query name cannot be \".\" or contain \"..\" (it names the query's checkpoint directory)", name)
	}
	return nil
}

// checkOptions refuses options the sink kind does not take, saying which
// sink they belong to.
func (w *DataStreamWriter) checkOptions(kind string) error {
	valid := append(slices.Clone(commonWriterOptions), sinkOptions[kind]...)
	sort.Strings(valid)
	keys := make([]string, 0, len(w.opts))
	for k := range w.opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(valid, k) {
			continue
		}
		if other := foreignOption(k); other != "" {
			return fmt.Errorf("writeStream: option %q belongs to Spark's %s sink, which is not available in Atlas (%s). Available sinks: %s; the %s sink takes: %s",
				k, other, foreignSinks[other], availableSinks, kind, strings.Join(valid, ", "))
		}
		for other, opts := range sinkOptions {
			if slices.Contains(opts, k) {
				return fmt.Errorf("writeStream: option %q belongs to the %s sink, not the %s sink; the %s sink takes: %s", k, other, kind, kind, strings.Join(valid, ", "))
			}
		}
		return fmt.Errorf("writeStream: unknown option %q; the %s sink takes: %s", k, kind, strings.Join(valid, ", "))
	}
	return nil
}

// isAtlasFormat reports whether name is a Format of an Atlas sink.
func isAtlasFormat(name string) bool {
	_, ok := sinkOptions[name]
	return ok && name != "foreachBatch" && name != "foreach"
}

// usesTempCheckpoint reports whether a sink kind runs from a temporary
// checkpoint when no checkpointLocation is given, as Spark's memory and
// console sinks do: the query then starts afresh on every Start.
func usesTempCheckpoint(kind string) bool { return kind == "console" || kind == "memory" }

// kafkaOptions reads the kafka sink's options and checks the output
// columns against Spark's rules (value; optional key, topic, partition,
// headers).
func (w *DataStreamWriter) kafkaOptions(schema *arrow.Schema) (kafkasink.Options, error) {
	o := kafkasink.Options{Topic: w.opts["topic"]}
	servers := w.opts["kafka.bootstrap.servers"]
	if servers == "" {
		servers = w.df.s.Brokers()
	}
	for _, b := range strings.Split(servers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			o.Bootstrap = append(o.Bootstrap, b)
		}
	}
	if v := w.opts["kafka.transaction.timeout.ms"]; v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 {
			return o, fmt.Errorf("kafka sink: kafka.transaction.timeout.ms %q: want a positive number of milliseconds, such as 60000", v)
		}
		o.TransactionTimeout = time.Duration(ms) * time.Millisecond
	}
	if err := kafkasink.Validate(schema, o.Topic); err != nil {
		return o, err
	}
	return o, nil
}

// fileOptions reads a file sink's options and checks the output mode and
// columns.
func (w *DataStreamWriter) fileOptions(mode sink.OutputMode, schema *arrow.Schema) (filesink.Options, error) {
	o := filesink.Options{Format: w.format, Path: w.opts["path"]}
	if v := w.opts["header"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("csv sink: header %q: want true or false", v)
		}
		o.Header = b
	}
	fs, err := filesink.New(schema, o)
	if err != nil {
		return o, err
	}
	return o, fs.CheckMode(mode)
}
