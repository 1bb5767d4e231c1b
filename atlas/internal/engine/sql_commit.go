package engine

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// PropWriteSeq is the snapshot summary property holding the position of a
// write among the writes of one foreachBatch callback (0 for the first).
const PropWriteSeq = lakehouse.PropWriteSeq

// nextWrite returns the exactly-once key of a table write (MERGE, INSERT)
// made through the session. Outside a foreachBatch callback it is empty: an
// ordinary commit. Inside, the n-th write of the callback (from 0) is keyed
// by the query id, the batch id and the write sequence n (Commit.Write), so
// each write of a replayed batch is skipped or redone on its own. This
// needs the callback to issue its writes in the same order on a replay, as
// a deterministic callback does. Histories written when the n-th write was
// keyed by the query id "<id>#write<n>" are still recognised (see
// lakehouse.Commit.Write).
func (s *Session) nextWrite(op string) lakehouse.Commit {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch == nil {
		return lakehouse.Commit{Extra: map[string]string{"atlas.operation": op}}
	}
	seq := s.batch.seq
	s.batch.seq++
	return lakehouse.Commit{QueryID: s.batch.queryID, BatchID: s.batch.batchID, Write: seq,
		Extra: map[string]string{"atlas.operation": op}}
}
