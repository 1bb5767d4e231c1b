package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	register(command{
		Name:    "checkpoints",
		Summary: "retention of abandoned checkpoints, planned then applied: `checkpoints plan --older-than 7d` writes a plan to review; `checkpoints apply --plan FILE` deletes what it lists (never a running query's)",
		Run:     runCheckpoints,
	})
}

// defaultPlanFile is where `checkpoints plan` writes its plan.
const defaultPlanFile = "checkpoint-retention-plan.json"

func runCheckpoints(ctx context.Context, args []string) error {
	if len(args) == 0 || (args[0] != "plan" && args[0] != "apply") {
		return fmt.Errorf("atlas checkpoints: say plan or apply: `atlas checkpoints plan --older-than 7d`, review the plan, then `atlas checkpoints apply --plan %s`", defaultPlanFile)
	}
	if args[0] == "plan" {
		return runCheckpointsPlan(ctx, args[1:])
	}
	return runCheckpointsApply(ctx, args[1:])
}

// checkpointOptions are the options the CLI's sessions open checkpoints
// with: the catalog's S3 settings.
func checkpointOptions(home string) checkpoint.Options {
	return checkpoint.Options{S3: checkpoint.S3SettingsFromProps(lakehouse.ConfigFromEnv(home).Properties)}
}

func runCheckpointsPlan(ctx context.Context, args []string) error {
	var sf stackFlags
	fs := newFlagSet("checkpoints plan", "--older-than AGE [--root DIR|s3://...] [--out FILE]")
	sf.addHome(fs)
	root := addCheckpointRoot(fs)
	olderThan := fs.String("older-than", "", "age of a checkpoint's newest file beyond which it is abandoned: 7d, 36h, ...")
	out := fs.String("out", defaultPlanFile, "where to write the plan")
	if err := fs.Parse(args); err != nil {
		return err
	}
	age, err := parseAge(*olderThan)
	if err != nil {
		return err
	}
	r := engineBuilder("atlas checkpoints", sf.home).Config(engine.ConfCheckpointRoot, *root).GetOrCreate().CheckpointRoot()
	plan, err := checkpoint.PlanRetention(ctx, r, checkpoint.RetentionPolicy{OlderThan: age}, checkpointOptions(sf.home), time.Now())
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(plan, "", "  ")
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the plan: %w", err)
	}
	fmt.Printf("checkpoints under %s not written for %s and not held by a running query:\n", r, age)
	for _, pc := range plan.Delete {
		fmt.Printf("  delete %s (%d files, newest %s)\n", pc.Location, pc.Files, pc.Newest.UTC().Format(time.RFC3339))
	}
	if len(plan.Delete) == 0 {
		fmt.Println("  none")
	}
	for _, pc := range plan.Keep {
		fmt.Printf("  keep   %s: %s\n", pc.Location, strings.TrimPrefix(pc.Reason, "kept: "))
	}
	fmt.Printf("plan written to %s: review it, then run `atlas checkpoints apply --plan %s`\n", *out, *out)
	return nil
}

func runCheckpointsApply(ctx context.Context, args []string) error {
	var sf stackFlags
	fs := newFlagSet("checkpoints apply", "--plan FILE")
	sf.addHome(fs)
	file := fs.String("plan", "", "the plan `atlas checkpoints plan` wrote, reviewed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("atlas checkpoints apply: --plan FILE is required (make one with `atlas checkpoints plan`)")
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return fmt.Errorf("read the plan: %w", err)
	}
	var plan checkpoint.Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		return fmt.Errorf("plan %s is not a plan: %w", *file, err)
	}
	deleted := 0
	err = checkpoint.ApplyRetention(ctx, plan, checkpointOptions(sf.home),
		func(loc string, files int) {
			deleted++
			fmt.Printf("deleted %s (%d files)\n", loc, files)
		},
		func(loc, reason string) { fmt.Printf("kept %s: %s\n", loc, reason) })
	if err != nil {
		return err
	}
	fmt.Printf("%d of %d planned checkpoints deleted\n", deleted, len(plan.Delete))
	return nil
}

// parseAge reads an age: a Go duration (36h) or days (7d).
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("--older-than %q: give a positive age such as 7d or 36h", s)
}
