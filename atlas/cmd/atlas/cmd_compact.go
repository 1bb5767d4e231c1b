package main

import (
	"context"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	register(command{
		Name:    "compact",
		Summary: "bin-pack a table's small data files (one per micro-batch of a stream) into large ones, in one snapshot: atlas compact lakehouse.gold.event_windows",
		Run:     runCompact,
	})
}

// runCompact is Iceberg's rewrite_data_files (bin-pack) for one table.
func runCompact(ctx context.Context, args []string) error {
	fs := newFlagSet("compact", "[--home DIR] [--target-rows N] <table>")
	var sf stackFlags
	sf.addHome(fs)
	target := fs.Int64("target-rows", lakehouse.DefaultCompactRows, "rows per written file; files with fewer rows are compacted")
	return withTable(ctx, fs, &sf, args, func(tbl *lakehouse.Table) error {
		start := time.Now()
		res, err := tbl.Compact(ctx, *target)
		if err != nil {
			return err
		}
		if res.FilesRemoved == 0 {
			fmt.Printf("%s: nothing to compact (fewer than two files under %d rows)\n", tbl.Name(), *target)
			return nil
		}
		fmt.Printf("%s: %d files (%d rows) rewritten as %d (%d live rows) in %s\n", tbl.Name(), res.FilesRemoved, res.Rows, res.FilesAdded, res.RowsWritten, time.Since(start).Round(time.Millisecond))
		return nil
	})
}
