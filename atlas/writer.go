package atlas

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// DataStreamWriter describes where and how a streaming DataFrame is
// written, as df.writeStream.
type DataStreamWriter struct {
	df       *DataFrame
	format   string
	mode     string
	name     string
	trigger  Trigger
	opts     map[string]string
	progress bool
	fn       func(batch *DataFrame, batchID int64) error
	sqlBatch *sqlBatch // ForeachBatchSQL
}

// WriteStream starts describing the streaming query that writes df.
func (df *DataFrame) WriteStream() *DataStreamWriter {
	return &DataStreamWriter{df: df, opts: map[string]string{}, progress: true}
}

// OutputMode is "append" (default), "update" or "complete".
func (w *DataStreamWriter) OutputMode(mode string) *DataStreamWriter { w.mode = mode; return w }

// Format names the sink: "iceberg", "memory", "console", "kafka"...
func (w *DataStreamWriter) Format(name string) *DataStreamWriter { w.format = name; return w }

// Option sets a sink option (checkpointLocation, lateRowsTable, ...).
func (w *DataStreamWriter) Option(key string, value any) *DataStreamWriter {
	w.opts[key] = optionText(value)
	return w
}

// Trigger sets when micro-batches run: ProcessingTime, AvailableNow or Once.
func (w *DataStreamWriter) Trigger(t Trigger) *DataStreamWriter { w.trigger = t; return w }

// QueryName names the query: the memory sink's table, and the name
// Streams().Get finds it by.
func (w *DataStreamWriter) QueryName(name string) *DataStreamWriter { w.name = name; return w }

// Progress turns the live progress display that AwaitTermination drives
// (charts in a notebook, one line per batch in a terminal) on or off; on by
// default.
func (w *DataStreamWriter) Progress(on bool) *DataStreamWriter { w.progress = on; return w }

// ForeachBatch calls fn in this process with each micro-batch, as a
// DataFrame over rows the server holds, and its batch id, as foreachBatch.
// The server commits a batch only after fn returns nil; an error from fn
// stops the query. Writes fn makes through the session (spark.SQL MERGE
// INTO, INSERT) are exactly-once: the server keys them by (query id, batch
// id, write sequence), so a batch replayed after a failure or an interrupt
// writes nothing twice. fn runs only while this process lives: when it
// exits, the query stops and its next start resumes from the checkpoint.
// (Atlas extension: atlas.connect.ForeachBatchStart.)
func (w *DataStreamWriter) ForeachBatch(fn func(batch *DataFrame, batchID int64) error) *DataStreamWriter {
	w.fn = fn
	return w
}

// ForeachWriter writes a query's output one row at a time, as Spark's
// ForeachWriter: for every micro-batch, Open(partitionID, epochID) with
// partition 0 and the batch id as epoch; when it returns true, Process for
// every row; then Close with the error that stopped the batch (nil when it
// went through), even when Open declined or failed. An error fails the
// query; a replayed batch comes again with the same epoch id.
type ForeachWriter interface {
	// Open prepares to write a batch; false skips its rows.
	Open(partitionID, epochID int64) (bool, error)
	// Process writes one row.
	Process(row Row) error
	// Close ends the batch; err is what stopped it, nil on success.
	Close(err error) error
}

// Foreach writes the output one row at a time through writer, as
// foreach(ForeachWriter). The writer runs in this process (a Go writer
// cannot travel to the server): each micro-batch reaches it through
// ForeachBatch, whose rules (the batch is committed once Close returns
// nil; the query stops when this process exits) apply.
func (w *DataStreamWriter) Foreach(writer ForeachWriter) *DataStreamWriter {
	w.fn = func(batch *DataFrame, batchID int64) error {
		ok, err := writer.Open(0, batchID)
		if err != nil {
			return errors.Join(fmt.Errorf("foreach writer: open of batch %d: %w", batchID, err), writer.Close(err))
		}
		if ok {
			rows, err := batch.Rows(context.Background())
			if err != nil {
				return errors.Join(fmt.Errorf("foreach writer: rows of batch %d: %w", batchID, err), writer.Close(err))
			}
			for _, row := range rows {
				if err := writer.Process(row); err != nil {
					return errors.Join(fmt.Errorf("foreach writer: batch %d: %w", batchID, err), writer.Close(err))
				}
			}
		}
		if err := writer.Close(nil); err != nil {
			return fmt.Errorf("foreach writer: close of batch %d: %w", batchID, err)
		}
		return nil
	}
	return w
}

// ToTable starts the query writing to a table, as toTable(name).
func (w *DataStreamWriter) ToTable(name string) (*StreamingQuery, error) {
	return w.start(context.Background(), name)
}

// Start starts the query. An invalid query (an unknown sink, a missing
// option, a mode the plan does not allow) fails here, before anything is
// written, with the server's reason.
func (w *DataStreamWriter) Start() (*StreamingQuery, error) { return w.start(context.Background(), "") }

// operation builds the WriteStreamOperationStart PySpark would send.
func (w *DataStreamWriter) operation(table string) (*pb.WriteStreamOperationStart, error) {
	if w.df.err != nil {
		return nil, w.df.err
	}
	if w.trigger.err != nil {
		return nil, w.trigger.err
	}
	op := &pb.WriteStreamOperationStart{
		Input:      w.df.rel,
		Format:     w.format,
		Options:    sinkOptions(w.opts),
		OutputMode: w.mode,
		QueryName:  w.name,
	}
	switch w.trigger.kind {
	case triggerProcessingTime:
		op.Trigger = &pb.WriteStreamOperationStart_ProcessingTimeInterval{ProcessingTimeInterval: w.trigger.interval}
	case triggerAvailableNow:
		op.Trigger = &pb.WriteStreamOperationStart_AvailableNow{AvailableNow: true}
	case triggerOnce:
		op.Trigger = &pb.WriteStreamOperationStart_Once{Once: true}
	}
	if table != "" {
		if w.fn != nil || w.sqlBatch != nil {
			return nil, errors.New("writeStream: foreachBatch and toTable exclude each other: write to the table inside the function")
		}
		op.SinkDestination = &pb.WriteStreamOperationStart_TableName{TableName: table}
	}
	return op, nil
}

// sinkOptions are the options as sent: a relative file sink path and a
// relative checkpointLocation made absolute here, as the readers' paths are
// (absPaths), so they mean the notebook's directory, not the server's.
func sinkOptions(opts map[string]string) map[string]string {
	return absPathOptions(opts, "path", "checkpointLocation")
}

// absPathOptions returns opts with the local relative paths among the
// options keys made absolute (absPaths); opts itself is not changed.
func absPathOptions(opts map[string]string, keys ...string) map[string]string {
	out := opts
	for _, k := range keys {
		p, ok := opts[k]
		if !ok {
			continue
		}
		if abs := absPaths([]string{p})[0]; abs != p {
			if maps.Equal(out, opts) {
				out = maps.Clone(opts)
			}
			out[k] = abs
		}
	}
	return out
}

func (w *DataStreamWriter) start(ctx context.Context, table string) (*StreamingQuery, error) {
	op, err := w.operation(table)
	if err != nil {
		return nil, fmt.Errorf("start the query: %w", err)
	}
	if w.fn != nil && w.sqlBatch != nil {
		return nil, errors.New("start the query: ForeachBatch(fn) and ForeachBatchSQL exclude each other: keep one")
	}
	if w.fn != nil {
		return w.startForeachBatch(op)
	}
	if w.sqlBatch != nil {
		return w.startForeachBatchSQL(op)
	}
	resps, err := w.df.s.command(ctx, &pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: op}})
	if err != nil {
		return nil, fmt.Errorf("start the query: %w", err)
	}
	for _, r := range resps {
		if res := r.GetWriteStreamOperationStartResult(); res != nil {
			q := w.df.s.query(res.GetQueryId(), res.GetName())
			q.progress = w.progress
			q.checkpoint = w.opts["checkpointLocation"]
			q.console = strings.EqualFold(w.format, "console")
			w.df.s.postStarted(q)
			return q, nil
		}
	}
	return nil, errors.New("start the query: the server answered without the query's id")
}
