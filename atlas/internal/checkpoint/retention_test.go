package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// afterQuarantine is a plan clock 40 days ahead: past the 30-day floor and
// quarantine for everything written now.
func afterQuarantine() time.Time { return time.Now().Add(40 * 24 * time.Hour) }

// month is the smallest age a plan accepts.
var month = RetentionPolicy{OlderThan: MinRetentionAge}

// testIdentity is the identity the tests register.
func testIdentity(name string) Identity {
	return Identity{ID: "test-" + name + "-v1", Owner: "Streaming Data Engineering", Classification: "durable stream"}
}

// writeBatches writes n committed batches into the checkpoint at loc and
// stops cleanly (a terminal lease record).
func writeBatches(t *testing.T, loc string, n int) {
	t.Helper()
	ck, err := Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	writeN(t, ck, 0, n)
}

// writeN writes batches from..from+n-1 to an open checkpoint.
func writeN(t *testing.T, ck *Checkpoint, from, n int) {
	t.Helper()
	for i := int64(from); i < int64(from+n); i++ {
		if err := ck.WriteOffsets(context.Background(), OffsetSeq{BatchID: i}); err != nil {
			t.Fatal(err)
		}
		if err := ck.WriteCommit(context.Background(), i, CommitMetadata{}); err != nil {
			t.Fatal(err)
		}
	}
}

// retire registers and retires the stopped checkpoint at loc.
func retire(t *testing.T, loc string, opts Options) {
	t.Helper()
	ctx := context.Background()
	if err := Register(ctx, loc, testIdentity(filepath.Base(loc)), false, opts); err != nil {
		t.Fatal(err)
	}
	if err := Retire(ctx, loc, Retirement{ReviewedBy: "reviewer", RecoveryApprovedBy: "approver", Reason: "test"}, opts); err != nil {
		t.Fatal(err)
	}
}

// crashLocal leaves a local checkpoint as a killed process does: lock
// dropped, no terminal record.
func crashLocal(ck *Checkpoint) {
	ck.lease.f.Close()
	ck.lease.f = nil
	ck.bucket.Close()
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

// planPrepareApply runs the three steps at clock now and returns the
// locations deleted and those kept or skipped (with reasons).
func planPrepareApply(t *testing.T, root string, opts InspectOptions, now time.Time) (Plan, []string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	plan, err := PlanRetention(ctx, root, month, opts, now)
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]string{}
	prep, err := Prepare(ctx, plan, opts, now, func(loc, why string) { left[loc] = "prepare: " + why })
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	err = ApplyRetention(ctx, prep, opts, now, func(loc string, _ int) { deleted = append(deleted, loc) },
		func(loc, why string) { left[loc] = "apply: " + why })
	if err != nil {
		t.Fatal(err)
	}
	return plan, deleted, left
}

// locations returns the planned checkpoints' locations.
func locations(pcs []PlannedCheckpoint) []string {
	var out []string
	for _, pc := range pcs {
		out = append(out, pc.Location)
	}
	return out
}

// TestRetentionDeletesOnlyRetiredLeaves: of a retired, a stopped, a
// running and a crashed checkpoint, only the retired one is planned,
// prepared and deleted; the others keep every file, with their states as
// reasons.
func TestRetentionDeletesOnlyRetiredLeaves(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	loc := func(n string) string { return filepath.Join(root, n) }
	for _, n := range []string{"retired", "stopped", "running", "crashed"} {
		writeBatches(t, loc(n), 3)
	}
	retire(t, loc("retired"), Options{})
	held, err := Open(ctx, loc("running"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	crashed, err := Open(ctx, loc("crashed"))
	if err != nil {
		t.Fatal(err)
	}
	crashLocal(crashed)
	before := map[string][]string{}
	for _, n := range []string{"stopped", "running", "crashed"} {
		before[n] = treeOf(t, loc(n))
	}

	plan, deleted, _ := planPrepareApply(t, root, InspectOptions{}, afterQuarantine())
	if got := locations(plan.Delete); !slices.Equal(got, []string{loc("retired")}) {
		t.Fatalf("plan deletes %v, want only the retired checkpoint", got)
	}
	if plan.Delete[0].Files != 8 || plan.Delete[0].ID != "test-retired-v1" { // 3 offsets, 3 commits, identity, retirement
		t.Fatalf("planned %+v", plan.Delete[0])
	}
	states := map[string]State{}
	for _, pc := range plan.Keep {
		states[filepath.Base(pc.Location)] = pc.State
	}
	if want := map[string]State{"stopped": Stopped, "running": Active, "crashed": Uncertain}; !mapsEqual(states, want) {
		t.Fatalf("kept %v, want %v", states, want)
	}
	if !slices.Equal(deleted, []string{loc("retired")}) {
		t.Fatalf("apply deleted %v", deleted)
	}
	if _, err := os.Stat(loc("retired")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the retired checkpoint survived apply: %v", err)
	}
	for n, files := range before {
		if got := treeOf(t, loc(n)); !slices.Equal(got, files) {
			t.Fatalf("%s changed: %v, was %v", n, got, files)
		}
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRetentionNestedRunningCheckpointSurvives is the first
// failure: a query runs at ROOT/team/nested; the old plan listed ROOT/team
// as not held and apply deleted it, metadata and lease included, so a
// second engine started there unrefused. Now nothing of it is planned,
// its files stay, and a second Open is still refused.
func TestRetentionNestedRunningCheckpointSurvives(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	nested := filepath.Join(root, "team", "nested")
	ck, err := Open(ctx, nested)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	if err := ck.WriteMetadata(ctx, Metadata{ID: "q1"}); err != nil {
		t.Fatal(err)
	}
	writeN(t, ck, 0, 3)
	// A retired checkpoint inside the running one, and a retired parent
	// holding a retired child: only the child is an exact leaf.
	inner := filepath.Join(nested, "inner")
	writeBatches(t, inner, 1)
	retire(t, inner, Options{})
	outer, child := filepath.Join(root, "outer"), filepath.Join(root, "outer", "child")
	writeBatches(t, outer, 1)
	writeBatches(t, child, 1)
	retire(t, outer, Options{})
	retire(t, child, Options{})
	before := treeOf(t, nested)

	plan, deleted, _ := planPrepareApply(t, root, InspectOptions{}, afterQuarantine())
	if got := locations(plan.Delete); !slices.Equal(got, []string{child}) {
		t.Fatalf("plan deletes %v, want only %s", got, child)
	}
	reasons := map[string]string{}
	for _, pc := range plan.Keep {
		reasons[pc.Location] = pc.Reason
	}
	if !strings.Contains(reasons[nested], "active") || !strings.Contains(reasons[inner], "lies inside") || !strings.Contains(reasons[outer], "contains other checkpoints") {
		t.Fatalf("kept %v", reasons)
	}
	if !slices.Equal(deleted, []string{child}) {
		t.Fatalf("deleted %v", deleted)
	}
	if got := treeOf(t, nested); !slices.Equal(got, before) {
		t.Fatalf("the running query's checkpoint changed: %v, was %v", got, before)
	}
	if _, err := Open(ctx, nested); !errors.Is(err, ErrInUse) {
		t.Fatalf("a second engine on the running checkpoint: %v, want ErrInUse", err)
	}
	writeN(t, ck, 3, 1) // the running query goes on writing
}

// TestRetentionKeepsResumableCheckpoint is the second failure: a
// durable query recorded for resume (the server is down) keeps its
// checkpoint, even retired; a record written between prepare and apply
// stops the apply too.
func TestRetentionKeepsResumableCheckpoint(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, l := range []string{a, b} {
		writeBatches(t, l, 2)
		retire(t, l, Options{})
	}
	records := map[string]string{a: "run/connect/queries/qa.json"}
	opts := InspectOptions{ResumeRecords: func() (map[string]string, error) { return records, nil }}
	ctx := context.Background()
	now := afterQuarantine()
	plan, err := PlanRetention(ctx, root, month, opts, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(plan.Delete); !slices.Equal(got, []string{b}) {
		t.Fatalf("plan deletes %v, want only %s (a has a resume record)", got, b)
	}
	if plan.Keep[0].State != Uncertain || !strings.Contains(plan.Keep[0].Reason, "qa.json") {
		t.Fatalf("kept %+v", plan.Keep[0])
	}
	prep, err := Prepare(ctx, plan, opts, now, func(loc, why string) { t.Errorf("prepare skipped %s: %s", loc, why) })
	if err != nil {
		t.Fatal(err)
	}
	records[b+"/"] = "run/connect/queries/qb.json" // the server records b's query meanwhile
	var kept []string
	err = ApplyRetention(ctx, prep, opts, now, func(loc string, _ int) { t.Errorf("deleted %s", loc) }, func(loc, why string) { kept = append(kept, loc+": "+why) })
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || !strings.Contains(kept[0], "qb.json") {
		t.Fatalf("apply kept %v", kept)
	}
	for _, l := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(l, "commits", "1")); err != nil {
			t.Fatalf("%s lost its commit log: %v", l, err)
		}
	}
	// Unreadable records keep everything.
	opts.ResumeRecords = func() (map[string]string, error) { return nil, errors.New("permission denied") }
	if plan, err := PlanRetention(ctx, root, month, opts, now); err != nil || len(plan.Delete) != 0 {
		t.Fatalf("with unreadable resume records the plan deletes %v (%v)", locations(plan.Delete), err)
	}
}

// TestRetentionRefusesShortAgesEditedAndExpiredPlans: an age below the
// floor is refused; an edited or expired plan cannot be prepared, nor an
// edited or expired preparation applied.
func TestRetentionRefusesShortAgesEditedAndExpiredPlans(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	l := filepath.Join(root, "old")
	writeBatches(t, l, 1)
	retire(t, l, Options{})
	for _, age := range []time.Duration{time.Second, 7 * 24 * time.Hour, MinRetentionAge - time.Hour} {
		if _, err := PlanRetention(ctx, root, RetentionPolicy{OlderThan: age}, InspectOptions{}, afterQuarantine()); err == nil || !strings.Contains(err.Error(), "floor") {
			t.Fatalf("age %s: %v, want refused below the floor", age, err)
		}
	}
	now := afterQuarantine()
	plan, err := PlanRetention(ctx, root, month, InspectOptions{}, now)
	if err != nil || len(plan.Delete) != 1 {
		t.Fatalf("plan %v: %v", locations(plan.Delete), err)
	}
	noSkip := func(loc, why string) { t.Errorf("skipped %s: %s", loc, why) }
	edited := plan
	edited.Delete = append([]PlannedCheckpoint{{Location: filepath.Join(root, "other")}}, plan.Delete...)
	if _, err := Prepare(ctx, edited, InspectOptions{}, now, noSkip); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("edited plan: %v", err)
	}
	if _, err := Prepare(ctx, plan, InspectOptions{}, now.Add(PlanTTL), noSkip); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired plan: %v", err)
	}
	prep, err := Prepare(ctx, plan, InspectOptions{}, now, noSkip)
	if err != nil || len(prep.Leaves) != 1 {
		t.Fatalf("prepare: %v, %d leaves", err, len(prep.Leaves))
	}
	none := func(loc string, _ int) { t.Errorf("deleted %s", loc) }
	if err := ApplyRetention(ctx, prep, InspectOptions{}, now.Add(PrepareTTL), none, noSkip); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired preparation: %v", err)
	}
	ed := prep
	ed.ExpiresAt = ed.ExpiresAt.Add(24 * time.Hour)
	if err := ApplyRetention(ctx, ed, InspectOptions{}, now.Add(2*PrepareTTL), none, noSkip); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("edited preparation: %v", err)
	}
	// A file written after prepare keeps the leaf.
	os.WriteFile(filepath.Join(l, "offsets", "9"), []byte("v1\n{}"), 0o644)
	var kept []string
	if err := ApplyRetention(ctx, prep, InspectOptions{}, now, none, func(loc, why string) { kept = append(kept, why) }); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || !strings.Contains(kept[0], "changed") {
		t.Fatalf("apply after a write kept %v", kept)
	}
}

// TestRetiredCheckpointIsNotReopened: a retired checkpoint is refused by
// Open (a query would start from nothing there otherwise), and only a
// stopped one can be retired.
func TestRetiredCheckpointIsNotReopened(t *testing.T) {
	ctx := context.Background()
	l := filepath.Join(t.TempDir(), "ck")
	ck, err := Open(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	writeN(t, ck, 0, 1)
	if err := Register(ctx, l, testIdentity("ck"), false, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Retire(ctx, l, Retirement{ReviewedBy: "r", RecoveryApprovedBy: "a"}, Options{}); err == nil || !strings.Contains(err.Error(), "active") {
		t.Fatalf("retiring a running checkpoint: %v", err)
	}
	ck.Close()
	if err := Retire(ctx, l, Retirement{ReviewedBy: "r", RecoveryApprovedBy: "a"}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, l); !errors.Is(err, ErrRetired) {
		t.Fatalf("open of a retired checkpoint: %v, want ErrRetired", err)
	}
	in, err := Inspect(ctx, l, InspectOptions{})
	if err != nil || in.State != Retired || in.Identity.ID != "test-ck-v1" {
		t.Fatalf("inspect: %+v, %v", in, err)
	}
	if err := Register(ctx, l, Identity{ID: "other", Owner: "x", Classification: "y"}, false, Options{}); err == nil || !strings.Contains(err.Error(), "registered as test-ck-v1") {
		t.Fatalf("re-register with another id: %v", err)
	}
}

// TestLocalLeaseLostIsLoggedAndStopsWrites: a query whose lease file is
// deleted under it (what the old apply did) stops writing, says why, and
// logs it once.
func TestLocalLeaseLostIsLoggedAndStopsWrites(t *testing.T) {
	ctx := context.Background()
	l := filepath.Join(t.TempDir(), "ck")
	var logged []string
	ck, err := OpenWith(ctx, l, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	writeN(t, ck, 0, 1)
	os.Remove(filepath.Join(l, leaseFile))
	for range 2 {
		if err := ck.WriteCommit(ctx, 1, CommitMetadata{}); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("write after the lease file was deleted: %v, want ErrLeaseLost", err)
		}
	}
	if _, err := os.Stat(filepath.Join(l, "commits", "1")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("commit 1 was written: %v", err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "deleted or replaced") {
		t.Fatalf("logged %q", logged)
	}
}
