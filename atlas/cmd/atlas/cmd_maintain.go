package main

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	register(command{
		Name:    "maintain",
		Summary: "run a table's maintenance now, as the server does after stream commits: compaction, manifest rewrite, snapshot expiry, orphan removal (each turned off by its table property): atlas maintain lakehouse.gold.event_windows",
		Run:     runMaintain,
	})
}

// runMaintain is lakehouse.Table.Maintain, forced, for one table.
func runMaintain(ctx context.Context, args []string) error {
	fs := newFlagSet("maintain", "[--home DIR] <table>")
	var sf stackFlags
	sf.addHome(fs)
	return withTable(ctx, fs, &sf, args, func(tbl *lakehouse.Table) error {
		res, err := tbl.Maintain(ctx, lakehouse.MaintainOptions{Force: true})
		printMaintain(tbl, res)
		if err != nil {
			return err
		}
		h, err := tbl.Health(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("%s now: %s\n", tbl.Name(), healthLine(h))
		return nil
	})
}

// printMaintain reports what a maintenance run did, action by action.
func printMaintain(tbl *lakehouse.Table, r lakehouse.MaintainResult) {
	fmt.Printf("%s: maintenance in %s\n", tbl.Name(), r.Duration.Round(1e6))
	fmt.Printf("  compaction        %d data files (%d with deletes folded) rewritten as %d, %d rows; %d attempts lost to concurrent writers\n",
		r.Compact.FilesRemoved, r.Compact.FilesWithDeletes, r.Compact.FilesAdded, r.Compact.RowsWritten, r.CompactConflicts)
	fmt.Printf("  manifest rewrite  %d data manifests merged into %d\n", r.ManifestsReplaced, r.ManifestsWritten)
	fmt.Printf("  snapshot expiry   %d snapshots expired\n", r.SnapshotsExpired)
	fmt.Printf("  orphan removal    %d files deleted\n", r.OrphansRemoved)
}

// healthLine is a table's health in one line.
func healthLine(h lakehouse.Health) string {
	return fmt.Sprintf("%d snapshots, %d previous metadata files, %d data + %d delete manifests, %d data files, %d delete files, %d rows",
		h.Snapshots, h.MetadataLog, h.DataManifests, h.DeleteManifests, h.DataFiles, h.DeleteFiles, h.Rows)
}
