package main

import (
	"context"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	register(command{
		Name:    "orphans",
		Summary: "delete the files of a table no snapshot references (remove_orphan_files), such as those a crashed write or expire left; files younger than --older-than stay: atlas orphans lakehouse.gold.event_windows --older-than 24h --dry-run",
		Run:     runOrphans,
	})
}

// runOrphans is Iceberg's remove_orphan_files for one table.
func runOrphans(ctx context.Context, args []string) error {
	fs := newFlagSet("orphans", "[--home DIR] [--older-than DURATION] [--dry-run] <table>")
	var sf stackFlags
	sf.addHome(fs)
	olderThan := fs.Duration("older-than", 72*time.Hour, "only files last modified longer ago than this (Iceberg's default: 3 days); keep it behind the longest write")
	dryRun := fs.Bool("dry-run", false, "list the orphan files, delete nothing")
	return withTable(ctx, fs, &sf, args, func(tbl *lakehouse.Table) error {
		if *olderThan <= 0 {
			return fmt.Errorf("--older-than must be positive (got %s): a file being written now must not count as an orphan", *olderThan)
		}
		res, err := tbl.RemoveOrphanFiles(ctx, time.Now().Add(-*olderThan), *dryRun)
		if err != nil {
			return err
		}
		for _, l := range res.Locations {
			fmt.Println(l)
		}
		verb := "deleted"
		if res.DryRun {
			verb = "would be deleted (dry run)"
		}
		fmt.Printf("%s: %d orphan files older than %s, %d bytes, %s\n", tbl.Name(), len(res.Locations), *olderThan, res.Bytes, verb)
		return nil
	})
}
