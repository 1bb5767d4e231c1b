package lakehouse

import (
	"cmp"
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Snapshot summary properties written by every commit that carries a
// Commit with a query id. The Spark names are those of Iceberg's Spark
// streaming sink, so a table written by Atlas and by Spark keeps one
// exactly-once history.
const (
	// PropQueryID is the streaming query id.
	PropQueryID = "atlas.query.id"
	// PropBatchID is the micro-batch id, in decimal.
	PropBatchID = "atlas.batch.id"
	// PropSparkQueryID is Spark's name for the query id.
	PropSparkQueryID = "spark.sql.streaming.queryId"
	// PropSparkEpochID is Spark's name for the batch (epoch) id.
	PropSparkEpochID = "spark.sql.streaming.epochId"
	// PropWriteID is a random id of one write call: it lets a writer whose
	// commit answer was lost recognise its own snapshot.
	PropWriteID = "atlas.write.id"
	// PropWriteSeq is the position of the write among the writes of one
	// micro-batch (Commit.Write), in decimal; absent means 0.
	PropWriteSeq = "atlas.write.seq"
)

// Commit identifies a write for exactly-once bookkeeping.
type Commit struct {
	// QueryID is the stable id of the streaming query. Empty means a plain
	// write without exactly-once check (an ad hoc INSERT or MERGE).
	QueryID string
	// BatchID is the micro-batch id. Batch ids of one query are committed
	// in increasing order.
	BatchID int64
	// Write is the position of this write among the writes one batch
	// makes (0 for the first), for a foreachBatch callback that writes
	// several times: (BatchID, Write) pairs of one query are committed in
	// increasing order, and each write of a replayed batch is skipped or
	// redone on its own. The callback must issue its writes in the same
	// order on a replay, as a deterministic callback does.
	Write int
	// Extra properties go into the snapshot summary next to the ids; they
	// cannot override the id properties.
	Extra map[string]string
}

// summary returns the snapshot summary properties of the commit.
func (c Commit) summary(writeID string) iceberg.Properties {
	p := iceberg.Properties{}
	for k, v := range c.Extra {
		p[k] = v
	}
	p[PropWriteID] = writeID
	if c.QueryID != "" {
		b := strconv.FormatInt(c.BatchID, 10)
		p[PropQueryID] = c.QueryID
		p[PropBatchID] = b
		p[PropSparkQueryID] = c.QueryID
		p[PropSparkEpochID] = b
		p[PropWriteSeq] = strconv.Itoa(c.Write)
	}
	return p
}

func queryIDOf(p map[string]string) string {
	if q := p[PropQueryID]; q != "" {
		return q
	}
	return p[PropSparkQueryID]
}

func batchIDOf(p map[string]string) (int64, bool) {
	s, ok := p[PropBatchID]
	if !ok {
		s, ok = p[PropSparkEpochID]
	}
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// lastBatch walks the ancestry of the current snapshot, newest first, and
// returns the batch id of the newest snapshot written by queryID. This is
// the check of Iceberg's Spark streaming sink: batches of a query commit in
// order, so the newest one carries the highest id. The walk stops at the
// first match, so it usually reads one snapshot.
func lastBatch(meta table.Metadata, queryID string) (int64, bool) {
	b, _, ok := lastWrite(meta, queryID)
	return b, ok
}

// lastWrite is lastBatch returning the write sequence of that snapshot too.
// Usually the current snapshot answers, through its writers map
// (PropWriters); the walk goes further back only past snapshots of other
// engines or histories written before the map existed.
func lastWrite(meta table.Metadata, queryID string) (batch int64, write int, ok bool) {
	s := meta.CurrentSnapshot()
	for s != nil {
		if s.Summary != nil {
			if w, match := writeOf(s.Summary.Properties, queryID); match {
				if b, ok := batchIDOf(s.Summary.Properties); ok {
					return b, w, true
				}
			}
			if m, found := writersOf(s.Summary.Properties)[queryID]; found {
				return m[0], int(m[1]), true
			}
		}
		if s.ParentSnapshotID == nil {
			return 0, 0, false
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return 0, 0, false
}

// legacyWriteSep is how writes after the first of a batch were keyed before
// Commit.Write: query id "<id>#write<n>". Such snapshots still count as
// write n of the query, so histories written then replay correctly.
const legacyWriteSep = "#write"

// writeOf reports whether a snapshot with summary p was written by
// queryID, and with which write sequence.
func writeOf(p map[string]string, queryID string) (write int, match bool) {
	q := queryIDOf(p)
	if q == queryID {
		n, _ := strconv.Atoi(p[PropWriteSeq]) // absent (Spark, older Atlas): 0
		return n, true
	}
	if rest, ok := strings.CutPrefix(q, queryID+legacyWriteSep); ok {
		if n, err := strconv.Atoi(rest); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// alreadyCommitted reports whether c's write (or a later one of the same
// query) is in the current snapshot's ancestry.
func alreadyCommitted(meta table.Metadata, c Commit) bool {
	if c.QueryID == "" {
		return false
	}
	b, w, ok := lastWrite(meta, c.QueryID)
	return ok && (b > c.BatchID || b == c.BatchID && w >= c.Write)
}

// hasWrite reports whether the snapshot written with writeID is in the
// current snapshot's ancestry. It walks back at most a few snapshots: a
// lost commit answer is detected on the very next refresh.
func hasWrite(meta table.Metadata, writeID string) bool {
	s := meta.CurrentSnapshot()
	for i := 0; s != nil && i < 64; i++ {
		if s.Summary != nil && s.Summary.Properties[PropWriteID] == writeID {
			return true
		}
		if s.ParentSnapshotID == nil {
			return false
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return false
}

// Committed reports whether the write c is in the table's history, reading
// the catalog first (so other writers' commits count): a later batch of
// c.QueryID, or the same batch with a write sequence >= c.Write. A Commit
// without a query id is never committed.
func (t *Table) Committed(ctx context.Context, c Commit) (bool, error) {
	if c.QueryID == "" {
		return false, nil
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	cur, err := t.refreshLocked(ctx)
	if err != nil {
		return false, err
	}
	return alreadyCommitted(cur.Metadata(), c), nil
}

// LastCommittedBatch refreshes the table and returns the id of the newest
// batch of queryID in the current snapshot's ancestry; ok is false when the
// query never committed to this table.
func (t *Table) LastCommittedBatch(ctx context.Context, queryID string) (batchID int64, ok bool, err error) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	cur, err := t.refreshLocked(ctx)
	if err != nil {
		return 0, false, err
	}
	b, ok := lastBatch(cur.Metadata(), queryID)
	return b, ok, nil
}

// Commit retry policy: a conflict (another writer moved the table) is
// retried after a jittered exponential backoff.
const (
	maxCommitAttempts = 25
	minCommitBackoff  = 2 * time.Millisecond
	maxCommitBackoff  = time.Second
)

// stageFunc stages one snapshot on tx, which was opened on cur. It runs
// again, on a fresh table, after every conflict. A stageFunc returns an
// error wrapping ErrConflict when the conflict cannot be resolved by
// replaying (the files it must remove are gone).
type stageFunc func(ctx context.Context, tx *table.Transaction, cur *table.Table, props iceberg.Properties) error

// commit runs the exactly-once commit loop of every write:
//
//  1. if c's batch is already in the ancestry, commit nothing (false);
//  2. open a transaction pinned to the current branch head
//     (AssertRefSnapshotID, so the catalog accepts it only if no one
//     committed in between, and iceberg-go never replays it by itself);
//  3. stage the snapshot and commit;
//  4. on failure, reload the table: if our own snapshot landed anyway (the
//     answer was lost), report success; if the head moved (a concurrent
//     writer, whatever error the catalog chose to report it with) back off
//     and go to 1; otherwise the failure is not a conflict: return it.
//
// written are data files already written for the commit: they are deleted
// when the loop ends without committing them.
func (t *Table) commit(ctx context.Context, op string, c Commit, written []iceberg.DataFile, stage stageFunc) (bool, error) {
	return t.commitTracked(ctx, op, c, &written, stage)
}

// commitTracked is commit for a stage that replaces some of the files it
// commits between attempts (a compaction folding concurrent deletes): the
// files deleted when the loop ends without committing are those *written
// holds then.
func (t *Table) commitTracked(ctx context.Context, op string, c Commit, written *[]iceberg.DataFile, stage stageFunc) (bool, error) {
	writeID := newWriteID()
	props := c.summary(writeID)
	committed := false
	unknown := false // the catalog may hold our commit: keep the files
	defer func() {
		if !committed && !unknown {
			t.removeFiles(*written)
		}
	}()
	start, base := time.Now(), int64(-1)
	for attempt := 1; ; attempt++ {
		cur := t.cur.Load()
		if alreadyCommitted(cur.Metadata(), c) {
			return false, nil
		}
		if attempt == 1 {
			base = snapshotID(cur)
		}
		tx := cur.NewTransaction()
		if err := tx.AssertRefSnapshotID(""); err != nil {
			return false, fmt.Errorf("lakehouse: %s %s: pin branch head: %w", op, t.name, err)
		}
		// The writers map is carried from this attempt's parent snapshot.
		attemptProps, err := withWriters(cur, props, c)
		if err != nil {
			return false, fmt.Errorf("lakehouse: %s %s: %w", op, t.name, err)
		}
		if err := stage(ctx, tx, cur, attemptProps); err != nil {
			return false, fmt.Errorf("lakehouse: %s %s: %w", op, t.name, err)
		}
		next, cerr := tx.Commit(ctx)
		if cerr == nil {
			t.adopt(ctx, next)
			committed = true
			t.committedStream(c)
			return true, nil
		}
		if ctx.Err() != nil {
			unknown = true
			return false, fmt.Errorf("lakehouse: %s %s: commit: %w", op, t.name, cerr)
		}
		fresh, err := t.refreshLocked(ctx)
		if err != nil {
			unknown = true
			return false, fmt.Errorf("lakehouse: %s %s: commit failed (%w), and then: %w", op, t.name, cerr, err)
		}
		if hasWrite(fresh.Metadata(), writeID) {
			committed = true
			t.committedStream(c)
			return true, nil
		}
		moved := fresh.MetadataLocation() != cur.MetadataLocation()
		if !moved && !errors.Is(cerr, table.ErrCommitFailed) {
			return false, fmt.Errorf("lakehouse: %s %s: commit: %w", op, t.name, cerr)
		}
		if attempt >= cmp.Or(t.maxAttempts, maxCommitAttempts) {
			return false, &ContentionError{Table: t.name, Op: op, Attempts: attempt, OtherCommits: commitsSince(fresh, base), Elapsed: time.Since(start), cause: cerr}
		}
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return false, fmt.Errorf("lakehouse: %s %s: %w", op, t.name, err)
		}
		// Start the next attempt from the state after the wait: beside a
		// writer committing more often than the backoff, the state read
		// before it is always stale, and every attempt would lose
		// (apache/iceberg#1286: compaction starved by streaming appends).
		if _, err := t.refreshLocked(ctx); err != nil {
			unknown = true
			return false, fmt.Errorf("lakehouse: %s %s: %w", op, t.name, err)
		}
	}
}

// committedStream tells the automatic maintenance (StartMaintenance) that
// a commit of a stream landed on the table.
func (t *Table) committedStream(c Commit) {
	if c.QueryID != "" {
		t.lh.streamCommitted(t)
	}
}

// reloadEvery is how many commits may chain their metadata (see adopt)
// before the cached table is replaced by the catalog's copy.
const reloadEvery = 8

// adopt caches the state a successful commit left; the caller holds
// writeMu. The table iceberg-go's Transaction.Commit returns (v0.7.0) keeps
// the table it was committed from reachable (its new snapshot's parent and
// schema ids point into the snapshot producer and the transaction, which
// holds the previous table), and that one its own predecessor: a writer
// caching it holds every metadata version it ever committed, each listing
// all the snapshots before it, so memory grows with the square of the
// number of commits (10-row appends: 29 MB more after commits 20 to 120,
// while the metadata file is 127 KB). The catalog's copy, read from the
// metadata file the commit wrote, holds only itself, but loading it costs
// about as much as a quarter of the commit (4 ms at 100 snapshots), so it
// replaces the cached table every reloadEvery commits: at most that many
// metadata versions stay reachable, whatever the length of the stream.
//
// A commit that made a new snapshot first deletes the manifests it wrote
// and did not commit (cleanUncommitted), as Iceberg's SnapshotProducer
// does after each commit.
func (t *Table) adopt(ctx context.Context, next *table.Table) {
	if snap := next.CurrentSnapshot(); snap != nil && snapshotID(t.cur.Load()) != snap.SnapshotID {
		_, _ = cleanUncommitted(ctx, next, snap) // best effort: orphan removal catches the rest
	}
	t.chained++
	if t.chained < reloadEvery {
		t.cur.Store(next)
		return
	}
	fresh, err := t.lh.cat.LoadTable(ctx, t.ident)
	if err != nil || fresh.MetadataLocation() != next.MetadataLocation() {
		// The commit succeeded, so a failed load is no error; and when
		// another writer committed since, keep the state this commit
		// made. Either way the next commit tries again.
		t.cur.Store(next)
		return
	}
	t.cur.Store(fresh)
	t.chained = 0
}

// removeFiles deletes data files that no snapshot references (best effort).
func (t *Table) removeFiles(files []iceberg.DataFile) {
	if len(files) == 0 {
		return
	}
	fs, err := t.cur.Load().FS(context.Background())
	if err != nil {
		return
	}
	for _, f := range files {
		_ = fs.Remove(f.FilePath())
	}
}

// backoff returns the wait before retry attempt n (n >= 1): exponential,
// capped, with full jitter in its upper half.
func backoff(n int) time.Duration {
	d := minCommitBackoff << min(n-1, 16)
	if d > maxCommitBackoff {
		d = maxCommitBackoff
	}
	return d/2 + rand.N(d/2+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func newWriteID() string {
	var b [16]byte
	_, _ = cryptorand.Read(b[:])
	return hex.EncodeToString(b[:])
}
