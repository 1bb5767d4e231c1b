package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
)

// stoppedCheckpoint writes a checkpoint of two committed batches at dir
// through the checkpoint package, as a query that stopped cleanly leaves it.
func stoppedCheckpoint(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	ck, err := checkpoint.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	for i := range int64(2) {
		if err := ck.WriteOffsets(ctx, checkpoint.OffsetSeq{BatchID: i}); err != nil {
			t.Fatal(err)
		}
		if err := ck.WriteCommit(ctx, i, checkpoint.CommitMetadata{}); err != nil {
			t.Fatal(err)
		}
	}
}

// backdate makes a retired checkpoint look 40 days old: its retirement
// record and every file's time (what a month and more of waiting does).
func backdate(t *testing.T, dir string) {
	t.Helper()
	past := time.Now().Add(-40 * 24 * time.Hour)
	p := filepath.Join(dir, "_atlas", "retirement.json")
	var r map[string]any
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &r)
	r["retired_at"] = past.UTC().Format(time.RFC3339)
	data, _ = json.Marshal(r)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chtimes(p, past, past)
		}
		return nil
	})
}

// ckRun runs `atlas checkpoints args...` and returns what it printed.
func ckRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return stdout(t, func() error { return runCheckpoints(context.Background(), args) })
}

// TestCheckpointsCommandsFollowThePolicy drives the CLI through the policy:
// register and retire by query name, list the lease states, refuse a short
// age, then plan, prepare and apply; the checkpoint a resume record of the
// home's server names (issue failure 2, with the daemon down) and a stopped
// one are kept, only the retired and quarantined one is deleted.
func TestCheckpointsCommandsFollowThePolicy(t *testing.T) {
	home := resetEnv(t)
	t.Setenv("ATLAS_CHECKPOINT_ROOT", "")
	root := filepath.Join(home, "checkpoints")
	old, resumable, stopped := filepath.Join(root, "old_query"), filepath.Join(root, "resumable_query"), filepath.Join(root, "stopped_query")
	for _, d := range []string{old, resumable, stopped} {
		stoppedCheckpoint(t, d)
	}
	for _, name := range []string{"old_query", "resumable_query"} {
		if _, err := ckRun(t, "register", name, "--home", home, "--id", name+"-v1", "--owner", "Streaming Data Engineering", "--classification", "durable stream"); err != nil {
			t.Fatal(err)
		}
		if _, err := ckRun(t, "retire", name, "--home", home, "--reviewed-by", "ana", "--recovery-approved-by", "bo"); err != nil {
			t.Fatal(err)
		}
	}
	backdate(t, old)
	backdate(t, resumable)
	// The server recorded resumable_query's query for resume, and is down.
	rec := map[string]any{"version": 1, "user": "u", "session": "s", "queryId": "q-resume", "runId": "r1", "checkpoint": resumable, "sink": "iceberg table t", "startedAt": time.Now()}
	data, _ := json.Marshal(rec)
	os.MkdirAll(filepath.Join(home, "run", "connect", "queries"), 0o755)
	if err := os.WriteFile(filepath.Join(home, "run", "connect", "queries", "q-resume.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}

	out, err := ckRun(t, "list", "--home", home)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"retired  old_query-v1", "uncertain  resumable_query-v1", "stopped  -"} {
		if !strings.Contains(strings.Join(strings.Fields(out), "  "), want) {
			t.Fatalf("list printed:\n%s\nwant a line with %q", out, want)
		}
	}
	if _, err := ckRun(t, "plan", "--home", home, "--older-than", "7d"); err == nil || !strings.Contains(err.Error(), "floor") {
		t.Fatalf("plan --older-than 7d: %v, want refused below the 30-day floor", err)
	}
	dir := t.TempDir()
	planFile, prepFile := filepath.Join(dir, "plan.json"), filepath.Join(dir, "prepared.json")
	out, err = ckRun(t, "plan", "--home", home, "--out", planFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "delete "+old+" (old_query-v1") || !strings.Contains(out, "keep   "+resumable+": uncertain") || !strings.Contains(out, "keep   "+stopped+": stopped") {
		t.Fatalf("plan printed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(old, "commits", "1")); err != nil {
		t.Fatal("plan deleted something")
	}
	if out, err = ckRun(t, "prepare", "--home", home, "--plan", planFile, "--out", prepFile); err != nil || !strings.Contains(out, "1 of 1 planned checkpoints staged") {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	if out, err = ckRun(t, "apply", "--home", home, "--prepared", prepFile); err != nil || !strings.Contains(out, "deleted "+old+" (6 files)") {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("%s survived apply (%v)", old, err)
	}
	for _, d := range []string{resumable, stopped} {
		if _, err := os.Stat(filepath.Join(d, "commits", "1")); err != nil {
			t.Fatalf("%s lost its commit log: %v", d, err)
		}
	}
}

// TestCheckpointsUsageNamesTheRealFlag: the usage line says
// --checkpoint-root, the flag the command has (it said --root).
func TestCheckpointsUsageNamesTheRealFlag(t *testing.T) {
	r, w, _ := os.Pipe()
	oldErr := os.Stderr
	os.Stderr = w
	err := runCheckpoints(context.Background(), []string{"plan", "-h"})
	os.Stderr = oldErr
	w.Close()
	buf := make([]byte, 1<<16)
	n, _ := r.Read(buf)
	usage := string(buf[:n])
	if err == nil || !strings.Contains(usage, "usage: atlas checkpoints plan") || !strings.Contains(usage, "[--checkpoint-root ") || strings.Contains(usage, "[--root") {
		t.Fatalf("usage (%v):\n%s", err, usage)
	}
}
