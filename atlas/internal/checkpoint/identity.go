package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// A checkpoint's governance records live beside Spark's files, under
// _atlas/ (Spark ignores files it does not know):
//
//	_atlas/identity.json     who owns it: id, owner, classification (Register, or the writer options)
//	_atlas/retirement.json   a reviewed retirement (Retire): no query may use it again
//	_atlas/prepared.json     a retention preparation staged it for deletion (retention.go)
//
// Each is created with a conditional create (S3 If-None-Match: *, a
// local exclusive create) and replaced only with If-Match on the ETag read.
const (
	atlasPrefix   = "_atlas/"
	identityKey   = atlasPrefix + "identity.json"
	retirementKey = atlasPrefix + "retirement.json"
	preparedKey   = atlasPrefix + "prepared.json"
)

// Writer options that set a checkpoint's identity when its query starts.
const (
	// OptionID is the checkpoint id, such as streaming-event-windows-v1.
	OptionID = "checkpointId"
	// OptionOwner is the owning team, such as Streaming Data Engineering.
	OptionOwner = "checkpointOwner"
	// OptionClassification is the classification, such as durable stream.
	OptionClassification = "checkpointClassification"
)

// Identity says which checkpoint this is and who owns it.
type Identity struct {
	// ID names the checkpoint independently of its location.
	ID string `json:"id"`
	// Owner is the team that owns it and reviews its retirement.
	Owner string `json:"owner"`
	// Classification is its class in the checkpoint policy ("durable stream").
	Classification string `json:"classification"`
	// RegisteredAt is when the identity was first recorded.
	RegisteredAt time.Time `json:"registered_at,omitzero"`
}

// IdentityFromOptions reads the identity writer options; ok=false when
// none is given. An id is required once any is given.
func IdentityFromOptions(opts map[string]string) (Identity, bool, error) {
	id := Identity{ID: opts[OptionID], Owner: opts[OptionOwner], Classification: opts[OptionClassification]}
	if id == (Identity{}) {
		return id, false, nil
	}
	if err := id.validate(); err != nil {
		return id, false, err
	}
	return id, true, nil
}

// validate requires every field: a half identity cannot be governed.
func (id Identity) validate() error {
	var missing []string
	for name, v := range map[string]string{OptionID: id.ID, OptionOwner: id.Owner, OptionClassification: id.Classification} {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("checkpoint identity: %s missing: a checkpoint's identity needs its id, owner and classification (the writer options %s, %s and %s, or atlas checkpoints register --id --owner --classification)",
			strings.Join(sortedStrings(missing), ", "), OptionID, OptionOwner, OptionClassification)
	}
	return nil
}

// Retirement is a reviewed decision that a checkpoint is not used again.
type Retirement struct {
	// ReviewedBy is who reviewed the retirement.
	ReviewedBy string `json:"reviewed_by"`
	// RecoveryApprovedBy is who approved how the query's output recovers
	// without this checkpoint (a fresh checkpoint can duplicate appends).
	RecoveryApprovedBy string `json:"recovery_approved_by"`
	// Reason says why.
	Reason string `json:"reason,omitempty"`
	// RetiredAt starts the quarantine.
	RetiredAt time.Time `json:"retired_at"`
}

// ErrRetired is returned by Open for a retired checkpoint.
var ErrRetired = errors.New("checkpoint is retired")

// refuseRetired fails with ErrRetired when b holds a retirement record.
func refuseRetired(ctx context.Context, b *blob.Bucket, location string) error {
	var r Retirement
	ok, err := readJSON(ctx, b, retirementKey, &r)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", location, err)
	}
	if !ok {
		return nil
	}
	return fmt.Errorf("%w: checkpoint %s was retired on %s (reviewed by %s): no query may use it again; give the query a new checkpointLocation, or delete %s there if the retirement was a mistake",
		ErrRetired, location, r.RetiredAt.UTC().Format(time.RFC3339), r.ReviewedBy, retirementKey)
}

// readJSON reads key into v; ok=false when it does not exist.
func readJSON(ctx context.Context, b *blob.Bucket, key string, v any) (bool, error) {
	data, err := b.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", key, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s is corrupt: %w", key, err)
	}
	return true, nil
}

// EnsureIdentity records id as the checkpoint's identity when it has
// none, and otherwise checks that the recorded one agrees.
func (c *Checkpoint) EnsureIdentity(ctx context.Context, id Identity) error {
	if err := c.checkLease(ctx); err != nil {
		return err
	}
	return putIdentity(ctx, c.store(), c.location, id, false)
}

// Identity returns the recorded identity, ok=false when none is.
func (c *Checkpoint) Identity(ctx context.Context) (Identity, bool, error) {
	var id Identity
	ok, err := readJSON(ctx, c.bucket, identityKey, &id)
	return id, ok, err
}

// putIdentity creates the identity record, or replaces a different one
// when replace (If-Match on the one read); a different one without
// replace is an error naming both.
func putIdentity(ctx context.Context, st store, location string, id Identity, replace bool) error {
	if err := id.validate(); err != nil {
		return err
	}
	var cur Identity
	ok, err := readJSON(ctx, st.b, identityKey, &cur)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", location, err)
	}
	if ok {
		id.RegisteredAt = cur.RegisteredAt
		if cur == id {
			return nil
		}
		if !replace {
			return fmt.Errorf("checkpoint %s is registered as %s (owner %s, %s), not %s (owner %s, %s): fix the writer options, or re-register it with atlas checkpoints register --replace",
				location, cur.ID, cur.Owner, cur.Classification, id.ID, id.Owner, id.Classification)
		}
		etag, err := st.etagOf(ctx, identityKey)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", location, err)
		}
		data, _ := json.Marshal(id)
		if err := st.replaceIfMatch(ctx, identityKey, data, etag); err != nil {
			return fmt.Errorf("checkpoint %s: register: %w", location, err)
		}
		return nil
	}
	id.RegisteredAt = time.Now().UTC()
	data, _ := json.Marshal(id)
	if err := st.createIfAbsent(ctx, identityKey, data); err != nil {
		return fmt.Errorf("checkpoint %s: register: %w; run it again", location, err)
	}
	return nil
}

// Register records a checkpoint's identity without opening it (its query
// may run): atlas checkpoints register. replace allows changing a
// different recorded identity.
func Register(ctx context.Context, location string, id Identity, replace bool, opts Options) error {
	st, err := openStore(ctx, location, opts)
	if err != nil {
		return err
	}
	defer st.b.Close()
	files, err := listFiles(ctx, st.b)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", location, err)
	}
	if _, ok := checkpointDirs(files)[""]; !ok {
		return fmt.Errorf("checkpoint %s: no checkpoint there (no metadata, lease or offsets): register a checkpoint after its query ran once, or pass the identity as writer options", location)
	}
	return putIdentity(ctx, st, location, id, replace)
}

// Retire records a reviewed retirement. The checkpoint must be stopped (a
// terminal lease record from a clean stop): Retire takes its lease for the
// time it writes, so no query starts meanwhile, and afterwards Open
// refuses it.
func Retire(ctx context.Context, location string, r Retirement, opts Options) error {
	if strings.TrimSpace(r.ReviewedBy) == "" || strings.TrimSpace(r.RecoveryApprovedBy) == "" {
		return fmt.Errorf("checkpoint %s: a retirement needs its reviewer and who approved the recovery (--reviewed-by, --recovery-approved-by)", location)
	}
	info, err := Inspect(ctx, location, InspectOptions{Options: opts})
	if err != nil {
		return err
	}
	if info.State != Stopped {
		return fmt.Errorf("checkpoint %s is %s (%s): only a stopped checkpoint (its query stopped cleanly, leaving a terminal lease record) can be retired", location, info.State, info.Reason)
	}
	if info.Identity == nil {
		return fmt.Errorf("checkpoint %s has no identity: register its id, owner and classification first (atlas checkpoints register)", location)
	}
	c, err := OpenWith(ctx, location, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	r.RetiredAt = time.Now().UTC()
	data, _ := json.Marshal(r)
	if err := c.store().createIfAbsent(ctx, retirementKey, data); err != nil {
		return fmt.Errorf("checkpoint %s: retire: %w", location, err)
	}
	return nil
}
