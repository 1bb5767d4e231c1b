package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "reset",
		Summary: "start a lab over: stop the embedded broker and delete what the embedded stack owns (its topics, sqlite catalog, local warehouse, checkpoints; the kernel's tools stay), listing each path; refuses when another catalog or a remote warehouse is configured; needs --yes",
		Run:     runReset,
	})
}

// runReset deletes what stack.PlanReset says the embedded stack owns, and
// refuses, deleting nothing, when the plan does.
func runReset(ctx context.Context, args []string) error {
	var f stackFlags
	fs := newFlagSet("reset", "--yes [--home DIR]")
	f.addHome(fs)
	yes := fs.Bool("yes", false, "really delete")
	if err := fs.Parse(args); err != nil {
		return err
	}
	plan, err := stack.PlanReset(ctx, f.home, lakehouse.ConfigFromEnv(f.home))
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	if plan.Refusal != "" {
		return fmt.Errorf("reset refused: %s", plan.Refusal)
	}
	if !*yes {
		if len(plan.Delete) == 0 {
			fmt.Printf("nothing to reset under %s\n", plan.Home)
			return nil
		}
		return fmt.Errorf("reset deletes %v (topics, tables, checkpoints); run `atlas reset --yes` to do it", plan.Delete)
	}
	if err := stack.Down(ctx, f.home); err != nil {
		return fmt.Errorf("reset: stop the broker first: %w", err)
	}
	var errs []error
	for _, p := range plan.Delete {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("reset: %w", err))
			continue
		}
		fmt.Printf("removed %s\n", p)
	}
	if len(plan.Delete) == 0 {
		fmt.Printf("nothing to reset under %s\n", plan.Home)
	}
	if stack.External(stack.ListenAddr()) {
		fmt.Printf("note: external Kafka at %s is not managed by atlas; its topics were not touched\n", join(stack.Brokers()))
	}
	return errors.Join(errs...)
}
