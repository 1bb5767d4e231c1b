package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// Streaming queries outlive a server restart: each query started through
// the server is recorded (records.go) and a starting server restarts the
// recorded ones in their sessions, from their checkpoints. The query id
// comes from the checkpoint, so it is the same; the run id is new, as in
// Spark. Exactly-once across the restart is the checkpoint's: the offsets
// and commit logs and the idempotent sinks.

// resumeTimeout bounds the planning and start of one resumed query.
const resumeTimeout = time.Minute

// resumeDisabled tells whether $ATLAS_CONNECT_RESUME turns resuming off.
func resumeDisabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvResume))) {
	case "0", "false", "off", "no":
		return true
	}
	return false
}

// startStream plans and starts w in sess, registers the query with the
// session and records it for a restart.
func (s *service) startStream(ctx context.Context, sess *session, w *pb.WriteStreamOperationStart) (*engine.StreamingQuery, error) {
	sq, explain, err := sess.planner.StartStream(ctx, w)
	if errors.Is(err, checkpoint.ErrInUse) && s.stopActiveRun(sess, w, false) {
		sq, explain, err = sess.planner.StartStream(ctx, w)
	}
	if err != nil {
		return nil, err
	}
	sess.addQuery(sq, explain)
	s.logQueryPanic(sq)
	s.record(sess, sq, w, "")
	return sq, nil
}

// durableSink names the sink of w and, when its output does not survive a
// restart of the server, says why the query is not resumed.
func durableSink(w *pb.WriteStreamOperationStart) (sink, notResumable string) {
	format := strings.ToLower(w.GetFormat())
	if format == "" && w.GetTableName() != "" {
		format = "iceberg"
	}
	switch format {
	case "iceberg":
		return "iceberg table " + w.GetTableName() + w.GetOptions()["path"], ""
	case "kafka":
		return "kafka topic " + w.GetOptions()["topic"], ""
	case "parquet", "json", "csv":
		return format + " files in " + w.GetPath() + w.GetOptions()["path"], ""
	case "memory":
		return "memory table " + w.GetQueryName(), "a memory sink keeps its rows in the server's memory, which a restart empties; write to a table (toTable) to keep them"
	case "console":
		return "console", "a console sink prints to the server's log only; start it again if you need it"
	}
	return format, fmt.Sprintf("its sink %q is not one Atlas resumes (iceberg, kafka, parquet, json, csv)", format)
}

// record writes the record of a query just started (notResumable: why it
// cannot be resumed, when the caller knows) and watches the query to
// remove the record when it ends while the server runs.
func (s *service) record(sess *session, sq *engine.StreamingQuery, w *pb.WriteStreamOperationStart, notResumable string) {
	s.recordQuery(sess, sq, w, notResumable, nil)
}

// recordQuery is record for any query; sqlBatch is set for a server-side
// SQL foreachBatch, whose output the statements' tables keep.
func (s *service) recordQuery(sess *session, sq *engine.StreamingQuery, w *pb.WriteStreamOperationStart, notResumable string, sqlBatch *sqlBatchRecord) {
	if s.store == nil {
		return
	}
	rec := &queryRecord{
		Principal: sess.key.principal, User: sess.key.user, Session: sess.key.id, QueryID: sq.ID(), RunID: sq.RunID(), Name: sq.Name(),
		Checkpoint: sq.CheckpointLocation(), StartedAt: time.Now().UTC(), Sink: "client-side foreachBatch",
		ForeachBatchSQL: sqlBatch, EarlierRuns: sess.earlierRuns(sq.ID()),
	}
	why := notResumable
	switch {
	case sqlBatch != nil:
		rec.Sink = "server-side foreachBatch (SQL over the view " + sqlBatch.View + ")"
	case why == "":
		rec.Sink, why = durableSink(w)
	}
	var err error
	if why == "" {
		rec.Views, why, err = sess.viewsFor(w.GetInput())
	}
	if err == nil && why == "" {
		cmd := proto.Clone(w).(*pb.WriteStreamOperationStart)
		if cmd.Options == nil {
			cmd.Options = map[string]string{}
		}
		// Resume from this very checkpoint, whatever the defaults then.
		rec.Checkpoint = absLocation(rec.Checkpoint)
		cmd.Options["checkpointLocation"] = rec.Checkpoint
		rec.Command, err = proto.Marshal(cmd)
		rec.Conf = sess.confSnapshot()
	}
	if err == nil && why != "" {
		rec.NotResumable = why
		s.logf("session %s: streaming query %s will not be resumed if the server restarts: %s", sess.key.tag(), rec.label(), why)
	}
	if err == nil {
		err = s.store.put(rec)
	}
	if err != nil {
		s.logf("session %s: streaming query %s will not be resumed if the server restarts: %v", sess.key.tag(), rec.label(), err)
		return
	}
	s.watch(sq)
}

// absLocation makes a relative local checkpoint path absolute.
func absLocation(loc string) string {
	if loc == "" || strings.Contains(loc, "://") || filepath.IsAbs(loc) {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return abs
	}
	return loc
}

// watch removes the query's record once the query ends (stopped, failed,
// finished) while the server runs; a query the server's own shutdown ends
// keeps its record, to be resumed.
func (s *service) watch(sq *engine.StreamingQuery) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watchClosed {
		return
	}
	s.watchers.Add(1)
	go func() {
		defer s.watchers.Done()
		select {
		case <-sq.Done():
		case <-s.stop:
			return
		}
		if s.closing() {
			return
		}
		s.forget(sq)
	}()
}

// forget removes the record of sq's run, if any.
func (s *service) forget(sq *engine.StreamingQuery) {
	if s.store == nil {
		return
	}
	if _, err := s.store.forget(sq.ID(), sq.RunID()); err != nil {
		s.logf("streaming query %s: %v (a restart would resume it)", sq.ID(), err)
	}
}

// closing tells whether the server is going down.
func (s *service) closing() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// resume restarts the queries the store records, reports those it cannot
// and writes the report.
func (s *service) resume(stateDir string, disabled bool) ResumeReport {
	rep := ResumeReport{At: time.Now().UTC(), Disabled: disabled}
	st := s.store
	if st == nil {
		st = newQueryStore(stateDir)
	}
	recs, bad := st.list()
	for path, err := range bad {
		s.logf("streaming query record %s not read: %v; it is kept: fix or delete it", path, err)
		rep.NotResumed = append(rep.NotResumed, ResumedQuery{Reason: err.Error(), Record: path})
	}
	for _, rec := range recs {
		q := ResumedQuery{Session: rec.Session, Name: rec.Name, ID: rec.QueryID}
		switch {
		case s.closing():
			q.Reason, q.Record = "the server stopped before it resumed the query", st.path(rec.QueryID)
		case rec.NotResumable != "":
			q.Reason = rec.NotResumable
			s.logf("session %s: streaming query %s not resumed: %s", rec.sessionTag(), rec.label(), q.Reason)
			if _, err := st.forget(rec.QueryID, rec.RunID); err != nil {
				s.logf("streaming query %s: %v", rec.QueryID, err)
			}
		case disabled:
			q.Reason = fmt.Sprintf("resuming is off ($%s=%s)", EnvResume, os.Getenv(EnvResume))
			q.Record = st.path(rec.QueryID)
			s.logf("session %s: streaming query %s not resumed: %s; its record %s is kept for a later start", rec.sessionTag(), rec.label(), q.Reason, q.Record)
		default:
			sq, err := s.resumeQuery(rec)
			if err != nil {
				q.Reason, q.Record = err.Error(), st.path(rec.QueryID)
				rec.LastError, rec.LastAttempt = err.Error(), time.Now().UTC()
				if err := st.put(rec); err != nil {
					s.logf("streaming query %s: %v", rec.QueryID, err)
				}
				s.logf("session %s: streaming query %s not resumed: %v; its record %s is kept and the next start tries again (delete it to forget the query)", rec.sessionTag(), rec.label(), err, q.Record)
				break
			}
			if sq.ID() != rec.QueryID {
				// The checkpoint was replaced: the query started afresh
				// under a new id, recorded under it.
				s.logf("session %s: streaming query %s has the new id %s: its checkpoint %s holds another query now", rec.sessionTag(), rec.label(), sq.ID(), lakehouse.Redact(rec.Checkpoint))
				if _, err := st.forget(rec.QueryID, rec.RunID); err != nil {
					s.logf("streaming query %s: %v", rec.QueryID, err)
				}
			}
			q.ID, q.RunID = sq.ID(), sq.RunID()
			s.logf("session %s: resumed streaming query %s from checkpoint %s (run %s)", rec.sessionTag(), rec.label(), lakehouse.Redact(rec.Checkpoint), sq.RunID())
			rep.Resumed = append(rep.Resumed, q)
			continue
		}
		rep.NotResumed = append(rep.NotResumed, q)
	}
	if err := writeReport(stateDir, rep); err != nil {
		s.logf("%v", err)
	}
	return rep
}

// resumeQuery restarts one recorded query in its session (opened under
// the recorded id), after the temp views its plan reads.
func (s *service) resumeQuery(rec *queryRecord) (sq *engine.StreamingQuery, err error) {
	// A panic fails this query's resume (its record is kept) and lets the
	// others resume and the server serve.
	defer func() { s.logPanic(err) }()
	defer guard.Recover("resuming streaming query "+rec.QueryID, &err)
	ctx, cancel := context.WithTimeout(context.Background(), resumeTimeout)
	defer cancel()
	w := &pb.WriteStreamOperationStart{}
	if err := proto.Unmarshal(rec.Command, w); err != nil {
		return nil, fmt.Errorf("decode the recorded command: %w", err)
	}
	key := sessionKey{rec.Principal, rec.User, rec.Session}
	if key.principal == "" {
		key.principal = s.owner
	}
	sess, opened, err := s.sessions.get(key, false)
	if err != nil {
		return nil, err
	}
	if opened {
		s.logf("session %s opened to resume its streaming queries", key.tag())
	}
	sess.restoreConf(rec.Conf)
	sess.continues(rec.QueryID, append(slices.Clone(rec.EarlierRuns), rec.RunID))
	for _, v := range rec.Views {
		rel := &pb.Relation{}
		if err := proto.Unmarshal(v.Relation, rel); err != nil {
			return nil, fmt.Errorf("decode temp view %s: %w", v.Name, err)
		}
		df, err := sess.planner.Relation(ctx, rel)
		if err == nil {
			err = df.CreateOrReplaceTempView(v.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("create the temp view %s it reads again: %w", v.Name, err)
		}
		sess.setViewDef(v.Name, rel)
	}
	if rec.ForeachBatchSQL != nil {
		return s.resumeSQLForeachBatch(ctx, sess, w, rec.ForeachBatchSQL)
	}
	return s.startStream(ctx, sess, w)
}

// confSnapshot copies the session's Spark configuration.
func (s *session) confSnapshot() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conf) == 0 {
		return nil
	}
	return maps.Clone(s.conf)
}

// restoreConf sets the recorded settings the session does not have.
func (s *session) restoreConf(conf map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range conf {
		if _, ok := s.conf[k]; !ok {
			s.conf[k] = v
		}
	}
}
