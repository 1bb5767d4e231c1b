package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The chart's "Charts are off" note tells the reader to run `atlas
// assets`: the command exists, documents where it installs, and refuses
// stray arguments. (The note named a command the CLI did not have.)
func TestAssetsCommandTheChartNoteNames(t *testing.T) {
	c, ok := commands["assets"]
	if !ok || c.Hidden {
		t.Fatal("no atlas assets command in `atlas help`")
	}
	if !strings.Contains(c.Summary, "assets/echarts") {
		t.Fatalf("atlas assets does not say where it installs: %q", c.Summary)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"assets", "extra"}, &out, &errb); code != 2 {
		t.Fatalf("atlas assets extra: exit %d, want 2 (usage)", code)
	}
}
