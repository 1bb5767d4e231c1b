// Package source defines what a streaming source is: something that can say
// how far its data goes (an offset) and hand over the rows between two
// offsets as Apache Arrow records. The shape follows Spark's
// MicroBatchStream: the executor asks for the latest offset, writes the
// [start, end) range to the offsets log before reading, then reads exactly
// that range, so a replay after a crash reads the same rows.
package source

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Offset is a source position serialised as JSON, exactly as it is written
// to the offsets log (for Kafka: {"topic":{"0":42,"1":17}}). The empty
// Offset means "before the first row".
type Offset string

// Source is a replayable stream of rows.
type Source interface {
	// Description names the source in progress reports, such as
	// "KafkaV2[Subscribe[events]]".
	Description() string
	// Schema is the fixed schema of every record GetBatch yields.
	Schema() *arrow.Schema
	// InitialOffset is where a query with an empty checkpoint starts
	// (startingOffsets for Kafka).
	InitialOffset(ctx context.Context) (Offset, error)
	// LatestOffset returns the end of the next batch starting at start,
	// honouring the source's read limit (maxOffsetsPerTrigger). It returns
	// start itself when there is no new data.
	LatestOffset(ctx context.Context, start Offset) (Offset, error)
	// AvailableOffset returns the end of all data available now, ignoring read
	// limits; progress reports it as latestOffset.
	AvailableOffset(ctx context.Context) (Offset, error)
	// GetBatch reads the rows in [start, end) and passes them to fn as one or
	// more records. A record is valid only during the call; fn must Retain it
	// to keep it. Reading the same range twice yields the same rows.
	GetBatch(ctx context.Context, start, end Offset, fn func(arrow.RecordBatch) error) error
	// Commit tells the source that every row before end is processed and
	// will never be asked for again.
	Commit(ctx context.Context, end Offset) error
	// Close releases clients and buffers.
	Close() error
}

// AvailableNow is implemented by sources that support Trigger.AvailableNow:
// after PrepareForAvailableNow, LatestOffset never goes past the data that
// was available at the time of the call, so the query can stop once it has
// processed it (possibly over several batches when a read limit applies).
type AvailableNow interface {
	PrepareForAvailableNow(ctx context.Context) error
}

// DataLossReporter is implemented by sources that can skip records that are
// gone instead of failing (Kafka with failOnDataLoss=false); the progress
// of each batch reports what was skipped.
type DataLossReporter interface {
	// DataLoss returns what the last GetBatch skipped.
	DataLoss() []progress.DataLoss
}

// ProgressOffsets is implemented by sources whose logged offsets carry
// fields Spark's offset JSON has not (Kafka's topic ids): progress reports
// show ProgressOffset(o), the offset as Spark writes it.
type ProgressOffsets interface {
	ProgressOffset(o Offset) Offset
}

// MetadataLog is a log a source keeps in the query's checkpoint, under
// sources/<i>/ (Spark's metadataPath for source i): a directory of files
// named by the source ("0", "1", ..., "9.compact"), each written whole.
type MetadataLog interface {
	// Add writes file name. Writing a file that exists with other content
	// is an error (two writers on one checkpoint).
	Add(ctx context.Context, name string, data []byte) error
	// Get reads file name, ok=false when it does not exist.
	Get(ctx context.Context, name string) (data []byte, ok bool, err error)
	// List returns the names of the files, in no particular order.
	List(ctx context.Context) ([]string, error)
	// Delete removes file name; a missing file is not an error.
	Delete(ctx context.Context, name string) error
}

// LoggingSource is implemented by sources that keep their own log in the
// checkpoint, as Spark's file source keeps the files of each batch in
// sources/0/N. The executor calls UseMetadataLog once, before any other
// method that reads or writes offsets. It does not record the initial
// offset of such a source (that place belongs to the source's log): its
// InitialOffset must return the same offset on every run.
type LoggingSource interface {
	UseMetadataLog(ctx context.Context, log MetadataLog) error
}

// MetricsReporter is implemented by sources that count things while
// reading, such as the file source's malformed lines: the executor adds
// BatchMetrics to the progress report's observed metrics after each
// GetBatch.
type MetricsReporter interface {
	// BatchMetrics returns the counters of the last GetBatch.
	BatchMetrics() map[string]int64
}

// ColumnPruner is implemented by sources that can leave out columns a query
// never reads, such as Kafka's key, topic and timestamp when the query
// parses only value. The schema does not change: a column left out comes as
// nulls of its type, which nothing reads.
type ColumnPruner interface {
	// PruneColumns tells the source which columns of Schema the query
	// reads: read[i] for column i. It is called at most once, before the
	// first GetBatch, and only when no other reader can see the records.
	PruneColumns(read []bool)
}

// ProgressMetrics is implemented by sources that report metrics of their
// own in the progress's sources[].metrics, as Spark's ReportsSourceMetrics
// (Kafka's offsets behind latest).
type ProgressMetrics interface {
	// ProgressMetrics returns the metrics after a batch that read up to
	// end, when latest is the end of all the data available (nil: none).
	ProgressMetrics(end, latest Offset) map[string]string
}
