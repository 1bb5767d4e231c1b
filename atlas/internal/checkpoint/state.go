package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/atlas-lakehouse/atlas/atlas/internal/ckpath"
)

// State is a checkpoint's lease state under the checkpoint policy.
type State string

// The lease states. Only a retired checkpoint can ever be deleted; an
// active or uncertain one never is, whatever its age.
const (
	// Active: a query holds the lease (a local flock, or a live S3 lease).
	Active State = "active"
	// Stopped: its last query stopped cleanly and wrote a terminal record.
	Stopped State = "stopped"
	// Retired: stopped, and a reviewed retirement is recorded.
	Retired State = "retired"
	// Uncertain: a lease ended without a terminal record (a crash, or a
	// stalled holder whose S3 lease expired), a server's resume record
	// names it, or it cannot be read.
	Uncertain State = "uncertain"
)

// Info is what Inspect and Survey find about one checkpoint.
type Info struct {
	// Location is the checkpoint's directory or URL.
	Location string `json:"location"`
	// State is its lease state, and Reason says why.
	State  State  `json:"state"`
	Reason string `json:"reason"`
	// Identity and Retirement are its records, nil when absent.
	Identity   *Identity   `json:"identity,omitempty"`
	Retirement *Retirement `json:"retirement,omitempty"`
	// Files counts its data files (bookkeeping left out); Newest is the
	// modification time of the newest.
	Files  int       `json:"files"`
	Newest time.Time `json:"newest,omitzero"`
	// ContentHash is the SHA-256 of its data files' names, sizes, times
	// and checksums: any write changes it.
	ContentHash string `json:"content_hash"`
	// Nested are the checkpoints inside it; Parents those it is inside.
	Nested  []string `json:"nested,omitempty"`
	Parents []string `json:"parents,omitempty"`

	lease leaseView
}

// leaseView is the lease as inspected.
type leaseView struct {
	rec  leaseRecord
	gen  int64  // object stores: the newest generation
	etag string // object stores: its ETag
}

// InspectOptions tune Inspect, Survey and retention.
type InspectOptions struct {
	Options
	// ResumeRecords returns the checkpoint locations the Spark Connect
	// server's resume records name (location -> record), read afresh at
	// each call; nil means none are kept.
	ResumeRecords func() (map[string]string, error)
}

// Inspect finds the state of the checkpoint at location.
func Inspect(ctx context.Context, location string, opts InspectOptions) (Info, error) {
	infos, err := survey(ctx, location, opts, false)
	if err != nil {
		return Info{}, err
	}
	for _, in := range infos {
		if in.Location == location || sameLocation(in.Location, location) {
			return in, nil
		}
	}
	return Info{Location: location, State: Uncertain, Reason: "no checkpoint there (no metadata, lease or log)"}, nil
}

// Survey finds every checkpoint under root, at any depth (the root itself
// included), sorted by location.
func Survey(ctx context.Context, root string, opts InspectOptions) ([]Info, error) {
	return survey(ctx, root, opts, true)
}

func survey(ctx context.Context, root string, opts InspectOptions, deep bool) ([]Info, error) {
	st, err := openStore(ctx, root, opts.Options)
	if err != nil {
		return nil, err
	}
	defer st.b.Close()
	files, err := listFiles(ctx, st.b)
	if err != nil {
		return nil, fmt.Errorf("checkpoint root %s: %w", root, err)
	}
	records, recErr := resumeRecords(opts)
	dirs := checkpointDirs(files)
	var out []Info
	for _, rel := range sortedKeys(dirs) {
		if !deep && rel != "" {
			continue
		}
		loc := root
		if rel != "" {
			loc = ckpath.Join(root, rel)
		}
		in := Info{Location: loc}
		for _, other := range sortedKeys(dirs) {
			if other != rel && within(other, rel) {
				in.Nested = append(in.Nested, ckpath.Join(root, other))
			}
			if other != rel && within(rel, other) {
				in.Parents = append(in.Parents, joinOrRoot(root, other))
			}
		}
		in.Files, in.Newest, in.ContentHash = contentOf(files, rel)
		inspectLease(ctx, st, loc, rel, opts.Options, &in)
		inspectRecords(ctx, st, rel, &in)
		switch {
		case recErr != nil:
			in.State, in.Reason = Uncertain, fmt.Sprintf("the server's resume records cannot be read (%v): any of them may name it", recErr)
		case resumeRecordFor(records, loc) != "":
			in.State, in.Reason = Uncertain, "the Spark Connect server's resume record "+resumeRecordFor(records, loc)+" names it: the server resumes its query at its next start"
		}
		out = append(out, in)
	}
	return out, nil
}

// inspectLease sets in.State from the lease of the checkpoint at rel.
func inspectLease(ctx context.Context, st store, loc, rel string, opts Options, in *Info) {
	if st.dir != "" {
		inspectLocalLease(filepath.Join(st.dir, filepath.FromSlash(rel)), in)
		return
	}
	b := st.b
	if rel != "" {
		// Its own bucket: blob.PrefixedBucket would close the root's.
		sub, err := openBucket(ctx, loc, opts)
		if err != nil {
			in.State, in.Reason = Uncertain, fmt.Sprintf("its lease cannot be read: %v", err)
			return
		}
		defer sub.Close()
		b = sub
	}
	gen, rec, mod, ok, err := newestLease(ctx, b)
	switch {
	case err != nil:
		in.State, in.Reason = Uncertain, fmt.Sprintf("its lease cannot be read: %v", err)
		return
	case !ok:
		in.State, in.Reason = Uncertain, "it has no lease record, so no terminal record of a clean stop"
		return
	}
	in.lease = leaseView{rec: rec, gen: gen}
	in.lease.etag, _ = etagOf(ctx, b, leaseKey(gen))
	expires := mod.Add(time.Duration(rec.TTLMillis) * time.Millisecond)
	switch {
	case rec.Deleting:
		in.State, in.Reason = Active, "a retention apply is deleting it ("+rec.Retention+")"
	case rec.Released:
		in.State, in.Reason = Stopped, "its query stopped cleanly at "+rec.StoppedAt.UTC().Format(time.RFC3339)
	case time.Now().Before(expires):
		in.State, in.Reason = Active, "held by "+rec.Holder+", lease live until "+expires.UTC().Format(time.RFC3339)
	default:
		in.State, in.Reason = Uncertain, "the lease of "+rec.Holder+" expired at "+expires.UTC().Format(time.RFC3339)+" with no terminal record: its holder may be stalled (paused) or dead, and may resume"
	}
}

// inspectLocalLease sets in.State from a local lease file, probing its
// flock without waiting (a query starting at this very moment may find
// it taken and fail with ErrInUse; it can start again at once).
func inspectLocalLease(dir string, in *Info) {
	p := filepath.Join(dir, leaseFile)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		in.State, in.Reason = Uncertain, "it has no lease file, so no terminal record of a clean stop"
		return
	}
	if err != nil {
		in.State, in.Reason = Uncertain, fmt.Sprintf("its lease cannot be read: %v", err)
		return
	}
	defer f.Close()
	ok, err := tryLock(f)
	switch {
	case err != nil:
		in.State, in.Reason = Uncertain, fmt.Sprintf("its lease cannot be probed: %v", err)
		return
	case !ok:
		in.State, in.Reason = Active, "held by "+localHolder(p)
		return
	}
	rec, ok, err := readLocalRecord(p)
	switch {
	case err != nil || !ok:
		in.State, in.Reason = Uncertain, "its lease file holds no terminal record (an older Atlas, or unreadable)"
	case rec.Released:
		in.lease = leaseView{rec: rec}
		in.State, in.Reason = Stopped, "its query stopped cleanly at "+rec.StoppedAt.UTC().Format(time.RFC3339)
	default:
		in.lease = leaseView{rec: rec}
		in.State, in.Reason = Uncertain, "its last query ("+rec.Holder+") ended without a clean stop (crashed or killed): it may be resumed from here"
	}
}

// inspectRecords reads the identity and retirement; a stopped checkpoint
// with a retirement is retired. An unreadable record makes it uncertain.
func inspectRecords(ctx context.Context, st store, rel string, in *Info) {
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	var id Identity
	if ok, err := readJSON(ctx, st.b, prefix+identityKey, &id); err != nil {
		in.State, in.Reason = Uncertain, "unreadable: "+err.Error()
		return
	} else if ok {
		in.Identity = &id
	}
	var r Retirement
	if ok, err := readJSON(ctx, st.b, prefix+retirementKey, &r); err != nil {
		in.State, in.Reason = Uncertain, "unreadable: "+err.Error()
		return
	} else if ok {
		in.Retirement = &r
		if in.State == Stopped {
			in.State = Retired
			in.Reason = fmt.Sprintf("retired at %s, reviewed by %s, recovery approved by %s", r.RetiredAt.UTC().Format(time.RFC3339), r.ReviewedBy, r.RecoveryApprovedBy)
		}
	}
}

// fileInfo is one file of a listing, its key relative to the listed root.
type fileInfo struct {
	key  string
	size int64
	mod  time.Time
	md5  []byte
}

// listFiles lists every file of b, recursively.
func listFiles(ctx context.Context, b *blob.Bucket) ([]fileInfo, error) {
	var out []fileInfo
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list: %w", err)
		}
		out = append(out, fileInfo{key: obj.Key, size: obj.Size, mod: obj.ModTime, md5: obj.MD5})
	}
}

// checkpointDirs finds the folders (relative, "" the listed root itself)
// that are checkpoints: those holding metadata, a lease, or a file in
// _lease/, _atlas/, offsets/ or commits/.
func checkpointDirs(files []fileInfo) map[string]bool {
	dirs := map[string]bool{}
	for _, f := range files {
		dir, base := path.Split(f.key)
		dir = strings.TrimSuffix(dir, "/")
		if base == "metadata" || base == leaseFile {
			dirs[dir] = true
			continue
		}
		parent, sub := path.Split(dir)
		switch sub {
		case "_lease", "_atlas", "offsets", "commits":
			dirs[strings.TrimSuffix(parent, "/")] = true
		}
	}
	return dirs
}

// bookkeeping reports whether a key (relative to its checkpoint) is lease
// or retention bookkeeping rather than the checkpoint's content.
func bookkeeping(key string) bool {
	return key == leaseFile || strings.HasPrefix(key, leasePrefix) || key == atlasPrefix+".lock" ||
		key == preparedKey || strings.HasPrefix(path.Base(key), ".tmp-")
}

// contentOf counts the data files under rel, finds the newest and hashes
// them.
func contentOf(files []fileInfo, rel string) (int, time.Time, string) {
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	h := sha256.New()
	n := 0
	var newest time.Time
	for _, f := range files {
		if !strings.HasPrefix(f.key, prefix) || bookkeeping(strings.TrimPrefix(f.key, prefix)) {
			continue
		}
		n++
		if f.mod.After(newest) {
			newest = f.mod
		}
		fmt.Fprintf(h, "%s\t%d\t%d\t%x\n", strings.TrimPrefix(f.key, prefix), f.size, f.mod.UnixNano(), f.md5)
	}
	return n, newest, hex.EncodeToString(h.Sum(nil))
}

// openStore opens a location as a store, without a lease.
func openStore(ctx context.Context, loc string, opts Options) (store, error) {
	if isLocal(loc) {
		dir := strings.TrimPrefix(loc, "file://")
		if _, err := os.Stat(dir); err != nil {
			return store{}, fmt.Errorf("checkpoint %s: %w", loc, err)
		}
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite})
		if err != nil {
			return store{}, fmt.Errorf("checkpoint %s: open: %w", loc, err)
		}
		return store{b: b, dir: dir}, nil
	}
	b, err := openBucket(ctx, loc, opts)
	return store{b: b}, err
}

// store is the checkpoint's bucket as a store.
func (c *Checkpoint) store() store {
	if c.lease != nil {
		return store{b: c.bucket, dir: c.location}
	}
	return store{b: c.bucket}
}

// resumeRecords calls opts.ResumeRecords, if set.
func resumeRecords(opts InspectOptions) (map[string]string, error) {
	if opts.ResumeRecords == nil {
		return nil, nil
	}
	return opts.ResumeRecords()
}

// resumeRecordFor returns the record naming loc, or a location inside or
// above it, or "".
func resumeRecordFor(records map[string]string, loc string) string {
	for _, k := range sortedKeys(records) {
		a, b := normLocation(k), normLocation(loc)
		if a == b || within(a, b) || within(b, a) {
			return records[k]
		}
	}
	return ""
}

// sameLocation reports whether two spellings name one location.
func sameLocation(a, b string) bool { return normLocation(a) == normLocation(b) }

// normLocation spells a location for comparison: s3a:// as s3://, no URL
// query, no trailing slash, local paths cleaned and absolute.
func normLocation(loc string) string {
	if !ckpath.IsURL(loc) {
		p := strings.TrimPrefix(loc, "file://")
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return filepath.ToSlash(filepath.Clean(p))
	}
	base, _, _ := strings.Cut(loc, "?")
	if rest, ok := strings.CutPrefix(base, "s3a://"); ok {
		base = "s3://" + rest
	}
	return strings.TrimSuffix(base, "/")
}

// within reports whether path a is strictly inside folder b ("" is the
// root, which holds everything else).
func within(a, b string) bool {
	if b == "" {
		return a != ""
	}
	return strings.HasPrefix(a, b+"/")
}

// joinOrRoot is ckpath.Join(root, rel), or root itself for "".
func joinOrRoot(root, rel string) string {
	if rel == "" {
		return root
	}
	return ckpath.Join(root, rel)
}

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortedStrings returns s sorted.
func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}
