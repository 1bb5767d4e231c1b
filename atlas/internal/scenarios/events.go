// Package scenarios holds the two flagship pipelines as Go functions, the
// same steps the notebooks run cell by cell, for the CLI (atlas run,
// atlas bench) and for checks outside a notebook.
package scenarios

import (
	ckpt "github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// EventsSchema is the JSON schema of scenario 1's events.
const EventsSchema = "user_id string, event string, ts timestamp"

// EventWindowsTable is where scenario 1 writes.
const EventWindowsTable = "lakehouse.gold.event_windows"

// EventWindowsLateTable is where the CLI's scenario 1 keeps the events that
// arrived behind the watermark (Spark drops them silently).
const EventWindowsLateTable = "lakehouse.gold.event_windows_late"

// The scenarios' checkpoint identities, from the checkpoint policy: each
// durable checkpoint has one id, one owner and a classification (see
// atlas/internal/checkpoint/README.md).
const (
	// EventWindowsCheckpointID is scenario 1's checkpoint id.
	EventWindowsCheckpointID = "streaming-event-windows-v1"
	// CDCCheckpointID is scenario 2's checkpoint id.
	CDCCheckpointID = "streaming-online-retail-cdc-v1"
	// CheckpointOwner owns both.
	CheckpointOwner = "Streaming Data Engineering"
	// DurableStream is their classification.
	DurableStream = "durable stream"
)

// EventsOptions configures scenario 1.
type EventsOptions struct {
	// Topic is the Kafka topic (default "events").
	Topic string
	// StartingOffsets is "earliest" (default) or "latest".
	StartingOffsets string
	// MaxOffsetsPerTrigger bounds a micro-batch (0 = unbounded).
	MaxOffsetsPerTrigger int64
	// Watermark and Window are Spark durations (default "10 minutes", "5 minutes").
	Watermark, Window string
	// LateRowsTable, when set, keeps the events dropped as late in this
	// table (the writer's lateRowsTable option).
	LateRowsTable string
}

func (o EventsOptions) withDefaults() EventsOptions {
	if o.Topic == "" {
		o.Topic = "events"
	}
	if o.StartingOffsets == "" {
		o.StartingOffsets = "earliest"
	}
	if o.Watermark == "" {
		o.Watermark = "10 minutes"
	}
	if o.Window == "" {
		o.Window = "5 minutes"
	}
	return o
}

// EventWindows builds scenario 1's streaming DataFrame: JSON events from
// Kafka, a watermark on ts, counts per event type per tumbling window,
// flattened to (event, window_start, window_end, count).
func EventWindows(s *engine.Session, o EventsOptions) *engine.DataFrame {
	o = o.withDefaults()
	r := s.ReadStream().Format("kafka").
		Option("subscribe", o.Topic).
		Option("startingOffsets", o.StartingOffsets)
	if o.MaxOffsetsPerTrigger > 0 {
		r = r.Option("maxOffsetsPerTrigger", o.MaxOffsetsPerTrigger)
	}
	events := r.Load().
		SelectExpr("CAST(value AS STRING) AS json").
		Select(engine.FromJSON(engine.Col("json"), EventsSchema).Alias("data")).
		Select("data.*")
	return events.
		WithWatermark("ts", o.Watermark).
		GroupBy(engine.Window(engine.Col("ts"), o.Window), engine.Col("event")).
		Count().
		Select(engine.Col("event"),
			engine.Col("window.start").Alias("window_start"),
			engine.Col("window.end").Alias("window_end"),
			engine.Col("count"))
}

// StartEventWindows starts scenario 1 writing closed windows to table in
// append mode, with the given trigger and checkpoint ("" = the session's
// default for the query name "event_windows").
func StartEventWindows(s *engine.Session, o EventsOptions, table, checkpoint string, trigger engine.Trigger, progress bool) (*engine.StreamingQuery, error) {
	if table == "" {
		table = EventWindowsTable
	}
	w := EventWindows(s, o).WriteStream().
		OutputMode("append").
		QueryName("event_windows").
		Option(ckpt.OptionID, EventWindowsCheckpointID).
		Option(ckpt.OptionOwner, CheckpointOwner).
		Option(ckpt.OptionClassification, DurableStream).
		Trigger(trigger).
		Progress(progress)
	if checkpoint != "" {
		w = w.Option("checkpointLocation", checkpoint)
	}
	if o.LateRowsTable != "" {
		w = w.Option("lateRowsTable", o.LateRowsTable)
	}
	return w.ToTable(table)
}

// EventsData is the event stream the notebook's Setup cell and `atlas run
// events` produce into an empty topic: 200,000 events, 10% out of order,
// 2% late beyond the watermark, 1% duplicated.
var EventsData = produce.EventsConfig{Count: 200_000, Seed: 1, Topic: "events", OutOfOrder: 0.1, Late: 0.02, Duplicates: 0.01}
