package lakehouse

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// compactTiered is Maintain's compaction: it plans the table's files,
// selects them by tieredSelection and bin-packs them, planning again after
// each attempt a concurrent writer made stale (ErrConflict).
func (t *Table) compactTiered(ctx context.Context, minInput int, hook func(string)) (CompactResult, int, error) {
	conflicts := 0
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			if err := t.Refresh(ctx); err != nil {
				return CompactResult{}, conflicts, err
			}
		}
		r, err := t.NewRewrite()
		if err != nil {
			return CompactResult{}, conflicts, err
		}
		files, err := r.PlanFiles(ctx, nil)
		if err != nil {
			r.Abort()
			return CompactResult{}, conflicts, fmt.Errorf("lakehouse: compact %s: %w", t.name, err)
		}
		sel := tieredSelection(files, DefaultCompactRows, minInput)
		if len(sel) == 0 {
			r.Abort()
			return CompactResult{}, conflicts, nil
		}
		var before func()
		if hook != nil {
			before = func() { hook("compact") }
		}
		res, err := t.binPack(ctx, r, sel, DefaultCompactRows, before)
		if err == nil {
			return res, conflicts, nil
		}
		if !errors.Is(err, ErrConflict) || attempt >= maxCompactAttempts || ctx.Err() != nil {
			return CompactResult{}, conflicts, fmt.Errorf("lakehouse: compact %s: %w", t.name, err)
		}
		conflicts++
	}
}

// tieredSelection picks the files a maintenance compaction rewrites: every
// file with merge-on-read deletes (to fold them), and the files under
// targetRows rows of each size tier (row counts within a factor of 4) that
// holds minInput files or more. Tiers ascend, so bins fill with files of
// similar size.
func tieredSelection(files []DataFile, targetRows int64, minInput int) []DataFile {
	tiers := map[int][]DataFile{}
	var out []DataFile
	for _, f := range files {
		switch {
		case f.DeleteFiles() > 0:
			out = append(out, f)
		case f.RecordCount < targetRows:
			tier := bits.Len64(uint64(f.RecordCount)) / 2
			tiers[tier] = append(tiers[tier], f)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(tiers)) {
		if len(tiers[k]) >= minInput {
			out = append(out, tiers[k]...)
		}
	}
	return out
}

// rewriteManifests merges the current snapshot's data manifests into few
// (iceberg-go's RewriteManifests, to commit.manifest.target-size-bytes)
// when there are minCount or more, in one snapshot of operation replace.
// It retries on a fresh table when a concurrent writer committed first.
func (t *Table) rewriteManifests(ctx context.Context, minCount int, hook func(string)) (replaced, written int, err error) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	for attempt := 1; ; attempt++ {
		cur, err := t.refreshLocked(ctx)
		if err != nil {
			return 0, 0, err
		}
		n, err := dataManifests(ctx, cur)
		if err != nil || n < max(2, minCount) {
			return 0, 0, err
		}
		tx := cur.NewTransaction()
		if err := tx.AssertRefSnapshotID(""); err != nil {
			return 0, 0, fmt.Errorf("lakehouse: rewrite manifests of %s: pin branch head: %w", t.name, err)
		}
		res, err := tx.RewriteManifests(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("lakehouse: rewrite manifests of %s: %w", t.name, err)
		}
		if res.IsNoOp() {
			return 0, 0, nil
		}
		if hook != nil {
			hook("rewrite-manifests")
		}
		next, cerr := tx.Commit(ctx)
		if cerr == nil {
			t.adopt(ctx, next)
			return len(res.RewrittenManifests), len(res.AddedManifests), nil
		}
		if ctx.Err() != nil || attempt >= maxExpireAttempts {
			return 0, 0, fmt.Errorf("lakehouse: rewrite manifests of %s: %w", t.name, cerr)
		}
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return 0, 0, fmt.Errorf("lakehouse: rewrite manifests of %s: %w", t.name, err)
		}
	}
}

// dataManifests counts the data manifests of cur's current snapshot.
func dataManifests(ctx context.Context, cur *table.Table) (int, error) {
	snap := cur.CurrentSnapshot()
	if snap == nil {
		return 0, nil
	}
	fs, err := cur.FS(ctx)
	if err != nil {
		return 0, fmt.Errorf("open the table's files: %w", err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return 0, fmt.Errorf("read the manifest list: %w", err)
	}
	n := 0
	for _, m := range mans {
		if m.ManifestContent() == iceberg.ManifestContentData {
			n++
		}
	}
	return n, nil
}

// expireBounded is Maintain's expiry (see Maintain): it commits the expiry
// and, when the run changed something, PropLastMaintenance in one
// transaction, retried on a fresh table after a concurrent commit. Unless
// forced, the snapshot bound waits for a fifth more snapshots than it
// allows, so that expiry commits once per many stream commits.
func (t *Table) expireBounded(ctx context.Context, maxSnapshots int, force bool, res *MaintainResult, start time.Time, hook func(string)) (int, error) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	for attempt := 1; ; attempt++ {
		cur, err := t.refreshLocked(ctx)
		if err != nil {
			return 0, err
		}
		meta := cur.Metadata()
		keep, olderThan, due := expiryPlan(meta, maxSnapshots, force, time.Now())
		if !due && !res.Changed() {
			return 0, nil
		}
		tx := cur.NewTransaction()
		if due {
			if err := tx.ExpireSnapshots(table.WithRetainLast(keep), table.WithOlderThan(olderThan)); err != nil {
				return 0, fmt.Errorf("lakehouse: expire snapshots of %s: %w", t.name, err)
			}
		}
		expired := 0
		if staged, err := tx.StagedTable(); err == nil {
			expired = len(meta.Snapshots()) - len(staged.Metadata().Snapshots())
		}
		rec := *res
		rec.SnapshotsExpired = expired
		rec.Duration = time.Since(start)
		if !rec.Changed() {
			return 0, nil
		}
		if err := tx.SetProperties(iceberg.Properties{PropLastMaintenance: lastMaintenanceValue(time.Now(), rec)}); err != nil {
			return 0, fmt.Errorf("lakehouse: record maintenance of %s: %w", t.name, err)
		}
		if hook != nil && expired > 0 {
			hook("expire")
		}
		next, cerr := tx.Commit(ctx)
		if cerr == nil {
			t.adopt(ctx, next)
			return expired, nil
		}
		if ctx.Err() != nil || attempt >= maxExpireAttempts {
			return 0, fmt.Errorf("lakehouse: expire snapshots of %s: %w", t.name, cerr)
		}
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return 0, fmt.Errorf("lakehouse: expire snapshots of %s: %w", t.name, err)
		}
	}
}

// expiryPlan computes the expiry of meta's main branch: keep is the number
// of ancestors of the current snapshot to retain, olderThan the age beyond
// which the others go (iceberg-go's WithRetainLast and WithOlderThan), due
// whether anything would be expired. Iceberg's rule (1.x, ExpireSnapshots
// with no arguments) keeps history.expire.min-snapshots-to-keep ancestors
// and every ancestor younger than history.expire.max-snapshot-age-ms;
// maxSnapshots (> 0) caps that count; and the ancestors up to the newest
// one carrying the streams' exactly-once marks are always kept.
func expiryPlan(meta table.Metadata, maxSnapshots int, force bool, now time.Time) (keep int, olderThan time.Duration, due bool) {
	p := meta.Properties()
	minKeep := max(1, p.GetInt(table.MinSnapshotsToKeepKey, table.MinSnapshotsToKeepDefault))
	maxAge := time.Duration(p.GetInt(table.MaxSnapshotAgeMsKey, int(table.MaxSnapshotAgeMsDefault))) * time.Millisecond
	ancestors := ancestry(meta)
	young := 0 // ancestors before the first older than maxAge
	for _, s := range ancestors {
		if now.Sub(time.UnixMilli(s.TimestampMs)) > maxAge {
			break
		}
		young++
	}
	floor := max(minKeep, exactlyOnceDepth(ancestors)+1)
	keep, olderThan = max(floor, young), maxAge
	if maxSnapshots > 0 && keep > maxSnapshots {
		keep, olderThan = max(floor, maxSnapshots), 0
	}
	slack := 0
	if !force && olderThan == 0 {
		slack = keep / 5
	}
	return keep, olderThan, len(meta.Snapshots()) > keep+slack
}

// ancestry returns the current snapshot and its ancestors, newest first.
func ancestry(meta table.Metadata) []table.Snapshot {
	var out []table.Snapshot
	s := meta.CurrentSnapshot()
	for s != nil {
		out = append(out, *s)
		if s.ParentSnapshotID == nil {
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return out
}

// exactlyOnceDepth returns the index, in ancestors (newest first), of the
// newest snapshot carrying PropWriters, which holds the last (batch,
// write) of every stream: expiry must keep it. Without one (a history
// written before the map existed) it is the index of the oldest snapshot
// carrying a query id, so that every query's last batch stays findable;
// -1 when no stream ever wrote the table.
func exactlyOnceDepth(ancestors []table.Snapshot) int {
	depth := -1
	for i, s := range ancestors {
		if s.Summary == nil {
			continue
		}
		if _, ok := s.Summary.Properties[PropWriters]; ok {
			return i
		}
		if queryIDOf(s.Summary.Properties) != "" {
			depth = i
		}
	}
	return depth
}
