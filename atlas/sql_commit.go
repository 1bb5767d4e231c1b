package atlas

import (
	"fmt"
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/lakehouse"
)

// PropWriteSeq is the snapshot summary property holding the position of a
// write among the writes of one foreachBatch callback (0 for the first).
const PropWriteSeq = "atlas.write.seq"

// nextWrite returns the exactly-once key of a table write (MERGE, INSERT)
// made through the session. Outside a foreachBatch callback it is empty: an
// ordinary commit. Inside, the first write of the callback is keyed by the
// query id and batch id, as Iceberg's Spark sink keys a batch; the n-th
// further write by "<query id>#write<n>" and the batch id, so each write of
// a replayed batch is skipped or redone on its own. This needs the
// callback to issue its writes in the same order on a replay, as a
// deterministic callback does.
func (s *Session) nextWrite(op string) lakehouse.Commit {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch == nil {
		return lakehouse.Commit{Extra: map[string]string{"atlas.operation": op}}
	}
	seq := s.batch.seq
	s.batch.seq++
	q := s.batch.queryID
	if seq > 0 {
		q = fmt.Sprintf("%s#write%d", q, seq)
	}
	return lakehouse.Commit{QueryID: q, BatchID: s.batch.batchID, Extra: map[string]string{
		PropWriteSeq:      strconv.Itoa(seq),
		"atlas.operation": op,
	}}
}
