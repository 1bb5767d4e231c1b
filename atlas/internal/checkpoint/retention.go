package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Retention follows the checkpoint policy: a checkpoint is deleted only
// when it is an exact leaf (no checkpoint inside it, none active or
// uncertain above it), retired after review with its recovery approved,
// stopped with a terminal lease record, 30 days into its quarantine, and
// unwritten for the plan's age; never while active or uncertain (a crashed
// or stalled holder, a resume record, anything unreadable). It takes three
// reviewed steps, none automated or scheduled:
//
//	PlanRetention  lists the eligible leaves with their content hashes; deletes nothing
//	Prepare        re-checks each leaf and stages it with compare-and-swap on its lease
//	               (S3: a new lease generation created with If-None-Match; local: the
//	               flock, and the record rewritten under it) and a prepared marker
//	ApplyRetention deletes only what Prepare staged, only if nothing changed since
//	               (S3: the lease generation marked deleting with If-Match; local: under
//	               the flock, the directory renamed away, then removed)
//
// Plans and preparations carry a hash of their own content (an edited one
// is refused) and expire.

// Policy constants.
const (
	// MinRetentionAge is the smallest OlderThan a plan accepts: no
	// checkpoint written within the last 30 days is ever deleted.
	MinRetentionAge = 30 * 24 * time.Hour
	// Quarantine is how long a retired checkpoint is kept after its
	// retirement before a plan may list it.
	Quarantine = 30 * 24 * time.Hour
	// PlanTTL is how long a plan can be prepared after it was made.
	PlanTTL = 24 * time.Hour
	// PrepareTTL is how long a preparation can be applied.
	PrepareTTL = time.Hour
	// retentionVersion is the layout version of plans and preparations.
	retentionVersion = 2
)

// RetentionPolicy says which checkpoints a plan lists.
type RetentionPolicy struct {
	// OlderThan is the age of a checkpoint's newest file it must exceed;
	// at least MinRetentionAge.
	OlderThan time.Duration `json:"older_than"`
}

// Validate refuses an age below the floor.
func (p RetentionPolicy) Validate() error {
	if p.OlderThan < MinRetentionAge {
		return fmt.Errorf("checkpoint retention: an age of %s is below the policy's floor of %s (30d): no checkpoint written within 30 days is deleted", p.OlderThan, MinRetentionAge)
	}
	return nil
}

// Plan is a list of checkpoints to delete, for review.
type Plan struct {
	Version int `json:"version"`
	// Root is the checkpoint root the plan was made for.
	Root string `json:"root"`
	// MadeAt is when the plan was made; ExpiresAt when it can no longer
	// be prepared.
	MadeAt    time.Time `json:"made_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// Policy is the policy the plan applies.
	Policy RetentionPolicy `json:"policy"`
	// Delete are the checkpoints to delete.
	Delete []PlannedCheckpoint `json:"delete"`
	// Keep are the checkpoints kept, each with the reason.
	Keep []PlannedCheckpoint `json:"keep"`
	// Hash is the SHA-256 of the plan without it.
	Hash string `json:"hash"`
}

// PlannedCheckpoint is one checkpoint as the plan saw it.
type PlannedCheckpoint struct {
	// Location is the checkpoint's location (a directory or URL).
	Location string `json:"location"`
	// ID, Owner and Classification are its identity.
	ID             string `json:"id,omitempty"`
	Owner          string `json:"owner,omitempty"`
	Classification string `json:"classification,omitempty"`
	// State is its lease state.
	State State `json:"state"`
	// Files is how many data files it held; Newest the newest's time.
	Files  int       `json:"files"`
	Newest time.Time `json:"newest,omitzero"`
	// ContentHash is the hash of its data files.
	ContentHash string `json:"content_hash"`
	// Reason says why it is deleted or kept.
	Reason string `json:"reason"`
}

// PlanRetention surveys every checkpoint under root and lists those the
// policy lets go. It deletes and changes nothing.
func PlanRetention(ctx context.Context, root string, policy RetentionPolicy, opts InspectOptions, now time.Time) (Plan, error) {
	if err := policy.Validate(); err != nil {
		return Plan{}, err
	}
	plan := Plan{Version: retentionVersion, Root: root, MadeAt: now.UTC(), ExpiresAt: now.Add(PlanTTL).UTC(), Policy: policy}
	infos, err := Survey(ctx, root, opts)
	if err != nil {
		return plan, err
	}
	byLoc := map[string]Info{}
	for _, in := range infos {
		byLoc[in.Location] = in
	}
	for _, in := range infos {
		pc := planned(in)
		if why := ineligible(in, byLoc, policy, now); why != "" {
			pc.Reason = "kept: " + why
			plan.Keep = append(plan.Keep, pc)
			continue
		}
		pc.Reason = fmt.Sprintf("delete: retired %s ago after review, quarantine over, nothing written for %s",
			now.Sub(in.Retirement.RetiredAt).Round(time.Hour), now.Sub(in.Newest).Round(time.Hour))
		plan.Delete = append(plan.Delete, pc)
	}
	plan.Hash = hashOf(plan)
	return plan, nil
}

// planned is in as a plan lists it.
func planned(in Info) PlannedCheckpoint {
	pc := PlannedCheckpoint{Location: in.Location, State: in.State, Files: in.Files, Newest: in.Newest, ContentHash: in.ContentHash}
	if in.Identity != nil {
		pc.ID, pc.Owner, pc.Classification = in.Identity.ID, in.Identity.Owner, in.Identity.Classification
	}
	return pc
}

// ineligible says why the policy keeps in, or "" when it may be deleted.
func ineligible(in Info, byLoc map[string]Info, policy RetentionPolicy, now time.Time) string {
	switch in.State {
	case Active:
		return "active, " + in.Reason + "; an active checkpoint is never deleted"
	case Uncertain:
		return "uncertain, " + in.Reason + "; an uncertain checkpoint is never deleted"
	}
	if len(in.Nested) > 0 {
		return fmt.Sprintf("it contains other checkpoints (%s): only exact leaves are deleted", strings.Join(in.Nested, ", "))
	}
	for _, p := range in.Parents {
		if st := byLoc[p].State; st == Active || st == Uncertain {
			return fmt.Sprintf("it lies inside %s, which is %s: nothing under a path a query holds or may resume is deleted", p, st)
		}
	}
	switch in.State {
	case Stopped:
		return "stopped, not retired: retire it after review first (atlas checkpoints retire)"
	}
	if in.Identity == nil {
		return "it has no identity (id, owner, classification): register it first"
	}
	if until := in.Retirement.RetiredAt.Add(Quarantine); now.Before(until) {
		return "retired, in quarantine until " + until.UTC().Format(time.RFC3339)
	}
	if in.Files == 0 {
		return "empty"
	}
	if age := now.Sub(in.Newest); age <= policy.OlderThan {
		return fmt.Sprintf("written %s ago, within %s", age.Round(time.Hour), policy.OlderThan)
	}
	return ""
}

// hashOf hashes v's JSON with its Hash field emptied (v is a Plan or a
// Preparation, passed by value).
func hashOf(v any) string {
	switch x := v.(type) {
	case Plan:
		x.Hash = ""
		v = x
	case Preparation:
		x.Hash = ""
		v = x
	}
	data, _ := json.Marshal(v)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Preparation is a set of leaves staged for deletion by Prepare.
type Preparation struct {
	Version int `json:"version"`
	// ID identifies the preparation; the staged leaves carry it.
	ID string `json:"id"`
	// Root and PlanHash name the plan it prepares.
	Root     string `json:"root"`
	PlanHash string `json:"plan_hash"`
	// MadeAt is when it was made; ExpiresAt when it can no longer be applied.
	MadeAt    time.Time `json:"made_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// Leaves are the staged checkpoints.
	Leaves []PreparedLeaf `json:"leaves"`
	// Hash is the SHA-256 of the preparation without it.
	Hash string `json:"hash"`
}

// PreparedLeaf is one staged checkpoint.
type PreparedLeaf struct {
	Location    string `json:"location"`
	ID          string `json:"id,omitempty"`
	Files       int    `json:"files"`
	ContentHash string `json:"content_hash"`
	// LeaseGen and LeaseETag are the lease generation the preparation
	// created on an object store, and its ETag.
	LeaseGen  int64  `json:"lease_gen,omitempty"`
	LeaseETag string `json:"lease_etag,omitempty"`
}

// preparedRecord is the content of a staged leaf's _atlas/prepared.json.
type preparedRecord struct {
	Preparation string    `json:"preparation"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// Prepare re-checks every leaf a reviewed plan deletes and stages those
// still eligible and unchanged. skipped is called with each one left
// alone and why. The plan must be unedited and unexpired.
func Prepare(ctx context.Context, plan Plan, opts InspectOptions, now time.Time, skipped func(location, reason string)) (Preparation, error) {
	prep := Preparation{Version: retentionVersion, ID: uuid.NewString(), Root: plan.Root, PlanHash: plan.Hash, MadeAt: now.UTC(), ExpiresAt: now.Add(PrepareTTL).UTC()}
	switch {
	case plan.Version != retentionVersion:
		return prep, fmt.Errorf("checkpoint retention: the plan has layout version %d, not %d: make a new plan", plan.Version, retentionVersion)
	case plan.Hash != hashOf(plan):
		return prep, errors.New("checkpoint retention: the plan was edited after it was made (its hash does not match): make a new plan and review it")
	case !now.Before(plan.ExpiresAt):
		return prep, fmt.Errorf("checkpoint retention: the plan expired at %s: make a new plan and review it", plan.ExpiresAt.Format(time.RFC3339))
	}
	if err := plan.Policy.Validate(); err != nil {
		return prep, err
	}
	infos, err := Survey(ctx, plan.Root, opts)
	if err != nil {
		return prep, err
	}
	byLoc := map[string]Info{}
	for _, in := range infos {
		byLoc[in.Location] = in
	}
	for _, pc := range plan.Delete {
		in, ok := byLoc[pc.Location]
		if !ok {
			skipped(pc.Location, "it is gone or no longer a checkpoint")
			continue
		}
		if why := ineligible(in, byLoc, plan.Policy, now); why != "" {
			skipped(pc.Location, why)
			continue
		}
		if in.ContentHash != pc.ContentHash {
			skipped(pc.Location, "its files changed since the plan: make a new plan")
			continue
		}
		leaf, err := stage(ctx, in, prep, opts.Options)
		if err != nil {
			skipped(pc.Location, err.Error())
			continue
		}
		prep.Leaves = append(prep.Leaves, leaf)
	}
	prep.Hash = hashOf(prep)
	return prep, nil
}

// stage marks one leaf as staged by prep, with compare-and-swap on its
// lease, and checks that its content did not change meanwhile.
func stage(ctx context.Context, in Info, prep Preparation, opts Options) (PreparedLeaf, error) {
	leaf := PreparedLeaf{Location: in.Location, Files: in.Files, ContentHash: in.ContentHash}
	if in.Identity != nil {
		leaf.ID = in.Identity.ID
	}
	st, err := openStore(ctx, in.Location, opts)
	if err != nil {
		return leaf, err
	}
	defer st.b.Close()
	marker, _ := json.Marshal(preparedRecord{Preparation: prep.ID, ExpiresAt: prep.ExpiresAt})
	if st.dir != "" {
		err = withLocalLease(st.dir, in.lease.rec.Token, "", func(l *lease, rec leaseRecord) error {
			rec.Retention = prep.ID
			if err := l.writeRecord(rec); err != nil {
				return err
			}
			return putPrepared(ctx, st, marker)
		})
	} else {
		leaf.LeaseGen, leaf.LeaseETag, err = stageBucketLease(ctx, st, in, prep)
		if err == nil {
			err = putPrepared(ctx, st, marker)
		}
	}
	if err != nil {
		return leaf, err
	}
	files, err := listFiles(ctx, st.b)
	if err != nil {
		return leaf, err
	}
	if _, _, h := contentOf(files, ""); h != in.ContentHash {
		return leaf, errors.New("its files changed while it was staged: make a new plan")
	}
	return leaf, nil
}

// putPrepared creates the prepared marker, replacing one of an expired
// preparation.
func putPrepared(ctx context.Context, st store, marker []byte) error {
	err := st.createIfAbsent(ctx, preparedKey, marker)
	if !errors.Is(err, errChanged) {
		return err
	}
	var old preparedRecord
	if _, err := readJSON(ctx, st.b, preparedKey, &old); err != nil {
		return err
	}
	if time.Now().Before(old.ExpiresAt) {
		return fmt.Errorf("preparation %s staged it already, until %s", old.Preparation, old.ExpiresAt.Format(time.RFC3339))
	}
	etag, err := st.etagOf(ctx, preparedKey)
	if err != nil {
		return err
	}
	return st.replaceIfMatch(ctx, preparedKey, marker, etag)
}

// stageBucketLease creates the next lease generation, released and
// naming the preparation, with If-None-Match: if any process wrote a
// generation since the survey, the create fails.
func stageBucketLease(ctx context.Context, st store, in Info, prep Preparation) (int64, string, error) {
	gen, cur, _, ok, err := newestLease(ctx, st.b)
	if err != nil {
		return 0, "", err
	}
	if !ok || gen != in.lease.gen || cur.Token != in.lease.rec.Token || !cur.Released {
		return 0, "", errors.New("its lease changed since the survey: make a new plan")
	}
	rec := leaseRecord{Holder: "retention preparation " + prep.ID, Token: prep.ID, Released: true, StoppedAt: cur.StoppedAt, Retention: prep.ID}
	data, _ := json.Marshal(rec)
	if err := st.createIfAbsent(ctx, leaseKey(gen+1), data); err != nil {
		return 0, "", fmt.Errorf("its lease changed while it was staged (%w): make a new plan", err)
	}
	etag, err := st.etagOf(ctx, leaseKey(gen+1))
	return gen + 1, etag, err
}

// withLocalLease runs f holding the flock of a local checkpoint whose
// lease record is released with the given token (and, when prepID is set,
// staged by that preparation).
func withLocalLease(dir, token, prepID string, f func(*lease, leaseRecord) error) error {
	p := filepath.Join(dir, leaseFile)
	fh, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("its lease file: %w", err)
	}
	l := &lease{f: fh, path: p, logf: orLog(nil)}
	defer fh.Close()
	ok, err := tryLock(fh)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("a query holds it now (%s)", localHolder(p))
	}
	rec, ok, err := readLocalRecord(p)
	switch {
	case err != nil || !ok:
		return errors.New("its lease record is unreadable now")
	case !rec.Released || rec.Token != token:
		return errors.New("its lease changed since the survey: a query ran it")
	case prepID != "" && rec.Retention != prepID:
		return fmt.Errorf("it is not staged by this preparation (its lease names %q)", rec.Retention)
	}
	return f(l, rec)
}

// ApplyRetention deletes the leaves a preparation staged, each only if it
// is still staged by it, unchanged, and named by no resume record.
// deleted is called with each leaf deleted, kept with each one left and
// why. The preparation must be unedited and unexpired.
func ApplyRetention(ctx context.Context, prep Preparation, opts InspectOptions, now time.Time, deleted func(location string, files int), kept func(location, reason string)) error {
	switch {
	case prep.Version != retentionVersion:
		return fmt.Errorf("checkpoint retention: the preparation has layout version %d, not %d: prepare again", prep.Version, retentionVersion)
	case prep.Hash != hashOf(prep):
		return errors.New("checkpoint retention: the preparation was edited after it was made (its hash does not match): prepare the reviewed plan again")
	case !now.Before(prep.ExpiresAt):
		return fmt.Errorf("checkpoint retention: the preparation expired at %s: prepare the reviewed plan again", prep.ExpiresAt.Format(time.RFC3339))
	}
	for _, leaf := range prep.Leaves {
		records, err := resumeRecords(opts)
		if err != nil {
			kept(leaf.Location, fmt.Sprintf("the server's resume records cannot be read: %v", err))
			continue
		}
		if r := resumeRecordFor(records, leaf.Location); r != "" {
			kept(leaf.Location, "the server's resume record "+r+" names it now")
			continue
		}
		n, err := applyLeaf(ctx, prep, leaf, opts.Options)
		if errors.Is(err, errKept) {
			kept(leaf.Location, err.Error())
			continue
		}
		if err != nil {
			return err
		}
		deleted(leaf.Location, n)
	}
	return nil
}

// errKept wraps why apply left a leaf alone.
var errKept = errors.New("left alone")

// applyLeaf deletes one staged leaf.
func applyLeaf(ctx context.Context, prep Preparation, leaf PreparedLeaf, opts Options) (int, error) {
	st, err := openStore(ctx, leaf.Location, opts)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errKept, err)
	}
	defer st.b.Close()
	check := func() error {
		var pr preparedRecord
		if ok, err := readJSON(ctx, st.b, preparedKey, &pr); err != nil || !ok || pr.Preparation != prep.ID {
			return fmt.Errorf("%w: it is no longer staged by preparation %s", errKept, prep.ID)
		}
		files, err := listFiles(ctx, st.b)
		if err != nil {
			return err
		}
		if dirs := checkpointDirs(files); len(dirs) != 1 || !dirs[""] {
			return fmt.Errorf("%w: a checkpoint was created inside it since it was staged", errKept)
		}
		if _, _, h := contentOf(files, ""); h != leaf.ContentHash {
			return fmt.Errorf("%w: its files changed since it was staged", errKept)
		}
		return nil
	}
	if st.dir != "" {
		return applyLocal(st, prep, check)
	}
	return applyBucket(ctx, st, prep, leaf, check)
}

// applyLocal deletes a staged local leaf holding its flock: it is renamed
// away first (one atomic step for the location), then removed.
func applyLocal(st store, prep Preparation, check func() error) (int, error) {
	var rec leaseRecord
	if r, ok, err := readLocalRecord(filepath.Join(st.dir, leaseFile)); err == nil && ok {
		rec = r
	}
	n := 0
	var hard error // a failed deletion, as opposed to a reason to keep it
	err := withLocalLease(st.dir, rec.Token, prep.ID, func(*lease, leaseRecord) error {
		if err := check(); err != nil {
			return err
		}
		files, _ := listFiles(context.Background(), st.b)
		n, _, _ = contentOf(files, "")
		gone := st.dir + ".atlas-deleting-" + prep.ID
		if err := os.Rename(st.dir, gone); err != nil {
			hard = fmt.Errorf("checkpoint %s: delete: %w", st.dir, err)
			return hard
		}
		if err := os.RemoveAll(gone); err != nil {
			hard = fmt.Errorf("checkpoint %s: delete (renamed to %s): %w", st.dir, gone, err)
		}
		return hard
	})
	switch {
	case hard != nil:
		return n, hard
	case err != nil && !errors.Is(err, errKept):
		return n, fmt.Errorf("%w: %v", errKept, err)
	}
	return n, err
}

// applyBucket deletes a staged leaf of an object store: its staged lease
// generation is marked deleting with If-Match (so no query can take it,
// and a changed generation stops the apply), then the data, then the
// records, then the lease generations.
func applyBucket(ctx context.Context, st store, prep Preparation, leaf PreparedLeaf, check func() error) (int, error) {
	gen, cur, _, ok, err := newestLease(ctx, st.b)
	if err != nil || !ok || gen != leaf.LeaseGen || cur.Retention != prep.ID {
		return 0, fmt.Errorf("%w: its lease changed since it was staged", errKept)
	}
	cur.Deleting = true
	data, _ := json.Marshal(cur)
	if err := st.replaceIfMatch(ctx, leaseKey(gen), data, leaf.LeaseETag); err != nil {
		return 0, fmt.Errorf("%w: its lease changed since it was staged (%v)", errKept, err)
	}
	if err := check(); err != nil {
		return 0, err
	}
	files, err := listFiles(ctx, st.b)
	if err != nil {
		return 0, err
	}
	n := 0
	var records, leases []string
	for _, f := range files {
		switch {
		case strings.HasPrefix(f.key, leasePrefix):
			leases = append(leases, f.key)
		case strings.HasPrefix(f.key, atlasPrefix):
			records = append(records, f.key)
		default:
			if err := st.b.Delete(ctx, f.key); err != nil {
				return n, fmt.Errorf("checkpoint %s: delete %s: %w", leaf.Location, f.key, err)
			}
			n++
		}
	}
	for _, k := range append(records, leases...) { // the newest lease generation last
		if err := st.b.Delete(ctx, k); err != nil {
			return n, fmt.Errorf("checkpoint %s: delete %s: %w", leaf.Location, k, err)
		}
	}
	return n, nil
}
