package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResetNeedsYesAndKeepsTheKernelTools: without --yes nothing is
// deleted and the error lists what would be; with it the lab's data
// directories go and the kernel's tools stay.
func TestResetNeedsYesAndKeepsTheKernelTools(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ATLAS_HOME", home)
	t.Setenv("ATLAS_KAFKA_BROKERS", "") // the embedded broker (not running)
	for _, d := range append([]string{"bin", "assets"}, resetDirs...) {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, d, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := runReset(context.Background(), []string{"--home", home})
	if err == nil || !strings.Contains(err.Error(), "--yes") || !strings.Contains(err.Error(), filepath.Join(home, "checkpoints")) {
		t.Fatalf("reset without --yes: %v, want the list and the --yes hint", err)
	}
	for _, d := range resetDirs {
		if _, err := os.Stat(filepath.Join(home, d, "f")); err != nil {
			t.Fatalf("reset without --yes deleted %s", d)
		}
	}
	if err := runReset(context.Background(), []string{"--home", home, "--yes"}); err != nil {
		t.Fatal(err)
	}
	for _, d := range resetDirs {
		if _, err := os.Stat(filepath.Join(home, d)); !os.IsNotExist(err) {
			t.Errorf("%s survived reset --yes (%v)", d, err)
		}
	}
	for _, d := range []string{"bin", "assets"} {
		if _, err := os.Stat(filepath.Join(home, d, "f")); err != nil {
			t.Errorf("reset deleted the kernel's %s", d)
		}
	}
}
