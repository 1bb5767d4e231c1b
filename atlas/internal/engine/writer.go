package engine

import (
	"context"
	"fmt"
	"os"
	"strings"

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

// DataStreamWriter describes where and how a streaming query writes, as
// DataFrame.writeStream.
type DataStreamWriter struct {
	df       *DataFrame
	mode     string
	format   string
	opts     map[string]string
	trigger  Trigger
	name     string
	foreach  func(batch *DataFrame, batchID int64) error
	sqlForm  *checkpoint.BatchForm // set by ForeachBatchSQL
	writer   ForeachWriter
	progress bool
}

// WriteStream starts describing the output of a streaming DataFrame.
func (df *DataFrame) WriteStream() *DataStreamWriter {
	return &DataStreamWriter{df: df, mode: "append", opts: map[string]string{}, progress: true}
}

// OutputMode sets "append" (default), "update" or "complete".
func (w *DataStreamWriter) OutputMode(mode string) *DataStreamWriter { w.mode = mode; return w }

// Format picks the sink: "iceberg", "kafka", "parquet", "json", "csv",
// "console", "memory" (or use Foreach / ForeachBatch). Spark sinks Atlas
// does not have ("delta", "orc", ...) are refused at Start, with what to
// use instead.
//
// "kafka" takes Spark's columns (value, and optional key, topic,
// partition, headers) and options (topic, kafka.bootstrap.servers, default
// the session's brokers) and is exactly-once, unlike Spark's: each batch is
// one Kafka transaction under a transactional.id derived from the query id,
// committed before the commit log, and a replayed batch that already
// committed is skipped (see package sink/kafka). Read it with
// isolation.level=read_committed.
//
// "parquet", "json" and "csv" write files to Option("path", dir), in
// append mode only, exactly-once through Spark's _spark_metadata log, which
// Spark and Atlas's readers use to list only committed files.
//
// As in Spark, the memory and console sinks run from a temporary
// checkpoint unless Option("checkpointLocation", dir) is given: each Start
// reads the stream afresh (a memory table is rebuilt from the start), and
// the temporary checkpoint is deleted when the query ends. With an explicit
// checkpointLocation they resume from it like every other sink.
func (w *DataStreamWriter) Format(name string) *DataStreamWriter {
	w.format = strings.ToLower(name)
	return w
}

// Option sets a writer option: "checkpointLocation" (a local path, file://,
// or s3:// URL), sink options (console: numRows, truncate),
// "lateRowsTable" and "eventTimeMaxAheadOfProcessing".
//
// lateRowsTable removes Spark's silent drop of late data: rows that arrive
// behind the watermark (their window already closed and emitted) are
// appended, exactly once, to this Iceberg table instead of vanishing, as
// they entered the aggregation plus _batch_id, _watermark (the batch and
// its watermark for late events: since Spark 3.4, SPARK-40925, the
// previous batch's watermark) and _reason: "late" (also counted in
// numRowsDroppedByWatermark), "null_event_time" (no event time: Spark's
// window() filters such rows out without a count; Atlas counts them in
// observedMetrics.numRowsWithNullEventTime) or "future_event_time" (see
// below). A table created before _reason existed keeps its columns and is
// written without it. It needs an aggregation with a watermark, in append
// or update mode:
//
//	WriteStream().OutputMode("append").
//		Option("lateRowsTable", "lakehouse.gold.event_windows_late").
//		ToTable("lakehouse.gold.event_windows")
//
// eventTimeMaxAheadOfProcessing (a duration, "1 hour") guards the
// watermark against clocks in the future. Spark's rule, which Atlas keeps
// by default, sets the watermark to the largest event time seen minus the
// delay and never moves it back: one record stamped year 294247 makes
// every later record late, for good. Atlas reports such a batch in
// progress (watermarkWarning, and a WARNING on the progress line). With
// this option, a row whose event time is further ahead of the batch's
// processing time (batchTimestampMs, from the offsets log, so a replay
// decides the same) is kept out of the watermark and of the aggregation,
// counted in observedMetrics.numRowsWithFutureEventTime and appended to
// the lateRowsTable with _reason "future_event_time". Choose a bound above
// the producers' worst clock skew plus the delay you tolerate.
//
//	Option("eventTimeMaxAheadOfProcessing", "1 hour")
//
// holdBeforeCommit (a batch id, an Atlas extension for drills and labs)
// makes that batch wait after its output is written and committed by the
// sink and before its commit-log entry, until the query is stopped; its
// status message starts with "Holding batch". Stopping it then abandons the
// batch exactly where a crash would leave the sink ahead of the commit log:
// the next run replays the batch with the same offsets and the sink skips
// it. Every run that reaches the batch holds, so restart without it.
//
//	Option("holdBeforeCommit", 3)
func (w *DataStreamWriter) Option(key string, value any) *DataStreamWriter {
	w.opts[key] = fmt.Sprint(value)
	return w
}

// Trigger sets when micro-batches run (ProcessingTime, AvailableNow, Once);
// the default runs the next batch as soon as data arrives.
func (w *DataStreamWriter) Trigger(t Trigger) *DataStreamWriter { w.trigger = t; return w }

// QueryName names the query (and its default checkpoint directory).
func (w *DataStreamWriter) QueryName(name string) *DataStreamWriter { w.name = name; return w }

// Progress turns the live progress display (charts in a notebook, one line
// per batch in a terminal) on or off; on by default.
func (w *DataStreamWriter) Progress(on bool) *DataStreamWriter { w.progress = on; return w }

// ForeachBatch calls fn with each micro-batch as a batch DataFrame and its
// batch id, as foreachBatch. An error from fn stops the query; on restart
// the same batch (same rows, same id) is offered again. MERGE INTO and
// INSERT run through the session inside fn are exactly-once: each records
// (query id, batch id) in its Iceberg snapshot and a replayed batch whose
// write already committed is skipped.
func (w *DataStreamWriter) ForeachBatch(fn func(batch *DataFrame, batchID int64) error) *DataStreamWriter {
	w.foreach, w.sqlForm = fn, nil
	return w
}

// Foreach writes the output one row at a time through writer, as
// foreach(ForeachWriter); see ForeachWriter for the calls it gets.
func (w *DataStreamWriter) Foreach(writer ForeachWriter) *DataStreamWriter {
	w.writer = writer
	return w
}

// ToTable starts the query writing to a lakehouse table (created from the
// query's schema when missing), as toTable.
func (w *DataStreamWriter) ToTable(name string) (*StreamingQuery, error) {
	if w.format == "" {
		w.format = "iceberg"
	}
	w.opts["path"] = name
	return w.Start()
}

// Start starts the query and returns at once; the query runs in the
// background until stopped (Stop, AwaitTermination with an interrupt, or
// the end of an AvailableNow/Once trigger). Invalid queries fail here with
// the reason and the fix, before any table, checkpoint directory or lease
// is created.
func (w *DataStreamWriter) Start() (*StreamingQuery, error) {
	df := w.df
	if err := df.Err(); err != nil {
		return nil, err
	}
	ctx := df.s.castContext(context.Background())
	if w.trigger.err != nil {
		return nil, fmt.Errorf("trigger: %w", w.trigger.err)
	}
	mode, err := sink.ParseOutputMode(w.mode)
	if err != nil {
		return nil, err
	}
	shape, err := plan.ValidateStreaming(df.node, mode)
	if err != nil {
		return nil, err
	}
	name := w.name
	if name == "" {
		name = w.opts["queryName"]
	}
	if name == "" && w.foreach == nil && w.format == "iceberg" {
		name = w.opts["path"]
	}
	sp, err := w.planSink(mode, shape, name, os.Stdout)
	if err != nil {
		return nil, err
	}
	mgr := df.s.Streams()
	if err := mgr.checkStart(name); err != nil {
		return nil, err
	}
	idleEvery, err := df.s.noDataEventInterval()
	if err != nil {
		return nil, err
	}
	wmPolicy, err := df.s.multipleWatermarkPolicy()
	if err != nil {
		return nil, err
	}
	workers, chunkRows, err := df.s.operatorParallelism()
	if err != nil {
		return nil, err
	}
	var ring *console.Ring
	if sp.kind == "console" {
		keep, err := df.s.consoleRetainedBatches()
		if err != nil {
			return nil, err
		}
		ring = console.NewRing(keep)
		sp.console.Ring = ring
	}
	// Validated: from here on, side effects.
	schema := exec.ShapeOutputSchema(shape)
	var snk sink.Sink
	switch sp.kind {
	case "foreachBatch":
		snk = &foreachBatchSink{s: df.s, fn: w.foreach}
	case "foreach":
		snk = &foreachWriterSink{w: w.writer}
	case "iceberg":
		lh, err := df.s.Lakehouse(ctx)
		if err != nil {
			return nil, err
		}
		if snk, err = iceberg.Open(ctx, lh, sp.table, schema); err != nil {
			return nil, err
		}
	case "console":
		snk = sp.console
	case "kafka":
		if snk, err = kafkasink.New(schema, sp.kafka); err != nil {
			return nil, err
		}
	case "parquet", "json", "csv":
		if snk, err = filesink.New(schema, sp.file); err != nil {
			return nil, err
		}
	case "memory":
		if snk, err = df.s.newMemoryTable(name, schema); err != nil {
			return nil, err
		}
	}
	if mc, ok := snk.(sink.ModeChecker); ok {
		if err := mc.CheckMode(mode); err != nil {
			return nil, err
		}
	}
	var (
		lateSink   sink.Sink
		lateSchema *arrow.Schema
	)
	if sp.lateTable != "" {
		lh, err := df.s.Lakehouse(ctx)
		if err != nil {
			return nil, err
		}
		ic, err := iceberg.Open(ctx, lh, sp.lateTable, exec.LateRowsSchema(shape))
		if err != nil {
			return nil, fmt.Errorf("lateRowsTable: %w", err)
		}
		lateSink = ic
		if ts := ic.Table().Schema(); ts.FieldIndices(exec.LateReasonColumn) == nil {
			// Created before the reason column: keep writing its columns.
			lateSchema = exec.LegacyLateRowsSchema(shape)
		}
	}
	loc, temp := sp.checkpoint, false
	if loc == "" {
		dir, err := os.MkdirTemp("", "atlas-checkpoint-")
		if err != nil {
			return nil, err
		}
		loc, temp = dir, true
	}
	ck, err := checkpoint.OpenWith(ctx, loc, df.s.checkpointOptions())
	if err != nil {
		if temp {
			os.RemoveAll(loc)
		}
		return nil, err
	}
	if sp.identity != nil {
		if err := ck.EnsureIdentity(ctx, *sp.identity); err != nil {
			ck.Close()
			return nil, err
		}
	}
	if !temp {
		var form *checkpoint.BatchForm
		if w.foreach != nil {
			form = w.sqlForm
		}
		if err := ck.CheckBatchForm(ctx, form); err != nil {
			ck.Close()
			return nil, err
		}
	}
	if fs, ok := snk.(*filesink.Sink); ok {
		if err := fs.CheckCheckpoint(ctx, ck); err != nil {
			ck.Close()
			if temp {
				os.RemoveAll(loc)
			}
			return nil, err
		}
	}
	sq := &StreamingQuery{name: name, session: df.s, tempCheckpoint: temp, checkpoint: ck, mgr: mgr, started: make(chan struct{}), ended: make(chan struct{}), released: make(chan struct{}), console: ring}
	sq.explain = queryExplain{plan: df.ExplainString(), sink: snk.Description(), mode: mode, trigger: w.trigger.t}
	tap := &tapSink{inner: snk}
	sq.tap = tap
	cfg := exec.Config{Name: name, Shape: shape, Sink: tap, Mode: mode, Trigger: w.trigger.t, Checkpoint: ck, OnProgress: sq.onProgress, OnWait: sq.onWait, LateSink: lateSink, LateRowsSchema: lateSchema, EventTimeMaxAhead: sp.maxAhead,
		OnIdle: sq.onIdle, NoDataEventInterval: idleEvery, MultipleWatermarkPolicy: wmPolicy,
		Parallelism: workers, ChunkRows: chunkRows, HoldBeforeCommit: sp.hold}
	if w.progress {
		sq.view = newProgressView(name, df.s.appName)
	}
	q, err := exec.Start(ctx, cfg)
	if err != nil {
		ck.Close()
		if temp {
			os.RemoveAll(loc)
		}
		return nil, err
	}
	sq.q = q
	if err := mgr.register(sq); err != nil {
		close(sq.started)
		stopCtx, cancel := context.WithTimeout(ctx, stopGrace)
		defer cancel()
		_ = q.Stop(stopCtx)
		sq.close()
		close(sq.ended)
		return nil, err
	}
	close(sq.started)
	// A query that ends on its own (AvailableNow, an error) gives its
	// checkpoint lease back at once, not when someone waits for it.
	go func() {
		<-q.Done()
		sq.close()
		mgr.terminated(sq)
		close(sq.ended)
	}()
	return sq, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// multipleWatermarkPolicy is spark.sql.streaming.multipleWatermarkPolicy
// ("min", the default, or "max"), as the guide's "Policy for handling
// multiple watermarks" describes.
func (s *Session) multipleWatermarkPolicy() (string, error) {
	raw := s.confValue(exec.ConfMultipleWatermarkPolicy)
	v := strings.ToLower(strings.TrimSpace(raw))
	switch v {
	case "":
		return exec.WatermarkPolicyMin, nil
	case exec.WatermarkPolicyMin, exec.WatermarkPolicyMax:
		return v, nil
	}
	return "", fmt.Errorf("the value of %s should be one of min, max, but was %q", exec.ConfMultipleWatermarkPolicy, raw)
}
