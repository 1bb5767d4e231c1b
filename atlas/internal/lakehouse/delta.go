package lakehouse

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// RowDelta is a merge-on-read commit being prepared, Iceberg's RowDelta:
// plan the files from the delta's base state (PlanFiles), locate the rows
// to change (ReadFileRaw, DeletedPositions), mark them deleted by position
// (Delete), write the new rows (Add), then Commit once: one atomic snapshot
// holding the new data files and the delete files, position delete files
// (one per partition, or per data file: PropDeleteGranularity) on format v2, deletion
// vectors on v3. No existing data file is rewritten.
//
// A RowDelta is used once: after Commit or Abort it accepts nothing more.
// Add, Delete and PlanFiles are safe for concurrent use.
type RowDelta struct {
	pendingWrite
	// guarded by mu:
	deletes map[string]*deltaDeletes // data file path → rows to delete
	written int                      // delete files written by Commit
	// groups are the deletes each position delete file holds, by path.
	groups map[string][]*deltaDeletes
}

// deltaDeletes are the positions a RowDelta deletes from one data file.
type deltaDeletes struct {
	file DataFile
	pos  []int64
}

// NewRowDelta starts a row delta based on the table's cached current state.
// Refresh the table first to base it on other writers' latest commit.
func (t *Table) NewRowDelta() (*RowDelta, error) {
	base := t.cur.Load()
	if v := base.Metadata().Version(); v < 2 {
		return nil, fmt.Errorf("lakehouse: merge-on-read into %s: format version %d has no delete files; set %s=%s or upgrade the table to format version 2", t.name, v, PropMergeMode, CopyOnWrite)
	}
	target, err := arrowSchema(base)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: merge-on-read into %s: %w", t.name, err)
	}
	return &RowDelta{pendingWrite: pendingWrite{t: t, base: base, target: target, op: "merge-on-read into", kind: "row delta"}, deletes: map[string]*deltaDeletes{}}, nil
}

// Delete marks rows of the data file f (from PlanFiles) deleted by their
// positions in the file (see ReadFileRaw).
func (r *RowDelta) Delete(f DataFile, positions []int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return r.errFinished()
	}
	if f.task.File == nil {
		return fmt.Errorf("lakehouse: merge-on-read into %s: file %q was not planned by PlanFiles", r.t.name, f.Path)
	}
	if len(positions) == 0 {
		return nil
	}
	for _, p := range positions {
		if p < 0 || p >= f.RecordCount {
			return fmt.Errorf("lakehouse: merge-on-read into %s: position %d is outside file %s (%d rows)", r.t.name, p, f.Path, f.RecordCount)
		}
	}
	d := r.deletes[f.Path]
	if d == nil {
		d = &deltaDeletes{file: f}
		r.deletes[f.Path] = d
	}
	d.pos = append(d.pos, positions...)
	return nil
}

// AddedFile is a data file a RowDelta's Add wrote.
type AddedFile struct {
	// Path is the file's location.
	Path string
	// RecordCount is the number of rows in the file.
	RecordCount int64
}

// AddedFiles lists the data files Add wrote so far, in order.
func (r *RowDelta) AddedFiles() []AddedFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]AddedFile, len(r.added))
	for i, f := range r.added {
		out[i] = AddedFile{Path: f.FilePath(), RecordCount: f.Count()}
	}
	return out
}

// KeepsRowOrder reports whether a record given to Add as one batch and
// written as one data file of as many rows keeps its row order in the
// file: the table is unpartitioned and has no sort order (iceberg-go
// writes the batch as it is).
func (t *Table) KeepsRowOrder() bool {
	cur := t.cur.Load()
	return cur.Spec().IsUnpartitioned() && cur.SortOrder().IsUnsorted()
}

// Empty reports whether the delta deletes and adds nothing.
func (r *RowDelta) Empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.deletes) == 0 && len(r.added) == 0
}

// FilesWithDeletes returns how many data files the delta deletes rows of.
func (r *RowDelta) FilesWithDeletes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.deletes)
}

// DeleteFilesWritten returns how many delete files Commit wrote.
func (r *RowDelta) DeleteFilesWritten() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// Commit writes the delete files and commits them with the added data
// files in ONE snapshot (Iceberg's RowDelta: operation overwrite, delete
// or append), with the summary properties and exactly-once check of
// AppendBatch: when c's write is already committed it commits nothing,
// deletes what it wrote and returns false.
//
// Isolation is serializable for the rows the delta touches, as Iceberg
// Java's RowDelta with validateDataFilesExist, validateNoConflictingDeleteFiles
// and (with ValidateNoConflictingData) validateNoConflictingDataFiles: when
// other writers committed since the base snapshot, Commit fails with
// ErrConflict if a data file it deletes from was removed (compacted,
// rewritten), if they added deletes to one of those files (a concurrent
// MERGE that updated or deleted rows there), or if they added a data file
// that could hold a row matching the filter; otherwise the commit is
// replayed on the new state. Whatever the outcome, the delta is finished.
func (r *RowDelta) Commit(ctx context.Context, c Commit) (committed bool, err error) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return false, r.errFinished()
	}
	r.done = true
	added := r.added
	dels := make([]*deltaDeletes, 0, len(r.deletes))
	for _, k := range slices.Sorted(maps.Keys(r.deletes)) {
		dels = append(dels, r.deletes[k])
	}
	validate, filter := r.validate, r.filter
	r.mu.Unlock()
	t := r.t
	if alreadyCommitted(t.cur.Load().Metadata(), c) {
		t.removeFiles(added)
		return false, nil
	}
	delFiles, superseded, err := r.writeDeletes(ctx, dels)
	if err != nil {
		t.removeFiles(added)
		return false, fmt.Errorf("lakehouse: merge-on-read into %s: write delete files: %w", t.name, err)
	}
	r.mu.Lock()
	r.written = len(delFiles)
	r.mu.Unlock()
	baseID, baseSeq := r.BaseSnapshotID(), snapshotSeq(r.base)
	touched := make([]DataFile, len(dels))
	for i, d := range dels {
		touched[i] = d.file
	}
	written := append(slices.Clone(added), delFiles...)

	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	ok, err := t.commit(ctx, "merge-on-read into", c, written, func(ctx context.Context, tx *table.Transaction, cur *table.Table, props iceberg.Properties) error {
		if err := checkLive(ctx, cur, touched); err != nil {
			return err
		}
		if snapshotID(cur) != baseID {
			if err := t.checkNoNewDeletes(ctx, cur, baseSeq, touched); err != nil {
				return err
			}
			if validate {
				if err := checkNoConflictingData(ctx, cur, baseID, filter); err != nil {
					return err
				}
			}
		}
		rd := tx.NewRowDelta(props)
		rd.AddRows(added...)
		rd.AddDeletes(delFiles...)
		if len(superseded) > 0 {
			rd.RemoveDeletes(superseded...)
		}
		return rd.Commit(ctx)
	})
	if ok && len(delFiles) > 0 && r.base.Metadata().Version() < 3 {
		// The next merge reads these deletes: remember what they hold.
		r.mu.Lock()
		groups := r.groups
		r.mu.Unlock()
		t.lh.deletes.seed(groups)
	}
	return ok, err
}

// snapshotSeq returns the sequence number of t's current snapshot, 0 when
// it has none.
func snapshotSeq(t *table.Table) int64 {
	if s := t.CurrentSnapshot(); s != nil {
		return s.SequenceNumber
	}
	return 0
}
