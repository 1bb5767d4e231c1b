package merge

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// sortedInserts concatenates the rows inserted by a merge (and the new
// content of small rewritten files) into one record sorted by the merge key (target key columns, in ON order; nulls last), so
// that the data file they are written to has narrow key statistics and the
// next merge's key filter skips it unless it holds one of its keys. The
// parts are released.
func sortedInserts(c *expr.Ctx, mp *sql.MergePlan, parts []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	rec, err := exec.Concat(c, mp.Target, parts)
	releaseAll(parts)
	if err != nil {
		return nil, fmt.Errorf("merge: inserted rows: %w", err)
	}
	if rec.NumRows() < 2 || len(mp.Keys) == 0 {
		return rec, nil
	}
	defer rec.Release()
	keys := make(compute.SortOptions, len(mp.Keys))
	for i, k := range mp.Keys {
		keys[i] = compute.DefaultSortKey()
		keys[i].ColumnIndex = k.Target
	}
	res, err := compute.CallFunction(c.Context, "sort", keys, compute.NewDatumWithoutOwning(rec))
	if err != nil {
		return nil, fmt.Errorf("merge: sort inserted rows by key: %w", err)
	}
	return res.(*compute.RecordDatum).Value, nil
}
