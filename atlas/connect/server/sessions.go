package server

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/authtoken"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// session is one client session: an engine session of its own (temp views,
// memory tables) over the shared lakehouse configuration, its Spark conf
// and its running operations.
type session struct {
	key          sessionKey
	serverSideID string
	engine       *engine.Session
	planner      *planner.Planner

	// lastUsed is when a request last named the session (guarded by the
	// registry's lock).
	lastUsed time.Time

	mu      sync.Mutex
	conf    map[string]string
	ops     map[string]*operation
	queries map[string]*query
	// continuing are the earlier run ids of queries being resumed, by
	// query id, until addQuery hands them to the new run.
	continuing map[string][]string
	// viewDefs are the relations createOrReplaceTempView named, by
	// lower-case view name, for the records of resumable queries.
	viewDefs map[string]*pb.Relation
	// busListener forwards query events to the client that added it with
	// StreamingQueryListenerBusCommand, nil for none.
	busListener *busListener
	// errs are the errors answered, for FetchErrorDetails.
	errs errorDetails
}

// sessionKey identifies a session as Spark does, by user id and session
// id, within the authenticated principal that opened it: another
// principal naming the same ids reaches a session of its own.
type sessionKey struct{ principal, user, id string }

// tag names the session in log lines: a short hash of its key, never the
// session id, which with the principal's token reaches the session.
func (k sessionKey) tag() string { return sessionTag(k.principal, k.user, k.id) }

// sessionTag is the log tag of the session (principal, user, id).
func sessionTag(principal, user, id string) string {
	return "s-" + authtoken.Tag(principal+"\x00"+user+"\x00"+id)
}

// operation is an ExecutePlan in flight, cancelled by Interrupt.
type operation struct {
	tags   []string
	cancel context.CancelFunc
}

// sessions is the server's session registry.
type sessions struct {
	conf map[string]string
	// max and maxPerUser bound the sessions open at once, in all and of
	// one authenticated principal (byPrincipal counts them).
	max, maxPerUser int
	// global holds the global temp views every session sees.
	global *engine.GlobalViews
	// logf logs what the sessions' planners warn of (set before any
	// session opens).
	logf func(format string, args ...any)

	mu          sync.Mutex
	m           map[sessionKey]*session
	byPrincipal map[string]int
}

func newSessions(conf map[string]string, l limits) *sessions {
	return &sessions{conf: maps.Clone(conf), max: l.maxSessions, maxPerUser: l.maxSessionsPerUser,
		m: map[sessionKey]*session{}, byPrincipal: map[string]int{}, global: engine.NewGlobalViews()}
}

// principalName names an authenticated principal in a message ("" is a
// server without authentication).
func principalName(p string) string {
	if p == "" {
		return "this server's only user (no authentication)"
	}
	return fmt.Sprintf("principal %q", p)
}

// limitErr is a session refused by a limit; err is its status.
type limitErr struct{ err error }

func (e *limitErr) Error() string { return e.err.Error() }
func (e *limitErr) Unwrap() error { return e.err }

// get returns the session, opening it on first use. A new session past
// the limits is refused, unless limited is false (the server resuming
// the queries of a session it had).
func (r *sessions) get(k sessionKey, limited bool) (*session, bool, error) {
	if k.id == "" {
		return nil, false, fmt.Errorf("session_id is required")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.m[k]; ok {
		s.lastUsed = time.Now()
		return s, false, nil
	}
	if limited && r.max > 0 && len(r.m) >= r.max {
		return nil, false, &limitErr{limitError("", "54000",
			fmt.Sprintf("the server has %d sessions open, its limit: close sessions you no longer use (spark.stop()) or wait until idle ones expire", len(r.m)), ConfMaxSessions)}
	}
	if limited && r.maxPerUser > 0 && r.byPrincipal[k.principal] >= r.maxPerUser {
		return nil, false, &limitErr{limitError("", "54000",
			fmt.Sprintf("%s has %d sessions open, the limit per user (counted per token, whatever user_id the sessions name): close sessions you no longer use (spark.stop()) or wait until idle ones expire", principalName(k.principal), r.byPrincipal[k.principal]), ConfMaxSessionsPerUser)}
	}
	b := engine.Builder().AppName("atlas-connect-" + k.id).GlobalViews(r.global)
	for key, v := range r.conf {
		b = b.Config(key, v)
	}
	eng := b.GetOrCreate()
	s := &session{
		key:          k,
		serverSideID: uuid.NewString(),
		engine:       eng,
		planner:      &planner.Planner{Session: eng, Logf: r.logf},
		conf:         map[string]string{},
		ops:          map[string]*operation{},
		queries:      map[string]*query{},
		lastUsed:     time.Now(),
	}
	r.m[k] = s
	r.byPrincipal[k.principal]++
	return s, true, nil
}

// lookup returns an open session without opening one.
func (r *sessions) lookup(k sessionKey) (*session, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.m[k]
	return s, ok
}

// remove forgets the session and returns it.
func (r *sessions) remove(k sessionKey) (*session, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.m[k]
	if ok {
		r.forget(k)
	}
	return s, ok
}

// expire removes and returns the sessions no request has named for
// timeout, with no operation in flight and no active streaming query.
func (r *sessions) expire(now time.Time, timeout time.Duration) []*session {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*session
	for k, s := range r.m {
		if now.Sub(s.lastUsed) < timeout || s.busy() {
			continue
		}
		r.forget(k)
		out = append(out, s)
	}
	return out
}

// forget removes k from the registry; r.mu is held.
func (r *sessions) forget(k sessionKey) {
	delete(r.m, k)
	if r.byPrincipal[k.principal]--; r.byPrincipal[k.principal] <= 0 {
		delete(r.byPrincipal, k.principal)
	}
}

// busy tells whether an operation is in flight or a streaming query runs.
func (s *session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ops) > 0 {
		return true
	}
	for _, q := range s.queries {
		if q.sq.IsActive() {
			return true
		}
	}
	return false
}

// all returns every open session.
func (r *sessions) all() []*session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*session, 0, len(r.m))
	for _, s := range r.m {
		out = append(out, s)
	}
	return out
}

// startOp registers an operation and returns its context, cancelled by
// Interrupt or when the call ends, and the function that ends it.
func (s *session) startOp(parent context.Context, id string, tags []string) (context.Context, func(), error) {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.ops[id]; dup {
		cancel()
		return nil, nil, fmt.Errorf("operation %s is already running in this session", id)
	}
	s.ops[id] = &operation{tags: tags, cancel: cancel}
	return ctx, func() {
		cancel()
		s.mu.Lock()
		delete(s.ops, id)
		s.mu.Unlock()
	}, nil
}

// interrupt cancels the operations match selects and returns their ids.
func (s *session) interrupt(match func(id string, op *operation) bool) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, op := range s.ops {
		if match(id, op) {
			op.cancel()
			ids = append(ids, id)
		}
	}
	return ids
}

// close interrupts every operation, stops the streaming queries and
// releases the engine session.
func (s *session) close() {
	s.interrupt(func(string, *operation) bool { return true })
	s.stopQueries()
	s.engine.Stop()
}
