package atlas

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// StreamingQueryListener receives the lifecycle events of every streaming
// query of a session, as Spark's StreamingQueryListener; register it with
// spark.Streams().AddListener. Events are delivered one at a time, in the
// order they happened, on a goroutine of the session (OnQueryStarted before
// Start returns): keep the methods quick, and do not wait in them for a
// query to progress or end. Embed StreamingQueryListenerFuncs to implement
// only some methods.
type StreamingQueryListener interface {
	// OnQueryStarted is called when a query starts, before Start returns.
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

// formatEventTime formats an event timestamp as Spark does.
func formatEventTime(t time.Time) string { return progress.FormatTime(t) }

// listenerBus delivers events to listeners, in order, one at a time, on a
// goroutine that runs only while events are queued.
type listenerBus struct {
	mu        sync.Mutex
	listeners []StreamingQueryListener
	queue     []busEvent
	running   bool
}

type busEvent struct {
	to      []StreamingQueryListener
	deliver func(StreamingQueryListener)
	done    chan struct{} // closed once delivered, or nil
}

func (b *listenerBus) add(l StreamingQueryListener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.listeners = append(b.listeners, l)
}

func (b *listenerBus) remove(l StreamingQueryListener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.listeners {
		if x == l {
			b.listeners = append(b.listeners[:i:i], b.listeners[i+1:]...)
			return
		}
	}
}

func (b *listenerBus) list() []StreamingQueryListener {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]StreamingQueryListener(nil), b.listeners...)
}

// post queues an event for the listeners registered now.
func (b *listenerBus) post(deliver func(StreamingQueryListener)) { b.enqueue(deliver, nil) }

// postSync queues an event and waits until it has been delivered.
func (b *listenerBus) postSync(deliver func(StreamingQueryListener)) {
	done := make(chan struct{})
	if b.enqueue(deliver, done) {
		<-done
	}
}

// enqueue queues an event; it reports false when no listener is registered.
func (b *listenerBus) enqueue(deliver func(StreamingQueryListener), done chan struct{}) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.listeners) == 0 {
		return false
	}
	b.queue = append(b.queue, busEvent{to: append([]StreamingQueryListener(nil), b.listeners...), deliver: deliver, done: done})
	if !b.running {
		b.running = true
		go b.drain()
	}
	return true
}

func (b *listenerBus) drain() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		ev := b.queue[0]
		b.queue = b.queue[1:]
		b.mu.Unlock()
		for _, l := range ev.to {
			deliverSafely(l, ev.deliver)
		}
		if ev.done != nil {
			close(ev.done)
		}
	}
}

// deliverSafely calls one listener; a listener that panics is reported on
// stderr and the other listeners and queries go on, as Spark logs a
// listener's exception.
func deliverSafely(l StreamingQueryListener, deliver func(StreamingQueryListener)) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "atlas: streaming query listener %T panicked: %v\n", l, r)
		}
	}()
	deliver(l)
}
