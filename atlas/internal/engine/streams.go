package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/eventbus"
)

// ConfNoDataProgressEventInterval is Spark's
// spark.sql.streaming.noDataProgressEventInterval: the least time, in
// milliseconds, between two QueryIdleEvents of a query whose triggers find
// no data (default 10000).
const ConfNoDataProgressEventInterval = "spark.sql.streaming.noDataProgressEventInterval"

// StreamingQueryManager manages the streaming queries of a session, as
// Spark's StreamingQueryManager (spark.streams): the active queries,
// waiting for any of them to end, and the listeners that receive every
// query's lifecycle events.
type StreamingQueryManager struct {
	s *Session

	mu     sync.Mutex
	active map[string]*StreamingQuery // by query id
	// lastTerminated is the latest query that terminated since the
	// session started or ResetTerminated; changed is closed and replaced
	// whenever a query terminates.
	lastTerminated *StreamingQuery
	changed        chan struct{}
	seq            int64 // queries started so far, to order Active
	bus            eventbus.Bus[StreamingQueryListener]
}

// Streams returns the session's streaming query manager, as spark.streams.
func (s *Session) Streams() *StreamingQueryManager {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streamsMgr == nil {
		s.streamsMgr = &StreamingQueryManager{s: s, active: map[string]*StreamingQuery{}, changed: make(chan struct{})}
	}
	return s.streamsMgr
}

// Active returns the session's active queries, in the order they started.
func (m *StreamingQueryManager) Active() []*StreamingQuery {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*StreamingQuery, 0, len(m.active))
	for _, q := range m.active {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// Get returns the active query with this id, or (an Atlas extension) with
// this name; nil when no active query has it, as spark.streams.get.
func (m *StreamingQueryManager) Get(idOrName string) *StreamingQuery {
	m.mu.Lock()
	defer m.mu.Unlock()
	if q, ok := m.active[idOrName]; ok {
		return q
	}
	for _, q := range m.active {
		if idOrName != "" && q.name == idOrName {
			return q
		}
	}
	return nil
}

// AwaitAnyTermination blocks until any query of the session has terminated
// since the session began or since the last ResetTerminated, as
// awaitAnyTermination(). It returns the terminated query's error (nil when
// it stopped cleanly). It returns at once while a terminated query is
// remembered: call ResetTerminated to wait for the next one.
func (m *StreamingQueryManager) AwaitAnyTermination() error {
	return m.AwaitAnyTerminationContext(context.Background())
}

// AwaitAnyTerminationTimeout waits at most d: it returns true when a query
// terminated (with its error), false when none did in time, as
// awaitAnyTermination(timeout).
func (m *StreamingQueryManager) AwaitAnyTerminationTimeout(d time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := m.AwaitAnyTerminationContext(ctx)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return false, nil
	}
	return true, err
}

// AwaitAnyTerminationContext is AwaitAnyTermination, giving up with ctx's
// error when ctx is done first.
func (m *StreamingQueryManager) AwaitAnyTerminationContext(ctx context.Context) error {
	for {
		m.mu.Lock()
		last, ch := m.lastTerminated, m.changed
		m.mu.Unlock()
		if last != nil {
			if err := last.Exception(); err != nil {
				return fmt.Errorf("query %s terminated with exception: %w", last.displayName(), err)
			}
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ResetTerminated forgets the queries that have terminated, so that
// AwaitAnyTermination waits for a new termination.
func (m *StreamingQueryManager) ResetTerminated() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastTerminated = nil
}

// AddListener registers a listener for the lifecycle events of every
// query of the session, as spark.streams.addListener.
func (m *StreamingQueryManager) AddListener(l StreamingQueryListener) { m.bus.Add(l) }

// RemoveListener unregisters a listener; events already queued for it may
// still be delivered.
func (m *StreamingQueryManager) RemoveListener(l StreamingQueryListener) { m.bus.Remove(l) }

// ListListeners returns the registered listeners, as spark.streams.listListeners.
func (m *StreamingQueryManager) ListListeners() []StreamingQueryListener { return m.bus.List() }

// checkStart refuses a query whose name is already taken by an active
// query of the session, as Spark does.
func (m *StreamingQueryManager) checkStart(name string) error {
	if name == "" {
		return nil
	}
	if q := m.Get(name); q != nil && q.name == name {
		return fmt.Errorf("cannot start query with name %s as a query with that name is already active in this session (id %s): stop it first (spark.Streams().Get(%q).Stop()) or choose another QueryName", name, q.ID(), name)
	}
	return nil
}

// register records a started query and delivers its QueryStartedEvent to
// the listeners before returning, as Spark does before start() returns.
func (m *StreamingQueryManager) register(sq *StreamingQuery) error {
	m.mu.Lock()
	if other, ok := m.active[sq.ID()]; ok && other != sq {
		m.mu.Unlock()
		return fmt.Errorf("cannot start query with id %s as another query with the same id is already active (run %s): stop it first or use another checkpointLocation", sq.ID(), other.RunID())
	}
	m.seq++
	sq.seq = m.seq
	m.active[sq.ID()] = sq
	m.mu.Unlock()
	ev := &QueryStartedEvent{ID: sq.ID(), RunID: sq.RunID(), Name: sq.name, Timestamp: formatEventTime(time.Now())}
	m.bus.PostSync(func(l StreamingQueryListener) { l.OnQueryStarted(ev) })
	return nil
}

// terminated records that sq ended and posts its QueryTerminatedEvent.
func (m *StreamingQueryManager) terminated(sq *StreamingQuery) {
	ev := &QueryTerminatedEvent{ID: sq.ID(), RunID: sq.RunID()}
	if err := sq.Exception(); err != nil {
		msg := err.Error()
		ev.Exception = &msg
		if c := errorClass(msg); c != "" {
			ev.ErrorClassOnException = &c
		}
	}
	m.bus.Post(func(l StreamingQueryListener) { l.OnQueryTerminated(ev) })
	m.mu.Lock()
	if m.active[sq.ID()] == sq {
		delete(m.active, sq.ID())
	}
	m.lastTerminated = sq
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// noDataEventInterval is ConfNoDataProgressEventInterval as a duration.
func (s *Session) noDataEventInterval() (time.Duration, error) {
	v := s.confValue(ConfNoDataProgressEventInterval)
	if v == "" {
		return 10 * time.Second, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 {
		return 0, fmt.Errorf("%s = %q: want a number of milliseconds >= 0, such as 10000", ConfNoDataProgressEventInterval, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// errorClass extracts Spark's error class from a message that starts with
// one, as "[STREAM_FAILED] ...".
func errorClass(msg string) string {
	if len(msg) < 3 || msg[0] != '[' {
		return ""
	}
	for i := 1; i < len(msg); i++ {
		c := msg[i]
		switch {
		case c == ']':
			if i > 1 {
				return msg[1:i]
			}
			return ""
		case c == '_' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
		default:
			return ""
		}
	}
	return ""
}
