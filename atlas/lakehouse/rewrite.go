package lakehouse

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrConflict is returned (wrapped) by RewriteFiles when a concurrent commit
// removed one of the files being rewritten: the rows computed from them are
// stale. The caller must plan, read and compute again; nothing was
// committed. Test for it with errors.Is.
var ErrConflict = errors.New("a concurrent commit removed a file being rewritten; plan the rewrite again")

// DataFile is one Parquet data file of a table snapshot, as PlanFiles lists
// it: the unit a copy-on-write rewrite replaces.
type DataFile struct {
	// Path is the file's location.
	Path string
	// RecordCount is the number of rows in the file.
	RecordCount int64
	// SizeBytes is the file size.
	SizeBytes int64
	// SnapshotID is the snapshot the file was planned from.
	SnapshotID int64

	task table.FileScanTask
}

// Iceberg returns the iceberg-go data file.
func (d DataFile) Iceberg() iceberg.DataFile { return d.task.File }

// PlanFiles lists the data files of the cached current snapshot whose
// partition values and column statistics may hold rows matching filter (nil:
// every file). It is the first step of a copy-on-write MERGE: plan, read
// the files (ReadFiles), compute their new content, RewriteFiles.
func (t *Table) PlanFiles(ctx context.Context, filter iceberg.BooleanExpression) ([]DataFile, error) {
	cur := t.cur.Load()
	snap := cur.CurrentSnapshot()
	if snap == nil {
		return nil, nil
	}
	opts := []table.ScanOption{table.WithSnapshotID(snap.SnapshotID)}
	if filter != nil {
		opts = append(opts, table.WithRowFilter(filter))
	}
	tasks, err := cur.Scan(opts...).PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: plan files of %s: %w", t.name, err)
	}
	seen := make(map[string]bool, len(tasks))
	out := make([]DataFile, 0, len(tasks))
	for _, task := range tasks {
		f := task.File
		if seen[f.FilePath()] {
			continue // a large file split into ranges
		}
		seen[f.FilePath()] = true
		// Read the whole file: no split range, no residual filter.
		task.Start, task.Length, task.Residual = 0, f.FileSizeBytes(), nil
		out = append(out, DataFile{
			Path:        f.FilePath(),
			RecordCount: f.Count(),
			SizeBytes:   f.FileSizeBytes(),
			SnapshotID:  snap.SnapshotID,
			task:        task,
		})
	}
	return out, nil
}

// ReadFiles reads every live row of files (from PlanFiles) with the table
// schema, deletes of other writers applied. The caller owns the batches.
func (t *Table) ReadFiles(ctx context.Context, files []DataFile) ([]arrow.RecordBatch, error) {
	if len(files) == 0 {
		return nil, nil
	}
	tasks := make([]table.FileScanTask, len(files))
	for i, f := range files {
		if f.task.File == nil {
			return nil, fmt.Errorf("lakehouse: read files of %s: file %q was not planned by PlanFiles", t.name, f.Path)
		}
		tasks[i] = f.task
	}
	scan := t.cur.Load().Scan(table.WithSnapshotID(files[0].SnapshotID))
	_, recs, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read files of %s: %w", t.name, err)
	}
	out, err := collect(recs)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read files of %s: %w", t.name, err)
	}
	return out, nil
}

// RewriteFiles replaces the data files remove (from PlanFiles) with the rows
// add in ONE atomic snapshot (operation overwrite; append when remove is
// empty): the copy-on-write commit of MERGE, UPDATE and DELETE. It never
// writes delete files. It has AppendBatch's exactly-once check: when c's
// batch is already committed it writes nothing and returns false.
//
// Every record batch of add is written as its own data file (one per
// partition it spans, rolling at the target file size), unlike AppendBatch
// which writes all batches together. Pass the new content of each rewritten
// file as one batch, and inserted rows as another (sorted by key, so that
// its column statistics are narrow): the rewrite then stays proportional to
// the keys touched, as each file keeps the key range of the file it
// replaces. Empty batches write nothing.
//
// Isolation is snapshot isolation on the removed files: when a concurrent
// writer committed first, the commit is retried on the new table state as
// long as every file in remove is still live (the concurrent commit only
// added rows elsewhere); when one of them is gone, RewriteFiles returns an
// error wrapping ErrConflict and commits nothing.
func (t *Table) RewriteFiles(ctx context.Context, remove []DataFile, add []arrow.RecordBatch, c Commit) (committed bool, err error) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if alreadyCommitted(t.cur.Load().Metadata(), c) {
		return false, nil
	}
	seen := make(map[string]bool, len(remove))
	removeFiles := make([]iceberg.DataFile, 0, len(remove))
	for _, f := range remove {
		if f.task.File == nil {
			return false, fmt.Errorf("lakehouse: rewrite files of %s: file %q was not planned by PlanFiles", t.name, f.Path)
		}
		if seen[f.Path] {
			return false, fmt.Errorf("lakehouse: rewrite files of %s: file %q is listed twice", t.name, f.Path)
		}
		seen[f.Path] = true
		removeFiles = append(removeFiles, f.task.File)
	}
	files, err := t.writeEachDataFiles(ctx, add)
	if err != nil {
		return false, fmt.Errorf("lakehouse: rewrite files of %s: %w", t.name, err)
	}
	return t.commit(ctx, "rewrite files of", c, files, func(ctx context.Context, tx *table.Transaction, cur *table.Table, props iceberg.Properties) error {
		if len(removeFiles) == 0 {
			return stageAppend(ctx, tx, files, props)
		}
		if err := checkLive(ctx, cur, remove); err != nil {
			return err
		}
		return tx.ReplaceDataFilesWithDataFiles(ctx, removeFiles, files, props)
	})
}

// checkLive returns ErrConflict when a file of remove is no longer in cur's
// current snapshot. Files planned from the current snapshot are live by
// construction; otherwise the live files are listed.
func checkLive(ctx context.Context, cur *table.Table, remove []DataFile) error {
	snap := cur.CurrentSnapshot()
	stale := false
	for _, f := range remove {
		if snap == nil || f.SnapshotID != snap.SnapshotID {
			stale = true
			break
		}
	}
	if !stale {
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
			return fmt.Errorf("%w (file %s)", ErrConflict, f.Path)
		}
	}
	return nil
}
