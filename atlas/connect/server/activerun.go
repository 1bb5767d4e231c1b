package server

import (
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// A query runs once at a time: its checkpoint is leased to one run. As
// Spark does with spark.sql.streaming.stopActiveRunOnRestart (true by
// default), starting a query whose checkpoint an active run of another
// session holds stops that run, and the new run takes over. This
// is what makes a resumed query reachable after a notebook kernel restart:
// the server resumed it in the old kernel's session, and the new kernel's
// session starts it again. Within one session a query of the same name is
// refused instead, as in Spark.

// confStopActiveRun is Spark's setting; "false" keeps the old run and
// makes the new start fail.
const confStopActiveRun = "spark.sql.streaming.stopActiveRunOnRestart"

// stopActiveRun stops the active runs, in any session, of the query w
// starts from the same checkpoint, except a run of the same name in sess
// (the engine refuses that start with the reason), and reports whether it
// stopped one. The caller calls it when the start failed with
// checkpoint.ErrInUse, and starts again.
func (s *service) stopActiveRun(sess *session, w *pb.WriteStreamOperationStart, foreachBatch bool) bool {
	sess.mu.Lock()
	off := strings.EqualFold(sess.conf[confStopActiveRun], "false")
	sess.mu.Unlock()
	loc := plannedCheckpoint(sess, w, foreachBatch)
	if off || loc == "" {
		return false
	}
	name := plannedName(w, foreachBatch)
	stopped := false
	for _, other := range s.sessions.all() {
		for _, q := range other.listQueries(true) {
			if absLocation(q.sq.CheckpointLocation()) != loc || (other == sess && name != "" && q.sq.Name() == name) {
				continue
			}
			s.logf("session %s: stopping streaming query %s (id %s, run %s) of session %s: a new run of it starts from its checkpoint (%s)",
				sess.key.tag(), q.sq.Name(), q.sq.ID(), q.sq.RunID(), other.key.tag(), confStopActiveRun)
			if err := q.sq.Stop(); err != nil {
				s.logf("stop query %s: %v", q.sq.ID(), err)
			}
			stopped = true
		}
	}
	return stopped
}

// plannedName is the query name the engine gives the query w starts:
// the query name, else an Iceberg table's name.
func plannedName(w *pb.WriteStreamOperationStart, foreachBatch bool) string {
	if n := w.GetQueryName(); n != "" {
		return n
	}
	if n := w.GetOptions()["queryName"]; n != "" {
		return n
	}
	format := strings.ToLower(w.GetFormat())
	if !foreachBatch && (format == "iceberg" || (format == "" && w.GetTableName() != "")) {
		if t := w.GetTableName(); t != "" {
			return t
		}
		return w.GetOptions()["path"]
	}
	return ""
}

// plannedCheckpoint is the checkpoint location the engine will open for
// w, as its writer decides it, or "" for a temporary one.
func plannedCheckpoint(sess *session, w *pb.WriteStreamOperationStart, foreachBatch bool) string {
	if loc := w.GetOptions()["checkpointLocation"]; loc != "" {
		return absLocation(loc)
	}
	if format := strings.ToLower(w.GetFormat()); !foreachBatch && (format == "memory" || format == "console") {
		return ""
	}
	name := plannedName(w, foreachBatch)
	if name == "" {
		return ""
	}
	return absLocation(sess.engine.CheckpointDir(name))
}
