package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeBatches writes n committed batches into a fresh checkpoint at dir
// and closes it.
func writeBatches(t *testing.T, dir string, n int) {
	t.Helper()
	ck, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	for i := range int64(n) {
		if err := ck.WriteOffsets(context.Background(), OffsetSeq{BatchID: i}); err != nil {
			t.Fatal(err)
		}
		if err := ck.WriteCommit(context.Background(), i, CommitMetadata{}); err != nil {
			t.Fatal(err)
		}
	}
}

// age sets every file under dir to have been modified d ago.
func age(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chtimes(p, old, old)
		}
		return err
	})
}

// treeOf lists the files under dir, relative, sorted.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// TestRetentionPlanThenApply: of four checkpoints, an abandoned one is
// planned for deletion; a recent one, and an old one whose query is
// running, are kept with their reasons; apply deletes the planned one and
// skips one that was written to after the plan.
func TestRetentionPlanThenApply(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	week := 7 * 24 * time.Hour
	for name, n := range map[string]int{"abandoned": 3, "recent": 2, "running": 4, "touched": 2} {
		writeBatches(t, filepath.Join(root, name), n)
	}
	for _, name := range []string{"abandoned", "running", "touched"} {
		age(t, filepath.Join(root, name), 10*24*time.Hour)
	}
	held, err := Open(ctx, filepath.Join(root, "running"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	plan, err := PlanRetention(ctx, root, RetentionPolicy{OlderThan: week}, Options{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var del []string
	for _, pc := range plan.Delete {
		del = append(del, filepath.Base(pc.Location))
	}
	if !slices.Equal(del, []string{"abandoned", "touched"}) {
		t.Fatalf("plan deletes %v, want the abandoned and touched checkpoints", del)
	}
	if plan.Delete[0].Files != 6 {
		t.Fatalf("plan counts %d files in abandoned, it holds 3 offsets and 3 commits", plan.Delete[0].Files)
	}
	reasons := map[string]string{}
	for _, pc := range plan.Keep {
		reasons[filepath.Base(pc.Location)] = pc.Reason
	}
	if !strings.Contains(reasons["running"], "is running") || !strings.Contains(reasons["recent"], "within") || len(reasons) != 2 {
		t.Fatalf("kept %v, want running (its query runs) and recent (within the age)", reasons)
	}
	runningBefore, recentBefore := treeOf(t, filepath.Join(root, "running")), treeOf(t, filepath.Join(root, "recent"))

	// A query resumes "touched" between plan and apply.
	ck, err := Open(ctx, filepath.Join(root, "touched"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ck.WriteCommit(ctx, 2, CommitMetadata{}); err != nil {
		t.Fatal(err)
	}
	ck.Close()

	var deleted, skipped []string
	err = ApplyRetention(ctx, plan, Options{},
		func(loc string, files int) { deleted = append(deleted, filepath.Base(loc)) },
		func(loc, reason string) { skipped = append(skipped, filepath.Base(loc)+": "+reason) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deleted, []string{"abandoned"}) || len(skipped) != 1 || !strings.HasPrefix(skipped[0], "touched: changed since the plan") {
		t.Fatalf("apply deleted %v and skipped %v; want abandoned deleted and touched skipped as changed", deleted, skipped)
	}
	if _, err := os.Stat(filepath.Join(root, "abandoned")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("abandoned survived apply: %v", err)
	}
	if got := treeOf(t, filepath.Join(root, "running")); !slices.Equal(got, runningBefore) {
		t.Fatalf("the running query's checkpoint changed: %v, was %v", got, runningBefore)
	}
	if got := treeOf(t, filepath.Join(root, "recent")); !slices.Equal(got, recentBefore) {
		t.Fatalf("the recent checkpoint changed: %v, was %v", got, recentBefore)
	}
	if got := treeOf(t, filepath.Join(root, "touched")); len(got) != 6 { // 2 offsets, 3 commits, the lease file
		t.Fatalf("touched holds %v after apply", got)
	}
}
