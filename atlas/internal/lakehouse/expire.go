package lakehouse

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go/table"
)

// maxExpireAttempts bounds ExpireSnapshots' retries after failed commits.
const maxExpireAttempts = 5

// ExpireSnapshots removes snapshots older than olderThan from the table's
// metadata, keeping at least the retainLast newest (at least 1), and
// deletes the data and manifest files only they referenced: Iceberg's
// expire_snapshots. It keeps the newest snapshot carrying the streams'
// exactly-once marks (PropWriters) and those after it, whatever retainLast
// says. A stream commits a snapshot per micro-batch and a MERGE
// leaves the files it replaced behind; without expiry the metadata and the
// warehouse only grow. Time travel to an expired snapshot is no longer
// possible.
//
// Exactly-once is unaffected: every Atlas snapshot carries the last batch
// of every query that wrote the table (PropWriters), so a replay after
// expiry is still recognised. It returns how many snapshots it removed.
//
// An expire killed after its commit and before its deletes leaves files
// that no snapshot references any more, which a later expire does not
// see: RemoveOrphanFiles deletes them.
func (t *Table) ExpireSnapshots(ctx context.Context, olderThan time.Duration, retainLast int) (int, error) {
	if retainLast < 1 {
		retainLast = 1
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	for attempt := 1; ; attempt++ {
		cur, err := t.refreshLocked(ctx)
		if err != nil {
			return 0, err
		}
		before := len(cur.Metadata().Snapshots())
		// Never past the snapshot holding the streams' exactly-once marks.
		keep := max(retainLast, exactlyOnceDepth(ancestry(cur.Metadata()))+1)
		tx := cur.NewTransaction()
		if err := tx.ExpireSnapshots(table.WithOlderThan(olderThan), table.WithRetainLast(keep)); err != nil {
			return 0, fmt.Errorf("lakehouse: expire snapshots of %s: %w", t.name, err)
		}
		next, err := tx.Commit(ctx)
		if err == nil {
			t.cur.Store(next)
			return before - len(next.Metadata().Snapshots()), nil
		}
		// Most likely another writer committed meanwhile (the SQL catalog
		// does not always say so with ErrCommitFailed): recompute on the
		// new state, a few times.
		if ctx.Err() != nil || attempt >= maxExpireAttempts {
			return 0, fmt.Errorf("lakehouse: expire snapshots of %s: %w", t.name, err)
		}
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return 0, fmt.Errorf("lakehouse: expire snapshots of %s: %w", t.name, err)
		}
	}
}
