package lakehouse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaintainOptions choose what Table.Maintain does.
type MaintainOptions struct {
	// Force runs every action whatever its threshold, as `atlas maintain`
	// does: expiry down to the snapshot bound, a manifest rewrite of two or
	// more data manifests, a compaction of two or more small files of a
	// size tier, orphan removal. It ignores PropMaintenanceEnabled (the
	// switch of the automatic runs) but honours each action's own switch.
	Force bool
	// Compact and Orphans ask for those actions in a run that is not
	// forced (the server's schedule); expiry and the manifest check run on
	// every run.
	Compact, Orphans bool
	// hook, when set, is called just before each action commits, with the
	// action's name (the crash tests kill the process there).
	hook func(step string)
}

// MaintainResult says what one maintenance run did.
type MaintainResult struct {
	// SnapshotsExpired counts the snapshots removed from the metadata.
	SnapshotsExpired int
	// ManifestsReplaced and ManifestsWritten count the data manifests a
	// manifest rewrite merged and the ones it wrote.
	ManifestsReplaced, ManifestsWritten int
	// Compact is what the compaction rewrote.
	Compact CompactResult
	// CompactConflicts counts compaction attempts lost to a concurrent
	// writer (they commit nothing and are planned again).
	CompactConflicts int
	// OrphansRemoved counts the orphan files deleted.
	OrphansRemoved int
	// Duration is the run's wall time.
	Duration time.Duration
}

// Changed reports whether the run changed the table.
func (r MaintainResult) Changed() bool {
	return r.SnapshotsExpired > 0 || r.ManifestsReplaced > 0 || r.Compact.FilesRemoved > 0 || r.OrphansRemoved > 0
}

// String describes the run as space-separated key=value pairs, the value
// of PropLastMaintenance.
func (r MaintainResult) String() string {
	return fmt.Sprintf("expired=%d manifests=%d->%d compacted=%d->%d folded=%d conflicts=%d orphans=%d ms=%d",
		r.SnapshotsExpired, r.ManifestsReplaced, r.ManifestsWritten, r.Compact.FilesRemoved, r.Compact.FilesAdded,
		r.Compact.FilesWithDeletes, r.CompactConflicts, r.OrphansRemoved, r.Duration.Milliseconds())
}

// maxCompactAttempts bounds the compaction attempts of one run lost to
// concurrent writers.
const maxCompactAttempts = 4

// Maintain keeps the table bounded, with Iceberg's table properties and
// Atlas's (PropMaintenanceEnabled and the others) read afresh from the
// table, in this order:
//
//  1. compaction (when forced or asked for): small data files of one size
//     tier (row counts within a factor of 4) are bin-packed once there are
//     PropCompactMinInputFiles of them, and every file with merge-on-read
//     deletes is rewritten with them applied, the deletes folded (Iceberg's
//     rewrite_data_files, bin-pack strategy). Tiers keep the rewrite
//     amplification logarithmic: a stream's small files make a medium one,
//     five medium ones a larger one, and so on;
//  2. manifest rewrite, when commit.manifest-merge.enabled and the current
//     snapshot has commit.manifest.min-count-to-merge data manifests or more
//     (Iceberg's rewrite_manifests; iceberg-go's merge append does the same
//     inside appends, not inside the row deltas of merge-on-read MERGE);
//  3. snapshot expiry by history.expire.max-snapshot-age-ms and
//     history.expire.min-snapshots-to-keep (Iceberg 1.x semantics, applied
//     by iceberg-go's ExpireSnapshots), bounded further by
//     PropMaxSnapshots; never past the newest snapshot that carries the
//     exactly-once marks of the streams (PropWriters), so a replayed batch
//     is always recognised. Not when gc.enabled is false. The same commit
//     records PropLastMaintenance when the run changed something;
//  4. orphan removal (when forced or asked for), of files older than
//     PropOrphansOlderThanMs: what a writer or a maintenance killed
//     mid-way left behind.
//
// Every action commits with optimistic concurrency on its own: a stream
// committing meanwhile is never blocked (its commit retries on the new
// state as after any other writer), and an action that loses the race is
// planned again. Old metadata files are deleted by every commit itself
// (write.metadata.delete-after-commit.enabled, see DefaultTableProperties).
func (t *Table) Maintain(ctx context.Context, o MaintainOptions) (MaintainResult, error) {
	start := time.Now()
	var res MaintainResult
	if err := t.Refresh(ctx); err != nil {
		return res, err
	}
	mp := readMaintenanceProps(t.Properties())
	if !o.Force && !mp.enabled {
		return res, nil
	}
	var errs []error
	if mp.compact && (o.Force || o.Compact) {
		minInput := mp.minInputFiles
		if o.Force {
			minInput = 2
		}
		cr, conflicts, err := t.compactTiered(ctx, minInput, o.hook)
		res.Compact, res.CompactConflicts = cr, conflicts
		if err != nil {
			errs = append(errs, err)
		}
	}
	if mp.manifestMerge {
		minCount := mp.minManifests
		if o.Force {
			minCount = 2
		}
		replaced, written, err := t.rewriteManifests(ctx, minCount, o.hook)
		res.ManifestsReplaced, res.ManifestsWritten = replaced, written
		if err != nil {
			errs = append(errs, err)
		}
	}
	if mp.expire && mp.gc {
		n, err := t.expireBounded(ctx, mp.maxSnapshots, o.Force, &res, start, o.hook)
		res.SnapshotsExpired = n
		if err != nil {
			errs = append(errs, err)
		}
	}
	if mp.orphans && mp.gc && (o.Force || o.Orphans) {
		or, err := t.RemoveOrphanFiles(ctx, time.Now().Add(-mp.orphanAge), false)
		res.OrphansRemoved = len(or.Locations)
		if err != nil {
			errs = append(errs, err)
		}
	}
	res.Duration = time.Since(start)
	return res, errors.Join(errs...)
}

// LastMaintenance returns the PropLastMaintenance record of the cached
// table: when the last maintenance run that changed something ran, and
// what it did; ok is false when none ever did.
func (t *Table) LastMaintenance() (at time.Time, what string, ok bool) {
	return parseLastMaintenance(t.Properties()[PropLastMaintenance])
}

// lastMaintenanceValue is the PropLastMaintenance value of a run.
func lastMaintenanceValue(at time.Time, res MaintainResult) string {
	return "at=" + at.UTC().Format(time.RFC3339) + " " + res.String()
}

func parseLastMaintenance(v string) (time.Time, string, bool) {
	at, rest, ok := strings.Cut(v, " ")
	if !ok {
		return time.Time{}, "", false
	}
	ts, err := time.Parse(time.RFC3339, strings.TrimPrefix(at, "at="))
	if err != nil {
		return time.Time{}, "", false
	}
	return ts, rest, true
}
