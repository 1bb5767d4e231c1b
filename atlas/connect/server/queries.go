package server

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// query is a streaming query the server runs for a session, kept after it
// terminates (for status, progress, exception) until resetTerminated or
// the session closes.
type query struct {
	sq      *engine.StreamingQuery
	explain string
	started time.Time
	// earlierRuns are the run ids this run continues (a query the server
	// resumed after restarts, newest last): a handle a client kept from
	// one of them still reaches the query.
	earlierRuns []string
}

// maxEarlierRuns bounds the earlier run ids kept per query.
const maxEarlierRuns = 8

// addQuery registers a started query.
func (s *session) addQuery(sq *engine.StreamingQuery, explain string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	earlier := s.continuing[sq.ID()]
	delete(s.continuing, sq.ID())
	s.queries[sq.ID()] = &query{sq: sq, explain: explain, started: time.Now(), earlierRuns: earlier}
}

// continues says the next run of queryID the session starts continues
// the runs given (oldest first): a resumed query.
func (s *session) continues(queryID string, runs []string) {
	if len(runs) > maxEarlierRuns {
		runs = runs[len(runs)-maxEarlierRuns:]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.continuing == nil {
		s.continuing = map[string][]string{}
	}
	s.continuing[queryID] = runs
}

// earlierRuns are the run ids the query's current run continues.
func (s *session) earlierRuns(queryID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.queries[queryID]; ok {
		return q.earlierRuns
	}
	return nil
}

// isRun tells whether runID names the query's current run or one it
// continues.
func (q *query) isRun(runID string) bool {
	return runID == "" || q.sq.RunID() == runID || slices.Contains(q.earlierRuns, runID)
}

// query finds a query by id (and run id, when given); as an Atlas
// extension a query name also finds the query of that name: the active
// one, else the one that started last.
func (s *session) query(id, runID string) (*query, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.queries[id]; ok {
		if !q.isRun(runID) {
			return nil, fmt.Errorf("[STREAMING_QUERY_NOT_FOUND] query %s has run %s, not run %s (restarted?)", id, q.sq.RunID(), runID)
		}
		return q, nil
	}
	// By name: the active query of that name, else the last one to
	// start (a query that failed or stopped still tells why).
	var last *query
	for _, q := range s.queries {
		if id == "" || q.sq.Name() != id {
			continue
		}
		if q.sq.IsActive() {
			return q, nil
		}
		if last == nil || q.started.After(last.started) {
			last = q
		}
	}
	if last != nil {
		return last, nil
	}
	return nil, fmt.Errorf("[STREAMING_QUERY_NOT_FOUND] no streaming query %q in this session", id)
}

// listQueries returns the session's queries (active ones only, with
// active), oldest first.
func (s *session) listQueries(active bool) []*query {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*query
	for _, q := range s.queries {
		if !active || q.sq.IsActive() {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].started.Before(out[j].started) })
	return out
}

// resetTerminated forgets the queries that have terminated.
func (s *session) resetTerminated() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, q := range s.queries {
		if !q.sq.IsActive() {
			delete(s.queries, id)
		}
	}
}

// stopQueries stops every active query of the session.
func (s *session) stopQueries() {
	for _, q := range s.listQueries(true) {
		q.sq.Stop()
	}
}

// pollInterval is how often waits look at a query's state.
const pollInterval = 20 * time.Millisecond

// awaitTermination waits until done() holds, timeout passes (timeout < 0:
// no limit) or ctx ends; it returns whether done() held.
func awaitTermination(ctx context.Context, timeout time.Duration, done func() bool) (bool, error) {
	var deadline <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if done() {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline:
			return done(), nil
		case <-tick.C:
		}
	}
}
