package lakehouse

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrConflict is returned (wrapped) by Rewrite.Commit and RewriteFiles when
// a concurrent commit removed one of the files being rewritten, or (with
// Rewrite.ValidateNoConflictingData) added a data file that could hold rows
// the rewrite would have matched: the rows computed from the base snapshot
// are stale. The caller must refresh, plan, read and compute again; nothing
// was committed. Test for it with errors.Is.
var ErrConflict = errors.New("a concurrent commit conflicts with this rewrite (it removed a file being rewritten or added rows the rewrite could match); plan the rewrite again")

// checkNoConflictingData returns ErrConflict when a snapshot committed
// after baseID (noSnapshot: an empty table) and before cur's current snapshot added
// a data file whose partition values and column statistics may hold a row
// matching filter (nil: any row). This is Iceberg Java's
// validateAddedDataFiles of MergingSnapshotProducer, behind
// OverwriteFiles.validateNoConflictingData.
func checkNoConflictingData(ctx context.Context, cur *table.Table, baseID int64, filter iceberg.BooleanExpression) error {
	snap := cur.CurrentSnapshot()
	if snap == nil || snap.SnapshotID == baseID {
		return nil
	}
	var opts []table.ScanOption
	if filter != nil {
		opts = append(opts, table.WithRowFilter(filter))
	}
	if baseID == noSnapshot {
		// Based on an empty table: every live file was added since.
		tasks, err := cur.Scan(append(opts, table.WithSnapshotID(snap.SnapshotID))...).PlanFiles(ctx)
		if err != nil {
			return fmt.Errorf("check concurrently added data files: %w", err)
		}
		if len(tasks) > 0 {
			return fmt.Errorf("%w (file %s was added concurrently)", ErrConflict, tasks[0].File.FilePath())
		}
		return nil
	}
	tasks, err := cur.NewIncrementalChangelogScan(opts...).
		FromSnapshotExclusive(baseID).ToSnapshot(snap.SnapshotID).PlanFiles(ctx)
	if err != nil {
		// The base is no longer an ancestor (rolled back, expired) or the
		// history cannot be read as changes: recompute on the new state.
		return fmt.Errorf("%w (cannot list the data files added since snapshot %d: %v)", ErrConflict, baseID, err)
	}
	for _, task := range tasks {
		if task.Operation() == table.ChangelogOpInsert {
			return fmt.Errorf("%w (file %s was added concurrently)", ErrConflict, task.ScanTask().File.FilePath())
		}
	}
	return nil
}
