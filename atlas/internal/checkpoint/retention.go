package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// Retention of abandoned checkpoints is planned, reviewed, then applied:
// PlanRetention lists the checkpoints under a root whose newest file is
// older than the policy's age and whose query is not running (its lease is
// free); the plan is written out for a person to read; ApplyRetention
// deletes exactly the planned checkpoints, each only after taking its lease
// (so its query cannot start meanwhile) and checking that nothing was
// written to it since the plan. A checkpoint whose query is active is
// never deleted, whatever its age.

// RetentionPolicy says which checkpoints a plan deletes.
type RetentionPolicy struct {
	// OlderThan is the age of a checkpoint's newest file beyond which the
	// checkpoint counts as abandoned.
	OlderThan time.Duration `json:"older_than"`
}

// Plan is a reviewed list of checkpoints to delete.
type Plan struct {
	// Root is the checkpoint root the plan was made for.
	Root string `json:"root"`
	// MadeAt is when the plan was made.
	MadeAt time.Time `json:"made_at"`
	// Policy is the policy the plan applies.
	Policy RetentionPolicy `json:"policy"`
	// Delete are the checkpoints to delete.
	Delete []PlannedCheckpoint `json:"delete"`
	// Keep are the checkpoints kept, each with the reason.
	Keep []PlannedCheckpoint `json:"keep"`
}

// PlannedCheckpoint is one checkpoint as the plan saw it.
type PlannedCheckpoint struct {
	// Location is the checkpoint's location (a directory or URL).
	Location string `json:"location"`
	// Files is how many files it held.
	Files int `json:"files"`
	// Newest is the modification time of its newest file.
	Newest time.Time `json:"newest"`
	// Reason says why it is deleted or kept.
	Reason string `json:"reason"`
}

// leaseFileOrPrefix reports whether key is lease bookkeeping, not data.
func leaseFileOrPrefix(key string) bool {
	return key == leaseFile || strings.HasPrefix(key, leasePrefix)
}

// PlanRetention lists the checkpoints directly under root and decides, by
// policy, which to delete. It deletes nothing.
func PlanRetention(ctx context.Context, root string, policy RetentionPolicy, opts Options, now time.Time) (Plan, error) {
	if policy.OlderThan <= 0 {
		return Plan{}, errors.New("checkpoint retention: the age must be positive (for example 168h for a week)")
	}
	plan := Plan{Root: root, MadeAt: now.UTC(), Policy: policy}
	names, err := childNames(ctx, root, opts)
	if err != nil {
		return plan, err
	}
	for _, name := range names {
		loc := joinLocation(root, name)
		pc, err := survey(ctx, loc, opts)
		if err != nil {
			return plan, err
		}
		active, holder, err := leaseHeld(ctx, loc, opts)
		switch {
		case err != nil:
			pc.Reason = fmt.Sprintf("kept: cannot tell whether its query runs (%v)", err)
			plan.Keep = append(plan.Keep, pc)
		case active:
			pc.Reason = "kept: its query is running (" + holder + "); an active query's files are never deleted"
			plan.Keep = append(plan.Keep, pc)
		case pc.Files == 0:
			pc.Reason = "kept: empty"
			plan.Keep = append(plan.Keep, pc)
		case now.Sub(pc.Newest) <= policy.OlderThan:
			pc.Reason = fmt.Sprintf("kept: written %s ago, within %s", now.Sub(pc.Newest).Round(time.Second), policy.OlderThan)
			plan.Keep = append(plan.Keep, pc)
		default:
			pc.Reason = fmt.Sprintf("delete: nothing written for %s (over %s) and no query holds it", now.Sub(pc.Newest).Round(time.Second), policy.OlderThan)
			plan.Delete = append(plan.Delete, pc)
		}
	}
	return plan, nil
}

// ApplyRetention deletes the plan's checkpoints. Each is opened first (its
// lease taken, so its query cannot start while it is deleted) and surveyed
// again: one that a query holds, or that changed since the plan, is kept
// and reported. deleted is called with each checkpoint deleted; kept with
// each one skipped and why.
func ApplyRetention(ctx context.Context, plan Plan, opts Options, deleted func(location string, files int), kept func(location, reason string)) error {
	for _, pc := range plan.Delete {
		ck, err := OpenWith(ctx, pc.Location, opts)
		if errors.Is(err, ErrInUse) {
			kept(pc.Location, "its query started since the plan: "+err.Error())
			continue
		}
		if err != nil {
			return err
		}
		now, err := survey(ctx, pc.Location, opts)
		if err != nil {
			ck.Close()
			return err
		}
		if now.Files != pc.Files || !now.Newest.Equal(pc.Newest) {
			ck.Close()
			kept(pc.Location, fmt.Sprintf("changed since the plan (%d files, newest %s; the plan saw %d, %s): make a new plan", now.Files, now.Newest.UTC().Format(time.RFC3339), pc.Files, pc.Newest.UTC().Format(time.RFC3339)))
			continue
		}
		n, err := ck.deleteAll(ctx)
		if cerr := ck.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if isLocal(pc.Location) {
			// The lease file goes with the directory, once the lock is off.
			if err := os.RemoveAll(strings.TrimPrefix(pc.Location, "file://")); err != nil {
				return fmt.Errorf("checkpoint %s: delete: %w", pc.Location, err)
			}
		}
		deleted(pc.Location, n)
	}
	return nil
}

// deleteAll deletes every file of the checkpoint but its lease's, which
// the caller holds; it returns how many it deleted.
func (c *Checkpoint) deleteAll(ctx context.Context) (int, error) {
	if c.blease != nil {
		if err := c.blease.check(ctx); err != nil {
			return 0, err
		}
	}
	n := 0
	it := c.bucket.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("checkpoint %s: list: %w", c.location, err)
		}
		if leaseFileOrPrefix(obj.Key) {
			continue
		}
		if err := c.bucket.Delete(ctx, obj.Key); err != nil {
			return n, fmt.Errorf("checkpoint %s: delete %s: %w", c.location, obj.Key, err)
		}
		n++
	}
}

// survey counts a checkpoint's files (its lease's left out) and finds the
// newest.
func survey(ctx context.Context, loc string, opts Options) (PlannedCheckpoint, error) {
	pc := PlannedCheckpoint{Location: loc}
	b, err := openAny(ctx, loc, opts)
	if err != nil {
		return pc, err
	}
	defer b.Close()
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return pc, nil
		}
		if err != nil {
			return pc, fmt.Errorf("checkpoint %s: list: %w", loc, err)
		}
		if leaseFileOrPrefix(obj.Key) {
			continue
		}
		pc.Files++
		if obj.ModTime.After(pc.Newest) {
			pc.Newest = obj.ModTime
		}
	}
}

// leaseHeld reports whether a query holds the checkpoint at loc, and who.
func leaseHeld(ctx context.Context, loc string, opts Options) (bool, string, error) {
	if isLocal(loc) {
		dir := strings.TrimPrefix(loc, "file://")
		if _, err := os.Stat(filepath.Join(dir, leaseFile)); errors.Is(err, os.ErrNotExist) {
			return false, "", nil // a running query holds its lease file: none ran here
		}
		l, err := acquireLease(dir)
		if errors.Is(err, ErrInUse) {
			return true, err.Error(), nil
		}
		if err != nil {
			return false, "", err
		}
		return false, "", l.release()
	}
	b, err := openBucket(ctx, loc, opts)
	if err != nil {
		return false, "", err
	}
	defer b.Close()
	_, rec, mod, ok, err := newestLease(ctx, b)
	if err != nil || !ok || rec.Released {
		return false, "", err
	}
	if time.Now().Before(mod.Add(time.Duration(rec.TTLMillis) * time.Millisecond)) {
		return true, rec.Holder, nil
	}
	return false, "", nil
}

// openAny opens a location, local or remote, as a bucket without a lease.
func openAny(ctx context.Context, loc string, opts Options) (*blob.Bucket, error) {
	if isLocal(loc) {
		b, err := fileblob.OpenBucket(strings.TrimPrefix(loc, "file://"), &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite})
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: open: %w", loc, err)
		}
		return b, nil
	}
	return openBucket(ctx, loc, opts)
}

// childNames lists the checkpoints directly under root, sorted.
func childNames(ctx context.Context, root string, opts Options) ([]string, error) {
	if isLocal(root) {
		ents, err := os.ReadDir(strings.TrimPrefix(root, "file://"))
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("checkpoint root %s: %w", root, err)
		}
		var out []string
		for _, e := range ents {
			if e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out, nil
	}
	b, err := openBucket(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	var out []string
	it := b.List(&blob.ListOptions{Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("checkpoint root %s: list: %w", root, err)
		}
		if obj.IsDir {
			out = append(out, strings.TrimSuffix(obj.Key, "/"))
		}
	}
	sort.Strings(out)
	return out, nil
}

// joinLocation names the checkpoint name under root.
func joinLocation(root, name string) string {
	if isLocal(root) {
		return filepath.Join(strings.TrimPrefix(root, "file://"), name)
	}
	base, query, _ := strings.Cut(root, "?")
	loc := strings.TrimSuffix(base, "/") + "/" + name
	if query != "" {
		loc += "?" + query
	}
	return loc
}
