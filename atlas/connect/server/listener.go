package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// busListener forwards the session's query events to a client over the
// ExecutePlan stream of its add_listener_bus_listener command, as Spark
// 4's SparkConnectListenerBusListener: one
// streaming_query_listener_events_result per event, with Spark's event
// JSON. Started events are not sent: the client posts them itself when
// start() returns, as Spark's server does.
type busListener struct {
	out  *responder
	mu   sync.Mutex
	done chan struct{}
	once sync.Once
	err  error // the send that failed, ending the stream
}

func newBusListener(out *responder) *busListener {
	return &busListener{out: out, done: make(chan struct{})}
}

// stop ends the forwarding; later events are dropped.
func (l *busListener) stop() { l.once.Do(func() { close(l.done) }) }

// OnQueryStarted is left to the client.
func (l *busListener) OnQueryStarted(*engine.QueryStartedEvent) {}

// OnQueryProgress sends a QUERY_PROGRESS_EVENT.
func (l *busListener) OnQueryProgress(e *engine.QueryProgressEvent) {
	l.send(e, pb.StreamingQueryEventType_QUERY_PROGRESS_EVENT)
}

// OnQueryIdle sends a QUERY_IDLE_EVENT.
func (l *busListener) OnQueryIdle(e *engine.QueryIdleEvent) {
	l.send(e, pb.StreamingQueryEventType_QUERY_IDLE_EVENT)
}

// OnQueryTerminated sends a QUERY_TERMINATED_EVENT.
func (l *busListener) OnQueryTerminated(e *engine.QueryTerminatedEvent) {
	l.send(e, pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT)
}

func (l *busListener) send(ev any, typ pb.StreamingQueryEventType) {
	js, err := json.Marshal(ev)
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		return // the command ended: its stream is closed
	default:
	}
	if err == nil {
		err = l.out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryListenerEventsResult{
			StreamingQueryListenerEventsResult: &pb.StreamingQueryListenerEventsResult{
				Events: []*pb.StreamingQueryListenerEvent{{EventJson: string(js), EventType: typ}},
			},
		}})
	}
	if err != nil {
		l.err = fmt.Errorf("streaming query listener bus: %w", err)
		l.once.Do(func() { close(l.done) })
	}
}

// listenerBusCommand runs spark.streams' server side listener, as Spark
// 4's SparkConnectStreamingQueryListenerHandler: add_listener_bus_listener
// answers listener_bus_listener_added and keeps its stream open, sending
// every event, until remove_listener_bus_listener (from another request
// of the session), the client going away or a failed send; a second add
// while one is registered, and a remove without one, end at once.
func (s *service) listenerBusCommand(ctx context.Context, sess *session, out *responder, c *pb.StreamingQueryListenerBusCommand) error {
	switch c.GetCommand().(type) {
	case *pb.StreamingQueryListenerBusCommand_AddListenerBusListener:
		l := newBusListener(out)
		if !sess.setBusListener(l) {
			s.logf("session %s: redundant server side listener added; ignored", sess.key.tag())
			return nil
		}
		defer sess.clearBusListener(l)
		added := true
		if err := out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryListenerEventsResult{
			StreamingQueryListenerEventsResult: &pb.StreamingQueryListenerEventsResult{ListenerBusListenerAdded: &added},
		}}); err != nil {
			return err
		}
		mgr := sess.engine.Streams()
		mgr.AddListener(l)
		select {
		case <-l.done:
		case <-ctx.Done():
		}
		mgr.RemoveListener(l)
		l.mu.Lock() // wait for an event being sent
		l.once.Do(func() { close(l.done) })
		err := l.err
		l.mu.Unlock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	case *pb.StreamingQueryListenerBusCommand_RemoveListenerBusListener:
		if l := sess.takeBusListener(); l != nil {
			l.stop()
		} else {
			s.logf("session %s: no server side listener to remove", sess.key.tag())
		}
		return nil
	}
	return fmt.Errorf("missing command in StreamingQueryListenerBusCommand")
}

// setBusListener registers the session's listener bus listener; false
// when one is already registered.
func (s *session) setBusListener(l *busListener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busListener != nil {
		return false
	}
	s.busListener = l
	return true
}

// clearBusListener forgets l if it is still the session's.
func (s *session) clearBusListener(l *busListener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busListener == l {
		s.busListener = nil
	}
}

// takeBusListener removes and returns the session's listener, or nil.
func (s *session) takeBusListener() *busListener {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.busListener
	s.busListener = nil
	return l
}
