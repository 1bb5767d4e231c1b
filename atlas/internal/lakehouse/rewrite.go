package lakehouse

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Rewrite is a copy-on-write commit being prepared, Iceberg's OverwriteFiles:
// plan the files from the rewrite's base state (PlanFiles), read them, write
// their new content (Add, as soon as each is computed, from any number of
// goroutines), mark them replaced (Remove), then Commit once: one atomic
// snapshot. Writing each file's new content while others are still being
// read keeps both cores busy and holds only the files in flight in memory.
//
// A Rewrite is used once: after Commit or Abort it accepts nothing more.
// Add, Remove and PlanFiles are safe for concurrent use.
type Rewrite struct {
	pendingWrite
	// guarded by mu:
	remove  []DataFile
	removed map[string]bool
	// bins, when set (by binPack), say which added files were written from
	// which removed ones: Commit then folds the deletes committed
	// concurrently against the removed files into the added ones instead
	// of failing (foldConcurrent). folded counts the bins written again,
	// lockedFolds those of them written while holding the table's commit
	// lock (see prefold).
	bins        []*packedBin
	folded      int
	lockedFolds int
}

// addBin records that outputs were written from sources.
func (r *Rewrite) addBin(sources []DataFile, outputs []iceberg.DataFile) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bins = append(r.bins, &packedBin{sources: sources, outputs: outputs})
}

// NewRewrite starts a rewrite based on the table's cached current state.
// Refresh the table first to base it on other writers' latest commit.
func (t *Table) NewRewrite() (*Rewrite, error) {
	base := t.cur.Load()
	target, err := arrowSchema(base)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: rewrite files of %s: %w", t.name, err)
	}
	return &Rewrite{pendingWrite: pendingWrite{t: t, base: base, target: target, op: "rewrite files of", kind: "rewrite"}, removed: map[string]bool{}}, nil
}

// Remove marks data files (from PlanFiles) as replaced by the rewrite.
func (r *Rewrite) Remove(files ...DataFile) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return r.errFinished()
	}
	for _, f := range files {
		if f.task.File == nil {
			return fmt.Errorf("lakehouse: rewrite files of %s: file %q was not planned by PlanFiles", r.t.name, f.Path)
		}
		if r.removed[f.Path] {
			return fmt.Errorf("lakehouse: rewrite files of %s: file %q is listed twice", r.t.name, f.Path)
		}
		r.removed[f.Path] = true
		r.remove = append(r.remove, f)
	}
	return nil
}

// Empty reports whether the rewrite removes and adds nothing.
func (r *Rewrite) Empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.remove) == 0 && len(r.added) == 0
}

// FilesAdded returns how many data files Add has written.
func (r *Rewrite) FilesAdded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.added)
}

// Commit replaces the removed files with the added ones in ONE atomic
// snapshot (operation overwrite; append when nothing is removed), with the
// summary properties and exactly-once check of AppendBatch: when c's batch
// is already committed it commits nothing, deletes the added files and
// returns false. It never writes delete files: the removed files' rows
// were read with their merge-on-read deletes applied (ReadFiles), and the
// delete files that name only removed data files (file-scoped position
// deletes, deletion vectors) are removed in the same snapshot, so the
// deletes are folded into the new files and never resurrect a row (unlike
// iceberg-go's own copy-on-write over merge-on-read deletes,
// apache/iceberg-go#2042).
//
// Isolation is snapshot isolation on the removed files, plus serializable
// isolation on the filter of ValidateNoConflictingData when it was set:
// when a concurrent writer committed first, the commit is retried on the new
// table state as long as every removed file is still live and (if
// validated) no data file added since the base snapshot could hold a row
// matching the filter, and no delete file added since may delete rows of a
// removed file (a rewrite made by a compaction's bin-pack folds such
// deletes into its new files instead, see foldConcurrent); otherwise
// Commit returns an error wrapping
// ErrConflict, commits nothing and deletes the added files. Whatever the
// outcome, the rewrite is finished.
func (r *Rewrite) Commit(ctx context.Context, c Commit) (committed bool, err error) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return false, r.errFinished()
	}
	r.done = true
	remove, files := r.remove, r.added
	validate, filter := r.validate, r.filter
	r.mu.Unlock()
	baseID := r.BaseSnapshotID()
	baseSeq := snapshotSeq(r.base)

	t := r.t
	if len(r.bins) > 0 {
		r.prefold(ctx, baseID, baseSeq, remove, &files)
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	removeFiles := make([]iceberg.DataFile, len(remove))
	for i, f := range remove {
		removeFiles[i] = f.task.File
	}
	foldDeletes, err := t.foldedDeletes(ctx, remove)
	if err != nil {
		t.removeFiles(files)
		return false, fmt.Errorf("lakehouse: rewrite files of %s: %w", t.name, err)
	}
	written := files
	return t.commitTracked(ctx, "rewrite files of", c, &written, func(ctx context.Context, tx *table.Transaction, cur *table.Table, props iceberg.Properties) error {
		if err := checkLive(ctx, cur, remove); err != nil {
			return err
		}
		foldDeletes := foldDeletes
		if snapshotID(cur) != baseID {
			// The new content was read with the base's deletes applied: a
			// delete committed since would be lost with the file it names,
			// unless it is folded into the new content (bin-packs) or the
			// rewrite fails.
			var err error
			if len(r.bins) > 0 {
				before := r.folded
				foldDeletes, err = r.foldConcurrent(ctx, cur, baseSeq, remove, foldDeletes, &written)
				r.lockedFolds += r.folded - before
			} else {
				err = t.checkNoNewDeletes(ctx, cur, baseSeq, remove)
			}
			if err != nil {
				return err
			}
		}
		files := written
		if validate {
			if err := checkNoConflictingData(ctx, cur, baseID, filter); err != nil {
				return err
			}
		}
		if len(removeFiles) == 0 {
			return stageAppend(ctx, tx, files, props)
		}
		if cur.Metadata().Version() >= 3 {
			// iceberg-go's RewriteFiles: on v3 the added files get their
			// first_row_id by inheritance only with rewrite semantics.
			rw := tx.NewRewrite(props)
			for _, f := range removeFiles {
				rw.DeleteFile(f)
			}
			for _, d := range foldDeletes {
				rw.DeleteFile(d)
			}
			for _, f := range files {
				rw.AddDataFile(f)
			}
			return rw.Commit(ctx)
		}
		if len(foldDeletes) > 0 {
			return tx.ReplaceFiles(ctx, removeFiles, files, foldDeletes, props)
		}
		return tx.ReplaceDataFilesWithDataFiles(ctx, removeFiles, files, props)
	})
}

// RewriteFiles replaces the data files remove (from PlanFiles) with the rows
// add in ONE atomic snapshot: a Rewrite in one call. Every record batch of
// add is written as its own data file (see Rewrite.Add; the batches are
// written a few at a time), unlike AppendBatch which writes all batches
// together. When c's batch is already committed it writes nothing and
// returns false. Conflicts are those of Rewrite.Commit (snapshot isolation
// on the removed files).
func (t *Table) RewriteFiles(ctx context.Context, remove []DataFile, add []arrow.RecordBatch, c Commit) (committed bool, err error) {
	if alreadyCommitted(t.cur.Load().Metadata(), c) {
		return false, nil
	}
	r, err := t.NewRewrite()
	if err != nil {
		return false, err
	}
	if err := r.Remove(remove...); err != nil {
		return false, err
	}
	errs := make([]error, len(add))
	sem := make(chan struct{}, writeParallelism())
	var wg sync.WaitGroup
	for i, rec := range add {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = r.Add(ctx, rec)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.Abort()
		return false, err
	}
	return r.Commit(ctx, c)
}

// appendsOnlySince reports whether every snapshot committed after baseID,
// up to the current one, is an append: then no file live at baseID was
// removed. This keeps a compaction's retries cheap beside a stream that
// appends every few seconds (the starvation of apache/iceberg#1286 comes
// from retries slower than the stream's commits).
func appendsOnlySince(meta table.Metadata, baseID int64) bool {
	for s := meta.CurrentSnapshot(); s != nil; {
		if s.SnapshotID == baseID {
			return true
		}
		if s.Summary == nil || s.Summary.Operation != table.OpAppend || s.ParentSnapshotID == nil {
			return false
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return false
}

// checkLive returns ErrConflict when a file of remove is no longer in cur's
// current snapshot. Files planned from the current snapshot are live by
// construction; otherwise the live files are listed.
func checkLive(ctx context.Context, cur *table.Table, remove []DataFile) error {
	if len(remove) == 0 {
		return nil
	}
	snap := cur.CurrentSnapshot()
	stale := false
	for _, f := range remove {
		if snap == nil || f.SnapshotID != snap.SnapshotID {
			stale = true
			break
		}
	}
	if !stale || appendsOnlySince(cur.Metadata(), remove[0].SnapshotID) {
		return nil
	}
	live, err := liveDataFiles(ctx, cur)
	if err != nil {
		return err
	}
	paths := make(map[string]bool, len(live))
	for _, f := range live {
		paths[f.FilePath()] = true
	}
	for _, f := range remove {
		if !paths[f.Path] {
			return fmt.Errorf("%w (file %s was removed)", ErrConflict, f.Path)
		}
	}
	return nil
}

// foldedDeletes returns the delete files of the data files remove that
// name no other data file: file-scoped position delete files, deletion
// vectors, and partition-scoped position delete files every row of which
// names a removed file. Once those data files are replaced by content read
// with the deletes applied, these delete files are dead and are removed
// with them.
func (t *Table) foldedDeletes(ctx context.Context, remove []DataFile) ([]iceberg.DataFile, error) {
	removed := make(map[string]bool, len(remove))
	for _, f := range remove {
		removed[f.Path] = true
	}
	seen := map[string]bool{}
	gone := &goneFiles{cur: t.cur.Load()}
	var out []iceberg.DataFile
	for _, f := range remove {
		for _, d := range f.deleteFiles() {
			if d.ContentType() != iceberg.EntryContentPosDeletes {
				continue
			}
			key := d.FilePath()
			if ref := d.ReferencedDataFile(); ref != nil {
				if !removed[*ref] {
					continue
				}
				key += "\x00" + *ref
			} else {
				fs, err := t.cur.Load().FS(ctx)
				if err != nil {
					return nil, err
				}
				byPath, err := t.lh.deletes.positions(ctx, fs, d.FilePath())
				if err != nil {
					return nil, fmt.Errorf("read position deletes %s: %w", d.FilePath(), err)
				}
				dead := true
				for p := range byPath {
					if removed[p] {
						continue
					}
					gone, err := gone.of(ctx, p)
					if err != nil {
						return nil, err
					}
					dead = dead && gone
				}
				if !dead {
					continue
				}
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, d)
			}
		}
	}
	return out, nil
}
