package lakehouse

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

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
	return t.planFiles(ctx, t.cur.Load(), filter)
}

// planFiles is PlanFiles on the table state cur.
func (t *Table) planFiles(ctx context.Context, cur *table.Table, filter iceberg.BooleanExpression) ([]DataFile, error) {
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
	cur := t.cur.Load()
	scan := cur.Scan(table.WithSnapshotID(files[0].SnapshotID))
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	_, recs, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read files of %s: %w", t.name, explainReadError(ctx, cur, paths, err))
	}
	out, err := collect(recs)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read files of %s: %w", t.name, explainReadError(ctx, cur, paths, err))
	}
	return out, nil
}
