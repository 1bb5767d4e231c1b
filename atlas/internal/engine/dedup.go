package engine

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// DropDuplicates keeps the first row of each distinct combination of the
// named columns (all columns when none are named), as Spark's
// dropDuplicates. On a stream the seen keys are state kept for good,
// unless the watermarked column (WithWatermark before it) is one of the
// keys: then a key leaves the state once the watermark passes its event
// time, and rows at or before the watermark are dropped as late.
// Progress reports the rows dropped as duplicates in the state operator's
// customMetrics numDroppedDuplicateRows.
func (df *DataFrame) DropDuplicates(columns ...string) *DataFrame {
	return df.dedup(columns, false)
}

// DropDuplicatesWithinWatermark keeps the first row of each key on a
// stream with a watermark, as Spark 3.5's dropDuplicatesWithinWatermark:
// a key is remembered until the watermark passes the first occurrence's
// event time plus the watermark delay, so duplicates whose event times
// differ are still dropped while the state stays bounded. Batch
// DataFrames refuse it, as Spark does.
func (df *DataFrame) DropDuplicatesWithinWatermark(columns ...string) *DataFrame {
	return df.dedup(columns, true)
}

func (df *DataFrame) dedup(columns []string, within bool) *DataFrame {
	if df.failed() {
		return df
	}
	n, err := plan.NewDeduplicate(df.node, columns, within)
	if err != nil {
		return df.with(nil, fmt.Errorf("%w", err))
	}
	return df.with(n, nil)
}
