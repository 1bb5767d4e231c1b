package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/ckpath"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	register(command{
		Name:    "checkpoints",
		Summary: "checkpoints under the checkpoint policy: `list` their lease states, `register` an identity, `retire` after review, then retention in three reviewed steps, `plan`, `prepare`, `apply` (only retired, quarantined exact leaves; never an active or uncertain one)",
		Run:     runCheckpoints,
	})
}

// checkpointsUsage is what `atlas checkpoints` without a subcommand says.
const checkpointsUsage = `usage: atlas checkpoints list|register|retire|plan|prepare|apply [flags]

  list      [--checkpoint-root ROOT]                         every checkpoint with its lease state
  register  LOCATION|NAME --id ID --owner OWNER --classification CLASS [--replace]
  retire    LOCATION|NAME --reviewed-by WHO --recovery-approved-by WHO [--reason TEXT]
  plan      [--older-than 30d] [--checkpoint-root ROOT] [--out FILE]   lists what the policy lets go; deletes nothing
  prepare   --plan FILE [--out FILE]                         re-checks and stages the planned leaves (compare-and-swap)
  apply     --prepared FILE                                  deletes exactly what prepare staged, if unchanged

A NAME is a query name under the checkpoint root. Plans expire after %s,
preparations after %s; ages below %s are refused. Nothing deletes
checkpoints automatically or on a schedule. See atlas/internal/checkpoint/README.md.`

// Default files of the retention steps.
const (
	defaultPlanFile     = "checkpoint-retention-plan.json"
	defaultPreparedFile = "checkpoint-retention-prepared.json"
)

func runCheckpoints(ctx context.Context, args []string) error {
	subs := map[string]func(context.Context, []string) error{
		"list": runCheckpointsList, "register": runCheckpointsRegister, "retire": runCheckpointsRetire,
		"plan": runCheckpointsPlan, "prepare": runCheckpointsPrepare, "apply": runCheckpointsApply,
	}
	if len(args) == 0 || subs[args[0]] == nil {
		return fmt.Errorf(checkpointsUsage, checkpoint.PlanTTL, checkpoint.PrepareTTL, "30d")
	}
	return subs[args[0]](ctx, args[1:])
}

// checkpointFlags are the flags every checkpoints subcommand takes.
type checkpointFlags struct {
	stackFlags
	root *string
}

func (f *checkpointFlags) add(fs *flag.FlagSet) {
	f.addHome(fs)
	f.root = addCheckpointRoot(fs)
}

// rootDir is the checkpoint root: --checkpoint-root, else the one the
// engine uses ($ATLAS_CHECKPOINT_ROOT, else $ATLAS_HOME/checkpoints).
func (f *checkpointFlags) rootDir() string {
	return engineBuilder("atlas checkpoints", f.home).Config(engine.ConfCheckpointRoot, *f.root).GetOrCreate().CheckpointRoot()
}

// location reads a LOCATION|NAME argument: a path or URL as given, a bare
// name under the root.
func (f *checkpointFlags) location(arg string) string {
	if ckpath.IsURL(arg) || strings.ContainsAny(arg, `/\`) || strings.HasPrefix(arg, "file://") {
		return arg
	}
	return ckpath.QueryDir(f.rootDir(), arg)
}

// inspectOptions are the options the CLI inspects checkpoints with: the
// catalog's S3 settings and the resume records of the home's server.
func (f *checkpointFlags) inspectOptions() checkpoint.InspectOptions {
	return checkpoint.InspectOptions{
		Options:       checkpoint.Options{S3: checkpoint.S3SettingsFromProps(lakehouse.ConfigFromEnv(f.home).Properties)},
		ResumeRecords: func() (map[string]string, error) { return server.RecordedCheckpoints(f.home) },
	}
}

// parseCheckpointArgs parses a subcommand's flags, allowing one leading
// positional argument (LOCATION|NAME) before them.
func parseCheckpointArgs(fs *flag.FlagSet, args []string) (string, error) {
	var pos string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		pos, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if pos == "" && fs.NArg() > 0 {
		pos = fs.Arg(0)
	}
	return pos, nil
}

func runCheckpointsList(ctx context.Context, args []string) error {
	var cf checkpointFlags
	fs := newFlagSet("checkpoints", "list [--checkpoint-root DIR|s3://...] [--json]")
	cf.add(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root := cf.rootDir()
	infos, err := checkpoint.Survey(ctx, root, cf.inspectOptions())
	if err != nil {
		return err
	}
	if *asJSON {
		data, _ := json.MarshalIndent(infos, "", "  ")
		fmt.Println(string(data))
		return nil
	}
	fmt.Printf("checkpoints under %s:\n", lakehouse.Redact(root))
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tID\tOWNER\tCLASSIFICATION\tLOCATION\tWHY")
	for _, in := range infos {
		id, owner, class := "-", "-", "-"
		if in.Identity != nil {
			id, owner, class = in.Identity.ID, in.Identity.Owner, in.Identity.Classification
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", in.State, id, owner, class, lakehouse.Redact(in.Location), in.Reason)
	}
	if len(infos) == 0 {
		fmt.Fprintln(tw, "none\t\t\t\t\t")
	}
	return tw.Flush()
}

func runCheckpointsRegister(ctx context.Context, args []string) error {
	var cf checkpointFlags
	fs := newFlagSet("checkpoints", "register LOCATION|NAME --id ID --owner OWNER --classification CLASS [--replace]")
	cf.add(fs)
	var id checkpoint.Identity
	fs.StringVar(&id.ID, "id", "", "checkpoint id, such as streaming-event-windows-v1")
	fs.StringVar(&id.Owner, "owner", "", "owning team, such as \"Streaming Data Engineering\"")
	fs.StringVar(&id.Classification, "classification", "", "classification, such as \"durable stream\"")
	replace := fs.Bool("replace", false, "replace a different recorded identity")
	pos, err := parseCheckpointArgs(fs, args)
	if err != nil {
		return err
	}
	if pos == "" {
		return fmt.Errorf("atlas checkpoints register: name the checkpoint: a location, or a query name under the checkpoint root")
	}
	loc := cf.location(pos)
	if err := checkpoint.Register(ctx, loc, id, *replace, cf.inspectOptions().Options); err != nil {
		return err
	}
	fmt.Printf("checkpoint %s registered as %s (owner %s, %s)\n", lakehouse.Redact(loc), id.ID, id.Owner, id.Classification)
	return nil
}

func runCheckpointsRetire(ctx context.Context, args []string) error {
	var cf checkpointFlags
	fs := newFlagSet("checkpoints", "retire LOCATION|NAME --reviewed-by WHO --recovery-approved-by WHO [--reason TEXT]")
	cf.add(fs)
	var r checkpoint.Retirement
	fs.StringVar(&r.ReviewedBy, "reviewed-by", "", "who reviewed the retirement")
	fs.StringVar(&r.RecoveryApprovedBy, "recovery-approved-by", "", "who approved how the query's output recovers without this checkpoint")
	fs.StringVar(&r.Reason, "reason", "", "why it is retired")
	pos, err := parseCheckpointArgs(fs, args)
	if err != nil {
		return err
	}
	if pos == "" {
		return fmt.Errorf("atlas checkpoints retire: name the checkpoint: a location, or a query name under the checkpoint root")
	}
	loc := cf.location(pos)
	if err := checkpoint.Retire(ctx, loc, r, cf.inspectOptions().Options); err != nil {
		return err
	}
	fmt.Printf("checkpoint %s retired: no query may use it again; a plan may list it after the %s quarantine\n", lakehouse.Redact(loc), "30-day")
	return nil
}

func runCheckpointsPlan(ctx context.Context, args []string) error {
	var cf checkpointFlags
	fs := newFlagSet("checkpoints", "plan [--older-than 30d] [--checkpoint-root DIR|s3://...] [--out FILE]")
	cf.add(fs)
	olderThan := fs.String("older-than", "30d", "age of a checkpoint's newest file it must exceed: 30d or more (the policy's floor)")
	out := fs.String("out", defaultPlanFile, "where to write the plan")
	if err := fs.Parse(args); err != nil {
		return err
	}
	age, err := parseAge(*olderThan)
	if err != nil {
		return err
	}
	root := cf.rootDir()
	plan, err := checkpoint.PlanRetention(ctx, root, checkpoint.RetentionPolicy{OlderThan: age}, cf.inspectOptions(), time.Now())
	if err != nil {
		return err
	}
	if err := writeJSON(*out, plan); err != nil {
		return err
	}
	fmt.Printf("checkpoints under %s that are retired, quarantined for 30 days, exact leaves and unwritten for %s:\n", lakehouse.Redact(root), age)
	for _, pc := range plan.Delete {
		fmt.Printf("  delete %s (%s, %d files, newest %s)\n", lakehouse.Redact(pc.Location), pc.ID, pc.Files, pc.Newest.UTC().Format(time.RFC3339))
	}
	if len(plan.Delete) == 0 {
		fmt.Println("  none")
	}
	for _, pc := range plan.Keep {
		fmt.Printf("  keep   %s: %s\n", lakehouse.Redact(pc.Location), strings.TrimPrefix(pc.Reason, "kept: "))
	}
	fmt.Printf("plan written to %s (valid until %s): review it, then run `atlas checkpoints prepare --plan %s`\n", *out, plan.ExpiresAt.Format(time.RFC3339), *out)
	return nil
}

func runCheckpointsPrepare(ctx context.Context, args []string) error {
	var cf checkpointFlags
	fs := newFlagSet("checkpoints", "prepare --plan FILE [--out FILE]")
	cf.addHome(fs)
	file := fs.String("plan", "", "the plan `atlas checkpoints plan` wrote, reviewed")
	out := fs.String("out", defaultPreparedFile, "where to write the preparation")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("atlas checkpoints prepare: --plan FILE is required (make one with `atlas checkpoints plan`)")
	}
	var plan checkpoint.Plan
	if err := readJSON(*file, &plan); err != nil {
		return err
	}
	prep, err := checkpoint.Prepare(ctx, plan, cf.inspectOptions(), time.Now(), func(loc, why string) {
		fmt.Printf("skipped %s: %s\n", lakehouse.Redact(loc), why)
	})
	if err != nil {
		return err
	}
	if err := writeJSON(*out, prep); err != nil {
		return err
	}
	for _, l := range prep.Leaves {
		fmt.Printf("staged %s (%s, %d files)\n", lakehouse.Redact(l.Location), l.ID, l.Files)
	}
	fmt.Printf("%d of %d planned checkpoints staged; preparation written to %s (valid until %s): run `atlas checkpoints apply --prepared %s`\n",
		len(prep.Leaves), len(plan.Delete), *out, prep.ExpiresAt.Format(time.RFC3339), *out)
	return nil
}

func runCheckpointsApply(ctx context.Context, args []string) error {
	var cf checkpointFlags
	fs := newFlagSet("checkpoints", "apply --prepared FILE")
	cf.addHome(fs)
	file := fs.String("prepared", "", "the preparation `atlas checkpoints prepare` wrote")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("atlas checkpoints apply: --prepared FILE is required (make one with `atlas checkpoints prepare --plan FILE`)")
	}
	var prep checkpoint.Preparation
	if err := readJSON(*file, &prep); err != nil {
		return err
	}
	deleted := 0
	err := checkpoint.ApplyRetention(ctx, prep, cf.inspectOptions(), time.Now(),
		func(loc string, files int) {
			deleted++
			fmt.Printf("deleted %s (%d files)\n", lakehouse.Redact(loc), files)
		},
		func(loc, reason string) { fmt.Printf("kept %s: %s\n", lakehouse.Redact(loc), reason) })
	if err != nil {
		return err
	}
	fmt.Printf("%d of %d staged checkpoints deleted\n", deleted, len(prep.Leaves))
	return nil
}

// writeJSON writes v to path, indented.
func writeJSON(path string, v any) error {
	data, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readJSON reads path into v.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is not what the command expects: %w", path, err)
	}
	return nil
}

// parseAge reads an age: a Go duration (720h) or days (30d); the plan
// refuses one below the policy's floor.
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(d, "%d", &n); err == nil && n > 0 && fmt.Sprint(n) == d {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("--older-than %q: give an age such as 30d or 720h (at least 30d)", s)
}
