// Package progress defines the per-micro-batch progress report of a
// streaming query. Its types and JSON shape mirror Spark Structured
// Streaming's StreamingQueryProgress, so tools and people that read Spark's
// progress JSON can read Atlas's unchanged.
package progress

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// StreamingQueryProgress describes one completed micro-batch (trigger) of a
// streaming query. Field names and JSON keys follow Spark's
// org.apache.spark.sql.streaming.StreamingQueryProgress.
type StreamingQueryProgress struct {
	// ID is the query's stable id: it survives restarts from the same checkpoint.
	ID string `json:"id"`
	// RunID is unique to this run of the query.
	RunID string `json:"runId"`
	// Name is the query name given with WriteStream().QueryName, or ""
	// (JSON null, as Spark writes an unnamed query's name).
	Name string `json:"name"`
	// Timestamp is when the trigger started, ISO-8601 UTC with milliseconds.
	Timestamp string `json:"timestamp"`
	// BatchID is the micro-batch id (0-based, continues across restarts).
	BatchID int64 `json:"batchId"`
	// BatchDuration is the wall time of the whole trigger in milliseconds.
	BatchDuration int64 `json:"batchDuration"`
	// NumInputRows is the number of rows read from all sources in this batch.
	NumInputRows int64 `json:"numInputRows"`
	// InputRowsPerSecond is the rate at which rows arrived: rows of this
	// batch divided by the time since the previous trigger started.
	InputRowsPerSecond float64 `json:"inputRowsPerSecond"`
	// ProcessedRowsPerSecond is rows of this batch divided by its duration.
	ProcessedRowsPerSecond float64 `json:"processedRowsPerSecond"`
	// DurationMs breaks the trigger down by phase: addBatch, getBatch,
	// latestOffset, queryPlanning, triggerExecution, walCommit, commitOffsets.
	DurationMs map[string]int64 `json:"durationMs"`
	// EventTime holds avg, max, min of the event-time column in this batch
	// and the watermark used by it, ISO-8601 UTC. Empty when the query has
	// no watermark.
	EventTime map[string]string `json:"eventTime,omitempty"`
	// StateOperators reports each stateful operator (aggregation).
	StateOperators []StateOperatorProgress `json:"stateOperators"`
	// Sources reports each source's offsets and rates.
	Sources []SourceProgress `json:"sources"`
	// Sink reports the sink.
	Sink SinkProgress `json:"sink"`
	// ObservedMetrics holds Atlas's extra counters that Spark has no field
	// for, such as "numMalformedRows" (records whose JSON did not parse),
	// [MetricNullEventTime] and [MetricFutureEventTime].
	ObservedMetrics map[string]int64 `json:"observedMetrics,omitempty"`
	// WatermarkWarning is set (Atlas only) when this batch moved the
	// watermark past its own processing time: some row's event time is so
	// far in the future that, by Spark's rule, every row stamped with the
	// present is now late.
	WatermarkWarning *WatermarkWarning `json:"watermarkWarning,omitempty"`
}

// Counters Atlas adds to ObservedMetrics for queries with a watermark.
const (
	// MetricNullEventTime counts rows whose event time is null (a missing
	// or unparsable field, an empty JSON object or value, a tombstone):
	// Spark's window() filters them out silently, Atlas counts them (and
	// keeps them in the lateRowsTable, reason "null_event_time").
	MetricNullEventTime = "numRowsWithNullEventTime"
	// MetricFutureEventTime counts rows whose event time is ahead of the
	// batch's processing time by more than eventTimeMaxAheadOfProcessing
	// (kept out of the watermark and the aggregation), or, without that
	// option, by more than the watermark delay (aggregated, as Spark does,
	// and they drag the watermark past the present: see WatermarkWarning).
	MetricFutureEventTime = "numRowsWithFutureEventTime"
)

// WatermarkWarning describes a watermark that jumped ahead of processing
// time. Times are ISO-8601 UTC like EventTime's.
type WatermarkWarning struct {
	// MaxEventTime is the largest event time of the batch: the row that
	// moved the watermark.
	MaxEventTime string `json:"maxEventTime"`
	// OldWatermark is the watermark before the batch, NewWatermark after.
	OldWatermark string `json:"oldWatermark"`
	NewWatermark string `json:"newWatermark"`
	// ProcessingTime is the batch's processing time (batchTimestampMs).
	ProcessingTime string `json:"processingTime"`
	// Message says the same in one sentence, with the way out.
	Message string `json:"message"`
}

// StateOperatorProgress mirrors Spark's StateOperatorProgress.
type StateOperatorProgress struct {
	OperatorName              string `json:"operatorName"`
	NumRowsTotal              int64  `json:"numRowsTotal"`
	NumRowsUpdated            int64  `json:"numRowsUpdated"`
	NumRowsRemoved            int64  `json:"numRowsRemoved"`
	AllUpdatesTimeMs          int64  `json:"allUpdatesTimeMs"`
	AllRemovalsTimeMs         int64  `json:"allRemovalsTimeMs"`
	CommitTimeMs              int64  `json:"commitTimeMs"`
	MemoryUsedBytes           int64  `json:"memoryUsedBytes"`
	NumRowsDroppedByWatermark int64  `json:"numRowsDroppedByWatermark"`
	NumShufflePartitions      int64  `json:"numShufflePartitions"`
	NumStateStoreInstances    int64  `json:"numStateStoreInstances"`
	// CustomMetrics are the state store provider's counters, by the names
	// of Spark's HDFS-backed provider (MetricLoadedMapCacheHit,
	// MetricLoadedMapCacheMiss, MetricStateOnCurrentVersionSize), plus the
	// operator's own (numDroppedDuplicateRows for deduplication).
	CustomMetrics map[string]int64 `json:"customMetrics,omitempty"`
}

// Names of StateOperatorProgress.CustomMetrics that every stateful
// operator reports, as Spark's HDFSBackedStateStoreProvider does: the
// number of batches that found the previous state version in memory
// (hit) or had to load it from the checkpoint (miss, after a restart or
// a retried batch), over this run of the query, and the estimated size of
// the current state version in bytes.
const (
	MetricLoadedMapCacheHit         = "loadedMapCacheHitCount"
	MetricLoadedMapCacheMiss        = "loadedMapCacheMissCount"
	MetricStateOnCurrentVersionSize = "stateOnCurrentVersionSizeBytes"
)

// SourceProgress mirrors Spark's SourceProgress. Offsets are the source's
// own JSON (for Kafka: {"topic":{"partition":offset}}).
type SourceProgress struct {
	Description            string          `json:"description"`
	StartOffset            json.RawMessage `json:"startOffset"`
	EndOffset              json.RawMessage `json:"endOffset"`
	LatestOffset           json.RawMessage `json:"latestOffset"`
	NumInputRows           int64           `json:"numInputRows"`
	InputRowsPerSecond     float64         `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond float64         `json:"processedRowsPerSecond"`
	// Metrics are the source's own metrics, as strings, as Spark's
	// ReportsSourceMetrics: for Kafka minOffsetsBehindLatest,
	// maxOffsetsBehindLatest and avgOffsetsBehindLatest (how far the
	// batch's end is behind each partition's latest offset). Absent when
	// the source reports none.
	Metrics map[string]string `json:"metrics,omitempty"`
	// DataLoss lists the offsets this batch skipped because their records
	// were gone (only with the Kafka option failOnDataLoss=false; otherwise
	// the query stops). Spark has no such field: it only logs a warning.
	DataLoss []DataLoss `json:"dataLoss,omitempty"`
}

// DataLoss is a range of a source partition's offsets that a batch skipped
// because the records were gone when it read them: deleted by retention or
// DeleteRecords, truncated away, or in a topic deleted and created again.
type DataLoss struct {
	// Partition names the partition, "topic-partition" for Kafka.
	Partition string `json:"partition"`
	// FromOffset is the first offset skipped.
	FromOffset int64 `json:"fromOffset"`
	// ToOffset is the offset after the last one skipped, or -1 when
	// unknown (the records went with a deleted topic whose end the query
	// never listed).
	ToOffset int64 `json:"toOffset"`
	// Reason says why the records were gone.
	Reason string `json:"reason"`
}

// String reads like "events-0 [5000, 8000): reason" (or "[5000, end of the
// deleted topic)").
func (d DataLoss) String() string {
	to := "end of the deleted topic"
	if d.ToOffset >= 0 {
		to = strconv.FormatInt(d.ToOffset, 10)
	}
	return fmt.Sprintf("%s [%d, %s): %s", d.Partition, d.FromOffset, to, d.Reason)
}

// SinkProgress mirrors Spark's SinkProgress.
type SinkProgress struct {
	Description   string `json:"description"`
	NumOutputRows int64  `json:"numOutputRows"`
	// Metrics are the sink's own per-batch metrics, as Spark's
	// SinkProgress.metrics (a map of strings, Spark 3.4+). A foreachBatch
	// sink reports the table writes its function made in the batch (the
	// Sink* keys below); other sinks report none.
	Metrics map[string]string `json:"metrics,omitempty"`
}

// Keys of SinkProgress.Metrics for a foreachBatch query: the table writes
// (MERGE INTO, INSERT) its function made through the session in the batch.
const (
	// SinkNumWrites counts the writes.
	SinkNumWrites = "numWrites"
	// SinkNumUpdatedRows, SinkNumDeletedRows and SinkNumInsertedRows sum
	// the writes' MERGE/INSERT metrics (num_updated_rows, ...).
	SinkNumUpdatedRows  = "numUpdatedRows"
	SinkNumDeletedRows  = "numDeletedRows"
	SinkNumInsertedRows = "numInsertedRows"
	// SinkNumFilesRewritten counts data files the writes replaced.
	SinkNumFilesRewritten = "numFilesRewritten"
	// SinkNumSkippedWrites counts writes a replayed batch skipped because
	// they had already committed (exactly-once).
	SinkNumSkippedWrites = "numSkippedWrites"
	// SinkWriteTimeMs is the writes' wall time, in milliseconds.
	SinkWriteTimeMs = "writeTimeMs"
)

// SinkMetric returns the sink metric key as an integer, 0 when absent or
// not a number.
func (p *StreamingQueryProgress) SinkMetric(key string) int64 {
	n, _ := strconv.ParseInt(p.Sink.Metrics[key], 10, 64)
	return n
}

// MarshalJSON writes Spark's StreamingQueryProgress.json: an unnamed
// query's name is null there, not "".
func (p StreamingQueryProgress) MarshalJSON() ([]byte, error) {
	type fields StreamingQueryProgress // the same fields, without this method
	return json.Marshal(struct {
		fields
		Name *string `json:"name"` // shallower, so it replaces fields.Name
	}{fields(p), optString(p.Name)})
}

// JSON returns the progress as compact JSON, Spark's `json` property.
func (p *StreamingQueryProgress) JSON() string {
	b, _ := json.Marshal(p)
	return string(b)
}

// PrettyJSON returns the progress as indented JSON, Spark's `prettyJson`.
func (p *StreamingQueryProgress) PrettyJSON() string {
	b, _ := json.MarshalIndent(p, "", "  ")
	return string(b)
}

// Watermark returns the watermark the batch ran with, or the zero time when
// the query has none.
func (p *StreamingQueryProgress) Watermark() time.Time {
	return parseTime(p.EventTime["watermark"])
}

// MaxEventTime returns the largest event time of the batch, or the zero time.
func (p *StreamingQueryProgress) MaxEventTime() time.Time {
	return parseTime(p.EventTime["max"])
}

// FormatTime formats t the way Spark writes progress timestamps.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err == nil {
		return t
	}
	// FormatTime writes years past 9999 with all their digits (Spark's
	// timestamps reach year 294247); time.Parse reads only four.
	dash := strings.IndexByte(s, '-')
	year, yerr := strconv.Atoi(s[:max(dash, 0)])
	if dash <= 4 || yerr != nil {
		return time.Time{}
	}
	rest, err := time.Parse("2006-01-02T15:04:05.000Z", "2000"+s[dash:])
	if err != nil {
		return time.Time{}
	}
	return time.Date(year, rest.Month(), rest.Day(), rest.Hour(), rest.Minute(), rest.Second(), rest.Nanosecond(), time.UTC)
}

// QueryStatus mirrors Spark's StreamingQueryStatus: what the query is doing now.
type QueryStatus struct {
	Message         string `json:"message"`
	IsDataAvailable bool   `json:"isDataAvailable"`
	IsTriggerActive bool   `json:"isTriggerActive"`
}
