package main

import (
	"context"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	register(command{
		Name:    "expire",
		Summary: "expire a table's old snapshots and delete the files only they used (expire_snapshots); exactly-once replays stay recognised: atlas expire lakehouse.gold.event_windows --older-than 24h",
		Run:     runExpire,
	})
}

// runExpire is Iceberg's expire_snapshots for one table.
func runExpire(ctx context.Context, args []string) error {
	fs := newFlagSet("expire", "[--home DIR] [--older-than DURATION] [--retain-last N] <table>")
	var sf stackFlags
	sf.addHome(fs)
	olderThan := fs.Duration("older-than", 5*24*time.Hour, "expire snapshots older than this (Iceberg's default: 5 days)")
	retainLast := fs.Int("retain-last", 1, "keep at least this many newest snapshots")
	return withTable(ctx, fs, &sf, args, func(tbl *lakehouse.Table) error {
		n, err := tbl.ExpireSnapshots(ctx, *olderThan, *retainLast)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %d snapshots expired, %d kept\n", tbl.Name(), n, len(tbl.Snapshots()))
		return nil
	})
}
