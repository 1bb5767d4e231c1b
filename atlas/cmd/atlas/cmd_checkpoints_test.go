package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckpointsPlanThenApply: `checkpoints plan` deletes nothing and
// writes a plan naming the abandoned checkpoint; `checkpoints apply`
// deletes what the plan lists and keeps a recent one.
func TestCheckpointsPlanThenApply(t *testing.T) {
	home := resetEnv(t)
	t.Setenv("ATLAS_CHECKPOINT_ROOT", "")
	old := filepath.Join(home, "checkpoints", "old_query")
	recent := filepath.Join(home, "checkpoints", "recent_query")
	for _, d := range []string{old, recent} {
		fillHome(t, d, "commits", "offsets")
	}
	past := time.Now().Add(-10 * 24 * time.Hour)
	for _, f := range []string{"commits/f", "offsets/f"} {
		os.Chtimes(filepath.Join(old, f), past, past)
	}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	out, err := stdout(t, func() error {
		return runCheckpoints(context.Background(), []string{"plan", "--home", home, "--older-than", "7d", "--out", planFile})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "delete "+old+" (2 files") || !strings.Contains(out, "keep   "+recent) {
		t.Fatalf("plan printed:\n%s\nwant %s deleted and %s kept", out, old, recent)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatal("plan deleted something")
	}
	out, err = stdout(t, func() error {
		return runCheckpoints(context.Background(), []string{"apply", "--home", home, "--plan", planFile})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "deleted "+old+" (2 files)") {
		t.Fatalf("apply printed:\n%s", out)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("%s survived apply (%v)", old, err)
	}
	if got := files(t, recent); len(got) != 2 {
		t.Fatalf("the recent checkpoint holds %v after apply", got)
	}
}
