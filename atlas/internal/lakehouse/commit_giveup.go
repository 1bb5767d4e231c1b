package lakehouse

import (
	"fmt"
	"time"

	"github.com/apache/iceberg-go/table"
)

// ContentionError is returned by a write that gave up after other writers
// committed to the table before each of its attempts. Nothing was
// committed. It unwraps to the catalog's last refusal ("requirement
// failed: branch main has changed ...").
type ContentionError struct {
	// Table is the table name.
	Table string
	// Op is the write ("append to", "overwrite", "merge into", ...).
	Op string
	// Attempts is how many times the commit was tried.
	Attempts int
	// OtherCommits counts the snapshots other writers committed to the
	// table's main branch while this write retried.
	OtherCommits int
	// Elapsed is the time spent retrying.
	Elapsed time.Duration
	cause   error
}

func (e *ContentionError) Error() string {
	return fmt.Sprintf("lakehouse: %s %s: gave up, nothing committed: other writers committed to this table %d times while this write tried %d times over %s "+
		"(a commit must start from the table's latest snapshot, and another commit landed first each time). "+
		"Run the write again (a streaming query restarted from its checkpoint redoes the batch, exactly once), and give the table fewer concurrent writers: "+
		"one query per table, and maintenance (compact, expire) or batch MERGEs at quiet times",
		e.Op, e.Table, e.OtherCommits, e.Attempts, e.Elapsed.Round(time.Millisecond))
}

// Unwrap returns the catalog's last refusal.
func (e *ContentionError) Unwrap() error { return e.cause }

// snapshotID is the id of t's current snapshot, or noSnapshot (-1) for none.
func snapshotID(t *table.Table) int64 {
	if s := t.CurrentSnapshot(); s != nil {
		return s.SnapshotID
	}
	return noSnapshot
}

// commitsSince counts the snapshots of t's current branch ancestry after
// snapshot base (all of them when base is -1 or no longer in the history).
func commitsSince(t *table.Table, base int64) int {
	meta := t.Metadata()
	n := 0
	for s := t.CurrentSnapshot(); s != nil && s.SnapshotID != base; n++ {
		if s.ParentSnapshotID == nil {
			return n + 1
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return n
}
