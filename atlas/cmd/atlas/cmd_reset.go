package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atlas-lakehouse/atlas/atlas/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/stack"
)

func init() {
	register(command{
		Name:    "reset",
		Summary: "start a lab over: stop the embedded broker and delete its topics, the embedded catalog, the warehouse and every checkpoint (the kernel's tools stay); needs --yes",
		Run:     runReset,
	})
}

// resetDirs are the directories under the Atlas home that hold a lab's
// data: the broker's topics, the sqlite catalog, the local warehouse, the
// checkpoints, the daemon's run and log files. bin/, assets/ and warmup/
// (the kernel's tools) are kept.
var resetDirs = []string{"broker", "catalog", "warehouse", "checkpoints", "run", "logs"}

func runReset(ctx context.Context, args []string) error {
	var f stackFlags
	fs := newFlagSet("reset", "--yes [--home DIR]")
	f.addHome(fs)
	yes := fs.Bool("yes", false, "really delete")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var present []string
	for _, d := range resetDirs {
		p := filepath.Join(f.home, d)
		if _, err := os.Stat(p); err == nil {
			present = append(present, p)
		}
	}
	if !*yes {
		if len(present) == 0 {
			fmt.Printf("nothing to reset under %s\n", f.home)
			return nil
		}
		return fmt.Errorf("reset deletes %v (topics, tables, checkpoints); run `atlas reset --yes` to do it", present)
	}
	if err := stack.Down(ctx, f.home); err != nil {
		return fmt.Errorf("reset: stop the broker first: %w", err)
	}
	for _, p := range present {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
		fmt.Printf("removed %s\n", p)
	}
	if c := lakehouse.ConfigFromEnv(f.home); c.Type != "sql" || os.Getenv(lakehouse.EnvCatalogURI) != "" || os.Getenv(lakehouse.EnvWarehouse) != "" {
		fmt.Printf("note: the configured catalog (%s) is not the embedded one; its tables were not touched\n", c)
	}
	if stack.External(stack.ListenAddr()) {
		fmt.Printf("note: external Kafka at %s is not managed by atlas; its topics were not touched\n", join(stack.Brokers()))
	}
	return nil
}
