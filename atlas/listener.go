package atlas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/eventbus"
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

// listenerBus is a session's listeners and the server stream that feeds
// them (open while at least one listener is registered).
type listenerBus struct {
	bus listenerSet // an *eventbus.Bus[StreamingQueryListener], see listenerSet

	mu     sync.Mutex // AddListener and RemoveListener take turns
	cancel context.CancelFunc
	done   chan struct{}
}

// listenerSet is what a session needs of its eventbus.Bus. The session
// holds the bus through this interface, not by value: the compiler
// instantiates a generic type's methods in every package that reads a
// type containing it, so a Session holding an eventbus.Bus[...] made every
// notebook cell compile the bus's 19 methods again (dupok), about a third
// of a cell's compile time.
type listenerSet interface {
	Add(StreamingQueryListener) bool
	Remove(StreamingQueryListener) bool
	List() []StreamingQueryListener
	Post(func(StreamingQueryListener))
	PostSync(func(StreamingQueryListener))
}

// newListenerSet returns a session's empty listener bus.
func newListenerSet() listenerSet { return new(eventbus.Bus[StreamingQueryListener]) }

func busPlan(add bool) *pb.Plan {
	c := &pb.StreamingQueryListenerBusCommand{Command: &pb.StreamingQueryListenerBusCommand_RemoveListenerBusListener{RemoveListenerBusListener: true}}
	if add {
		c.Command = &pb.StreamingQueryListenerBusCommand_AddListenerBusListener{AddListenerBusListener: true}
	}
	return &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_StreamingQueryListenerBusCommand{StreamingQueryListenerBusCommand: c}}}}
}

// AddListener registers a listener; the first one opens the server's
// listener bus (add_listener_bus_listener) and returns once the server has
// confirmed it, so no later event is missed.
func (m *StreamingQueryManager) AddListener(l StreamingQueryListener) error {
	b := &m.s.listeners
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.bus.Add(l) {
		return nil
	}
	if err := b.open(m.s); err != nil {
		b.bus.Remove(l)
		return fmt.Errorf("streams: add listener: %w", err)
	}
	return nil
}

// RemoveListener unregisters a listener; the last one closes the server's
// listener bus (remove_listener_bus_listener).
func (m *StreamingQueryManager) RemoveListener(l StreamingQueryListener) error {
	b := &m.s.listeners
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.bus.Remove(l) || b.cancel == nil {
		return nil
	}
	ctx, cancel := shortCtx()
	defer cancel()
	_, err := m.s.command(ctx, busPlan(false).GetCommand())
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
	}
	b.cancel()
	b.cancel, b.done = nil, nil
	if err != nil {
		return fmt.Errorf("streams: remove listener: %w", err)
	}
	return nil
}

// ListListeners returns the registered listeners.
func (m *StreamingQueryManager) ListListeners() []StreamingQueryListener {
	return m.s.listeners.bus.List()
}

// open starts the add_listener_bus_listener stream and waits for the
// server's confirmation.
func (b *listenerBus) open(s *Session) error {
	ctx, cancel := context.WithCancel(context.Background())
	added := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := s.execute(ctx, busPlan(true), func(r *pb.ExecutePlanResponse) error {
			res := r.GetStreamingQueryListenerEventsResult()
			if res == nil {
				return nil
			}
			if res.GetListenerBusListenerAdded() {
				select {
				case added <- nil:
				default:
				}
			}
			for _, e := range res.GetEvents() {
				b.dispatch(e)
			}
			return nil
		})
		if err == nil {
			err = errors.New("the server ended the listener bus without confirming it (another client of this session already listens?)")
		}
		select {
		case added <- err:
		default:
		}
	}()
	select {
	case err := <-added:
		if err != nil {
			cancel()
			<-done
			return err
		}
	case <-time.After(rpcTimeout):
		cancel()
		<-done
		return errors.New("the server did not confirm the listener bus in time")
	}
	b.cancel, b.done = cancel, done
	return nil
}

// dispatch decodes one server event and posts it to the listeners.
func (b *listenerBus) dispatch(e *pb.StreamingQueryListenerEvent) {
	var err error
	switch e.GetEventType() {
	case pb.StreamingQueryEventType_QUERY_PROGRESS_EVENT:
		ev := &QueryProgressEvent{}
		if err = json.Unmarshal([]byte(e.GetEventJson()), ev); err == nil {
			b.bus.Post(func(l StreamingQueryListener) { l.OnQueryProgress(ev) })
		}
	case pb.StreamingQueryEventType_QUERY_IDLE_EVENT:
		ev := &QueryIdleEvent{}
		if err = json.Unmarshal([]byte(e.GetEventJson()), ev); err == nil {
			b.bus.Post(func(l StreamingQueryListener) { l.OnQueryIdle(ev) })
		}
	case pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT:
		ev := &QueryTerminatedEvent{}
		if err = json.Unmarshal([]byte(e.GetEventJson()), ev); err == nil {
			b.bus.Post(func(l StreamingQueryListener) { l.OnQueryTerminated(ev) })
		}
	default:
		err = fmt.Errorf("unknown event type %v", e.GetEventType())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "atlas: streaming query listener event %s: %v\n", e.GetEventJson(), err)
	}
}

// postStarted delivers a QueryStartedEvent for a query this process
// started, before Start returns, as PySpark's Connect client does.
func (s *Session) postStarted(q *StreamingQuery) {
	ev := &QueryStartedEvent{ID: q.ID(), RunID: q.RunID(), Name: q.Name(), Timestamp: progress.FormatTime(time.Now()), JobTags: []string{}}
	s.listeners.bus.PostSync(func(l StreamingQueryListener) { l.OnQueryStarted(ev) })
}
