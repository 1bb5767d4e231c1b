package progress

import "encoding/json"

// StreamingQueryListener receives the lifecycle events of a session's
// streaming queries, as Spark's StreamingQueryListener; register it with
// spark.Streams().AddListener. Events are delivered one at a time, in the
// order they happened, on a goroutine of the session (OnQueryStarted before
// Start returns): keep the methods quick, and do not wait in them for a
// query to progress or end. Embed StreamingQueryListenerFuncs to implement
// only some methods.
type StreamingQueryListener interface {
	// OnQueryStarted is called when a query starts, before Start returns
	// (with Spark Connect: for the queries this process starts).
	OnQueryStarted(e *QueryStartedEvent)
	// OnQueryProgress is called after every micro-batch that ran.
	OnQueryProgress(e *QueryProgressEvent)
	// OnQueryIdle is called when a trigger found no data, at most once per
	// spark.sql.streaming.noDataProgressEventInterval (Spark 3.5+).
	OnQueryIdle(e *QueryIdleEvent)
	// OnQueryTerminated is called when a query ends, stopped or failed.
	OnQueryTerminated(e *QueryTerminatedEvent)
}

// StreamingQueryListenerFuncs is a StreamingQueryListener made of
// functions; a nil function ignores its event. Use a pointer to it, so that
// RemoveListener can find it again.
type StreamingQueryListenerFuncs struct {
	Started    func(*QueryStartedEvent)
	Progress   func(*QueryProgressEvent)
	Idle       func(*QueryIdleEvent)
	Terminated func(*QueryTerminatedEvent)
}

// OnQueryStarted calls Started.
func (f *StreamingQueryListenerFuncs) OnQueryStarted(e *QueryStartedEvent) {
	if f.Started != nil {
		f.Started(e)
	}
}

// OnQueryProgress calls Progress.
func (f *StreamingQueryListenerFuncs) OnQueryProgress(e *QueryProgressEvent) {
	if f.Progress != nil {
		f.Progress(e)
	}
}

// OnQueryIdle calls Idle.
func (f *StreamingQueryListenerFuncs) OnQueryIdle(e *QueryIdleEvent) {
	if f.Idle != nil {
		f.Idle(e)
	}
}

// OnQueryTerminated calls Terminated.
func (f *StreamingQueryListenerFuncs) OnQueryTerminated(e *QueryTerminatedEvent) {
	if f.Terminated != nil {
		f.Terminated(e)
	}
}

// QueryStartedEvent says a query started, with Spark's fields and JSON.
type QueryStartedEvent struct {
	// ID is the query id, stable across restarts from one checkpoint.
	ID string `json:"id"`
	// RunID is unique to this run.
	RunID string `json:"runId"`
	// Name is the query name, "" for none (JSON null).
	Name string `json:"-"`
	// Timestamp is when the query started, ISO-8601 UTC with milliseconds.
	Timestamp string `json:"timestamp"`
	// JobTags are Spark's job tags (Spark 4.0); always empty in Atlas.
	JobTags []string `json:"jobTags"`
}

// MarshalJSON writes Spark's QueryStartedEvent.json.
func (e *QueryStartedEvent) MarshalJSON() ([]byte, error) {
	tags := e.JobTags
	if tags == nil {
		tags = []string{}
	}
	return json.Marshal(struct {
		ID        string   `json:"id"`
		RunID     string   `json:"runId"`
		Name      *string  `json:"name"`
		Timestamp string   `json:"timestamp"`
		JobTags   []string `json:"jobTags"`
	}{e.ID, e.RunID, optString(e.Name), e.Timestamp, tags})
}

// QueryProgressEvent carries a micro-batch's progress report.
type QueryProgressEvent struct {
	// Progress is the batch's report, as query.LastProgress.
	Progress StreamingQueryProgress `json:"progress"`
}

// QueryIdleEvent says a query's trigger found no new data (Spark 3.5+).
type QueryIdleEvent struct {
	// ID is the query id.
	ID string `json:"id"`
	// RunID is unique to this run.
	RunID string `json:"runId"`
	// Timestamp is when the idle trigger started, ISO-8601 UTC.
	Timestamp string `json:"timestamp"`
}

// QueryTerminatedEvent says a query ended; Exception is set when it failed.
type QueryTerminatedEvent struct {
	// ID is the query id.
	ID string `json:"id"`
	// RunID is unique to this run.
	RunID string `json:"runId"`
	// Exception is the error that ended the query, nil when it stopped.
	Exception *string `json:"exception"`
	// ErrorClassOnException is the Spark error class of that error (the
	// "[CLASS]" its message starts with), nil when none.
	ErrorClassOnException *string `json:"errorClassOnException"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
