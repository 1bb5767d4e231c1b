package engine

import (
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// StreamingQueryListener receives the lifecycle events of streaming
// queries, as Spark's; see progress.StreamingQueryListener.
type StreamingQueryListener = progress.StreamingQueryListener

// StreamingQueryListenerFuncs is a StreamingQueryListener made of functions.
type StreamingQueryListenerFuncs = progress.StreamingQueryListenerFuncs

// QueryStartedEvent says a query started, with Spark's fields and JSON.
type QueryStartedEvent = progress.QueryStartedEvent

// QueryProgressEvent carries a micro-batch's progress report.
type QueryProgressEvent = progress.QueryProgressEvent

// QueryIdleEvent says a query's trigger found no new data (Spark 3.5+).
type QueryIdleEvent = progress.QueryIdleEvent

// QueryTerminatedEvent says a query ended; Exception is set when it failed.
type QueryTerminatedEvent = progress.QueryTerminatedEvent

// formatEventTime formats an event timestamp as Spark does.
func formatEventTime(t time.Time) string { return progress.FormatTime(t) }
