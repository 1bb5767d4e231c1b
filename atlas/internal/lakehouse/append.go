package lakehouse

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// AppendBatch appends records to the table in one snapshot (operation
// append), exactly once per (c.QueryID, c.BatchID):
//
//   - if the current snapshot's ancestry already holds a snapshot of
//     c.QueryID with a batch id >= c.BatchID, nothing is written and
//     committed is false: the batch is a replay (this is the check of
//     Iceberg's Spark streaming sink);
//   - otherwise the rows are written as Parquet data files (one file per
//     partition, not one per record batch) and committed with the summary
//     properties atlas.query.id, atlas.batch.id, spark.sql.streaming.queryId,
//     spark.sql.streaming.epochId, atlas.write.id and c.Extra.
//
// Zero rows still commit an empty append snapshot carrying the ids, so the
// batch is recorded as committed like any other (a snapshot, not a table
// property, so that one ancestry walk answers "was batch N committed?").
//
// Records are aligned to the table schema by column name (see
// Table.Schema): column order may differ, nullable columns may be written
// to required ones when they hold no nulls, and timestamps of any unit are
// cast to microseconds. A missing, extra or mistyped column is an error
// naming it. The records are not released.
//
// When another writer commits first, the table is reloaded, the batch
// re-checked and the commit retried with backoff (the files already written
// are reused), so concurrent writers never lose or double a batch.
func (t *Table) AppendBatch(ctx context.Context, records []arrow.RecordBatch, c Commit) (committed bool, err error) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if alreadyCommitted(t.cur.Load().Metadata(), c) {
		return false, nil // replay: skip before writing any file
	}
	files, err := t.writeDataFiles(ctx, records)
	if err != nil {
		return false, fmt.Errorf("lakehouse: append to %s: %w", t.name, err)
	}
	return t.commit(ctx, "append to", c, files, func(ctx context.Context, tx *table.Transaction, _ *table.Table, props iceberg.Properties) error {
		return stageAppend(ctx, tx, files, props)
	})
}

// OverwriteBatch replaces all rows of the table with records in one
// snapshot (operation overwrite), with the exactly-once check and conflict
// retry of AppendBatch; on a retry the files to replace are listed again,
// so rows a concurrent writer appended meanwhile are replaced too. This is
// the write of Spark's complete output mode. Zero records leave the table
// empty.
func (t *Table) OverwriteBatch(ctx context.Context, records []arrow.RecordBatch, c Commit) (committed bool, err error) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if alreadyCommitted(t.cur.Load().Metadata(), c) {
		return false, nil
	}
	files, err := t.writeDataFiles(ctx, records)
	if err != nil {
		return false, fmt.Errorf("lakehouse: overwrite %s: %w", t.name, err)
	}
	return t.commit(ctx, "overwrite", c, files, func(ctx context.Context, tx *table.Transaction, cur *table.Table, props iceberg.Properties) error {
		existing, err := liveDataFiles(ctx, cur)
		if err != nil {
			return err
		}
		if len(existing) == 0 {
			return stageAppend(ctx, tx, files, props)
		}
		return tx.ReplaceDataFilesWithDataFiles(ctx, existing, files, props)
	})
}

// stageAppend stages an append of files, or an empty append snapshot when
// there are none.
func stageAppend(ctx context.Context, tx *table.Transaction, files []iceberg.DataFile, props iceberg.Properties) error {
	if len(files) == 0 {
		// AddFiles with no paths commits an empty append snapshot (the
		// Java fast-append-with-no-files equivalent); AddDataFiles with
		// none would commit nothing.
		return tx.AddFiles(ctx, nil, props, true)
	}
	if v, err := tx.StagedTable(); err == nil && v.Metadata().Version() >= 3 {
		// Format v3 requires a first_row_id on files given to
		// AddDataFiles; a RowDelta of data files only is a fast append
		// whose manifest assigns it by inheritance.
		return tx.NewRowDelta(props).AddRows(files...).Commit(ctx)
	}
	// The files have fresh random names: skip the scan of every manifest
	// that the duplicate check would do.
	return tx.AddDataFiles(ctx, files, props, table.WithoutDuplicateCheck())
}

// liveDataFiles lists the data files of cur's current snapshot.
func liveDataFiles(ctx context.Context, cur *table.Table) ([]iceberg.DataFile, error) {
	if cur.CurrentSnapshot() == nil {
		return nil, nil
	}
	tasks, err := cur.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("list data files: %w", err)
	}
	seen := make(map[string]bool, len(tasks))
	out := make([]iceberg.DataFile, 0, len(tasks))
	for _, task := range tasks {
		p := task.File.FilePath()
		if !seen[p] {
			seen[p] = true
			out = append(out, task.File)
		}
	}
	return out, nil
}
