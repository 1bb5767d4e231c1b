// Package checkpoint keeps a streaming query's progress on a blob bucket
// (a local directory by default, any gocloud.dev/blob driver by URL), in
// Spark's layout:
//
//	metadata          {"id":"<query id>"}
//	offsets/<N>       write-ahead log: the source ranges and watermark of batch N, written before N runs
//	commits/<N>       commit log: batch N's output is committed, written after the sink commit
//	state/<op>/<N>    the state of stateful operator op after batch N
//
// A restart reads the latest offsets entry and the latest commit entry: an
// offsets entry without a commit is a batch to run again with exactly the
// same ranges and watermark. Every file is written whole (fileblob writes a
// temporary file and renames it), so a crash never leaves half a log entry.
package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Checkpoint is an open checkpoint location.
type Checkpoint struct {
	bucket   *blob.Bucket
	location string
	lease    *lease       // local directories: a file lock
	blease   *bucketLease // object stores: conditional writes
}

// Options tune Open.
type Options struct {
	// LeaseTTL is how long the lease of a bucket checkpoint outlives its
	// last renewal. Default DefaultLeaseTTL.
	LeaseTTL time.Duration
	// S3, when set, is how an s3:// location whose URL carries no query
	// parameters is reached (endpoint, addressing, credentials); see
	// RegisterS3Opener. A URL with parameters is opened by gocloud as is.
	S3 *S3Settings
	// Logf reports what the caller cannot see in an error: a lease lost
	// or a holder stalled past its lease. Nil means log.Printf.
	Logf func(format string, args ...any)
}

// Open opens (creating when needed) a checkpoint location: a local path,
// a file:// URL, or a URL of any gocloud.dev/blob driver linked into the
// program (s3://bucket/prefix; Spark's s3a:// is read as s3://).
//
// The checkpoint is leased to the caller until Close: a second Open of the
// same location, from this process or another, fails with ErrInUse naming
// the holder. A local directory is leased with a file lock, which the
// operating system drops when the process dies; a bucket (S3) with
// conditional writes (see bucketlease.go), which another query may take
// over only after the holder stopped renewing it for Options.LeaseTTL.
func Open(ctx context.Context, location string) (*Checkpoint, error) {
	return OpenWith(ctx, location, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, location string, opts Options) (*Checkpoint, error) {
	if location == "" {
		return nil, errors.New("checkpoint: empty location")
	}
	var c *Checkpoint
	if isLocal(location) {
		var err error
		if c, err = openDir(ctx, strings.TrimPrefix(location, "file://"), opts.Logf); err != nil {
			return nil, err
		}
	} else {
		b, err := openBucket(ctx, location, opts)
		if err != nil {
			return nil, err
		}
		if err := refuseRetired(ctx, b, location); err != nil {
			b.Close()
			return nil, err
		}
		bl, err := acquireBucketLease(ctx, b, location, opts.LeaseTTL, time.Now, opts.Logf)
		if err != nil {
			b.Close()
			return nil, err
		}
		c = &Checkpoint{bucket: b, location: location, blease: bl}
	}
	// A retirement recorded while the lease was being taken: give it back.
	if err := refuseRetired(ctx, c.bucket, c.location); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// openBucket opens the bucket of a blob URL (s3://, s3a://, any linked
// gocloud driver), prefixed with the URL's path.
func openBucket(ctx context.Context, location string, opts Options) (*blob.Bucket, error) {
	u := location
	if strings.HasPrefix(u, "s3a://") {
		u = "s3://" + strings.TrimPrefix(u, "s3a://")
	}
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", location, err)
	}
	prefix := strings.TrimPrefix(pu.Path, "/")
	pu.Path = ""
	var b *blob.Bucket
	if pu.Scheme == "s3" && pu.RawQuery == "" && !opts.S3.empty() {
		b, err = openS3(ctx, pu, opts.S3, location)
		if err != nil {
			return nil, err
		}
	} else if b, err = blob.OpenBucket(ctx, pu.String()); err != nil {
		return nil, fmt.Errorf("checkpoint %s: open: %w (for s3:// link the s3 driver: import _ \"gocloud.dev/blob/s3blob\")", location, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, strings.TrimSuffix(prefix, "/")+"/")
	}
	return b, nil
}

// isLocal reports whether a location is a local directory.
func isLocal(location string) bool {
	return !strings.Contains(location, "://") || strings.HasPrefix(location, "file://")
}

// openDir opens a local checkpoint directory and takes its lease; a
// retired one is refused before its lease file is touched.
func openDir(ctx context.Context, dir string, logf func(string, ...any)) (*Checkpoint, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", abs, err)
	}
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{CreateDir: true, NoTempDir: true, Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: open: %w", abs, err)
	}
	if err := refuseRetired(ctx, b, abs); err != nil {
		b.Close()
		return nil, err
	}
	l, err := acquireLease(abs, logf)
	if err != nil {
		b.Close()
		return nil, err
	}
	return &Checkpoint{bucket: b, location: abs, lease: l}, nil
}

// checkLease returns an error wrapping ErrLeaseLost when this query no
// longer holds its checkpoint: every write checks it first.
func (c *Checkpoint) checkLease(ctx context.Context) error {
	if c.blease != nil {
		return c.blease.check(ctx)
	}
	return c.lease.check()
}

// Location is where the checkpoint lives.
func (c *Checkpoint) Location() string { return c.location }

// Close releases the lease and the bucket.
func (c *Checkpoint) Close() error {
	return errors.Join(c.blease.release(), c.lease.release(), c.bucket.Close())
}

// Metadata is the checkpoint's metadata file.
type Metadata struct {
	// ID is the query id, stable across restarts.
	ID string `json:"id"`
}

// Metadata returns the metadata file, ok=false when there is none.
func (c *Checkpoint) Metadata(ctx context.Context) (Metadata, bool, error) {
	var m Metadata
	data, ok, err := c.read(ctx, "metadata")
	if err != nil || !ok {
		return m, ok, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, false, fmt.Errorf("checkpoint %s: metadata is corrupt: %w", c.location, err)
	}
	return m, true, nil
}

// WriteMetadata writes the metadata file.
func (c *Checkpoint) WriteMetadata(ctx context.Context, m Metadata) error {
	data, _ := json.Marshal(m)
	return c.write(ctx, "metadata", data)
}

// OffsetSeqMetadata is what Spark records beside the offsets of a batch.
type OffsetSeqMetadata struct {
	// BatchWatermarkMs is the watermark the batch runs with: the one that
	// closes windows and evicts state. Since Spark 3.4 (SPARK-40925) the
	// batch filters late rows with the previous entry's BatchWatermarkMs
	// instead; nothing else is recorded for it (OffsetSeqMetadataForBatch).
	BatchWatermarkMs int64 `json:"batchWatermarkMs"`
	// BatchTimestampMs is the batch's processing time; a replay uses the
	// recorded value (current_timestamp, eventTimeMaxAheadOfProcessing).
	BatchTimestampMs int64 `json:"batchTimestampMs"`
	// Conf holds settings that must not change across restarts.
	Conf map[string]string `json:"conf,omitempty"`
}

// OffsetSeq is one entry of the offsets log: where each source's batch
// ends (and, from the previous entry, where it starts).
type OffsetSeq struct {
	BatchID  int64
	Metadata OffsetSeqMetadata
	// Offsets has one end offset per source, in source order.
	Offsets []source.Offset
}

// WriteOffsets appends an entry to the offsets log (overwriting a previous
// entry of the same batch id, which happens only when it never committed).
func (c *Checkpoint) WriteOffsets(ctx context.Context, o OffsetSeq) error {
	var b strings.Builder
	meta, _ := json.Marshal(o.Metadata)
	b.WriteString("v1\n")
	b.Write(meta)
	for _, off := range o.Offsets {
		b.WriteByte('\n')
		if off == "" {
			b.WriteString("-")
		} else {
			b.WriteString(string(off))
		}
	}
	return c.write(ctx, "offsets/"+strconv.FormatInt(o.BatchID, 10), []byte(b.String()))
}

// Offsets reads the offsets entry of batch id.
func (c *Checkpoint) Offsets(ctx context.Context, id int64) (*OffsetSeq, error) {
	o, ok, err := c.offsets(ctx, id)
	if err == nil && !ok {
		err = fmt.Errorf("checkpoint %s: offsets/%d is missing", c.location, id)
	}
	return o, err
}

// offsets reads and parses batch id's offsets entry, ok=false when missing.
func (c *Checkpoint) offsets(ctx context.Context, id int64) (*OffsetSeq, bool, error) {
	name := "offsets/" + strconv.FormatInt(id, 10)
	data, ok, err := c.read(ctx, name)
	if err != nil || !ok {
		return nil, false, err
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || lines[0] != "v1" {
		return nil, false, fmt.Errorf("checkpoint %s: %s: unsupported format (want v1)", c.location, name)
	}
	o := &OffsetSeq{BatchID: id}
	if err := json.Unmarshal([]byte(lines[1]), &o.Metadata); err != nil {
		return nil, false, fmt.Errorf("checkpoint %s: %s: %w", c.location, name, err)
	}
	for _, l := range lines[2:] {
		if l == "-" {
			l = ""
		}
		o.Offsets = append(o.Offsets, source.Offset(l))
	}
	return o, true, nil
}

// OffsetSeqMetadataForBatch returns the metadata recorded with batch id's
// offsets entry, ok=false when id < 0 or the entry is missing (Spark's
// OffsetSeqLog.offsetSeqMetadataForBatchId). The executor reads batch
// N-1's entry to get batch N's watermark for late events (SPARK-40925), so
// a replay of N after a restart judges late rows exactly as the first run.
func (c *Checkpoint) OffsetSeqMetadataForBatch(ctx context.Context, id int64) (OffsetSeqMetadata, bool, error) {
	if id < 0 {
		return OffsetSeqMetadata{}, false, nil
	}
	o, ok, err := c.offsets(ctx, id)
	if err != nil || !ok {
		return OffsetSeqMetadata{}, false, err
	}
	return o.Metadata, true, nil
}

// LatestOffsets returns the offsets entry with the highest batch id, or nil.
func (c *Checkpoint) LatestOffsets(ctx context.Context) (*OffsetSeq, error) {
	id, ok, err := c.latest(ctx, "offsets/")
	if err != nil || !ok {
		return nil, err
	}
	return c.Offsets(ctx, id)
}

// CommitMetadata is what Spark writes to the commit log.
type CommitMetadata struct {
	// NextBatchWatermarkMs is the watermark after the batch.
	NextBatchWatermarkMs int64 `json:"nextBatchWatermarkMs"`
}

// WriteCommit marks batch id as committed.
func (c *Checkpoint) WriteCommit(ctx context.Context, id int64, m CommitMetadata) error {
	meta, _ := json.Marshal(m)
	return c.write(ctx, "commits/"+strconv.FormatInt(id, 10), append([]byte("v1\n"), meta...))
}

// LatestCommit returns the highest committed batch id.
func (c *Checkpoint) LatestCommit(ctx context.Context) (int64, CommitMetadata, bool, error) {
	var m CommitMetadata
	id, ok, err := c.latest(ctx, "commits/")
	if err != nil || !ok {
		return 0, m, ok, err
	}
	data, ok, err := c.read(ctx, "commits/"+strconv.FormatInt(id, 10))
	if err != nil || !ok {
		return 0, m, false, err
	}
	_, body, _ := strings.Cut(string(data), "\n")
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return 0, m, false, fmt.Errorf("checkpoint %s: commits/%d: %w", c.location, id, err)
	}
	return id, m, true, nil
}

// WriteState stores operator op's state after batch version.
func (c *Checkpoint) WriteState(ctx context.Context, op string, version int64, data []byte) error {
	return c.write(ctx, "state/"+op+"/"+strconv.FormatInt(version, 10), data)
}

// ReadState loads operator op's state as of batch version.
func (c *Checkpoint) ReadState(ctx context.Context, op string, version int64) ([]byte, bool, error) {
	return c.read(ctx, "state/"+op+"/"+strconv.FormatInt(version, 10))
}

// Purge deletes log entries and state versions below keepFrom, keeping the
// checkpoint small (Spark's minBatchesToRetain).
func (c *Checkpoint) Purge(ctx context.Context, keepFrom int64) error {
	if err := c.checkLease(ctx); err != nil {
		return err
	}
	for _, prefix := range []string{"offsets/", "commits/", "state/"} {
		it := c.bucket.List(&blob.ListOptions{Prefix: prefix})
		for {
			obj, err := it.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("checkpoint %s: list %s: %w", c.location, prefix, err)
			}
			base := obj.Key[strings.LastIndexByte(obj.Key, '/')+1:]
			if id, err := strconv.ParseInt(base, 10, 64); err == nil && id < keepFrom {
				if err := c.bucket.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
					return fmt.Errorf("checkpoint %s: delete %s: %w", c.location, obj.Key, err)
				}
			}
		}
	}
	return nil
}

func (c *Checkpoint) latest(ctx context.Context, prefix string) (int64, bool, error) {
	var ids []int64
	it := c.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false, fmt.Errorf("checkpoint %s: list %s: %w", c.location, prefix, err)
		}
		if id, err := strconv.ParseInt(strings.TrimPrefix(obj.Key, prefix), 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0, false, nil
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids[len(ids)-1], true, nil
}

func (c *Checkpoint) read(ctx context.Context, key string) ([]byte, bool, error) {
	data, err := c.bucket.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("checkpoint %s: read %s: %w", c.location, key, err)
	}
	return data, true, nil
}

func (c *Checkpoint) write(ctx context.Context, key string, data []byte) error {
	if err := c.checkLease(ctx); err != nil {
		return err
	}
	if err := c.bucket.WriteAll(ctx, key, data, nil); err != nil {
		return fmt.Errorf("checkpoint %s: write %s: %w", c.location, key, err)
	}
	return nil
}

// WriteInitialOffset records where source i started, before batch 0 runs,
// so a replay of batch 0 reads the same range even when the source's
// starting position ("latest") has moved since (Spark's sources/<i>/0).
func (c *Checkpoint) WriteInitialOffset(ctx context.Context, i int, off source.Offset) error {
	return c.write(ctx, "sources/"+strconv.Itoa(i)+"/0", []byte("v1\n"+string(off)))
}

// InitialOffset reads what WriteInitialOffset recorded.
func (c *Checkpoint) InitialOffset(ctx context.Context, i int) (source.Offset, bool, error) {
	data, ok, err := c.read(ctx, "sources/"+strconv.Itoa(i)+"/0")
	if err != nil || !ok {
		return "", ok, err
	}
	_, body, _ := strings.Cut(string(data), "\n")
	return source.Offset(body), true, nil
}

// SourceLog returns the metadata log of source i, at sources/<i>/ (used
// by sources that implement source.LoggingSource, such as the file
// source's seen-files log).
func (c *Checkpoint) SourceLog(i int) source.MetadataLog {
	return &sourceLog{c: c, prefix: "sources/" + strconv.Itoa(i) + "/"}
}

type sourceLog struct {
	c      *Checkpoint
	prefix string
}

func (l *sourceLog) Add(ctx context.Context, name string, data []byte) error {
	key := l.prefix + name
	old, ok, err := l.c.read(ctx, key)
	if err != nil {
		return err
	}
	if ok {
		if string(old) == string(data) {
			return nil
		}
		return fmt.Errorf("checkpoint %s: %s exists with other content: is another query using this checkpoint?", l.c.location, key)
	}
	return l.c.write(ctx, key, data)
}

func (l *sourceLog) Get(ctx context.Context, name string) ([]byte, bool, error) {
	return l.c.read(ctx, l.prefix+name)
}

func (l *sourceLog) List(ctx context.Context) ([]string, error) {
	var out []string
	it := l.c.bucket.List(&blob.ListOptions{Prefix: l.prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: list %s: %w", l.c.location, l.prefix, err)
		}
		if name := strings.TrimPrefix(obj.Key, l.prefix); name != "" && !strings.Contains(name, "/") {
			out = append(out, name)
		}
	}
}

func (l *sourceLog) Delete(ctx context.Context, name string) error {
	if err := l.c.checkLease(ctx); err != nil {
		return err
	}
	if err := l.c.bucket.Delete(ctx, l.prefix+name); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("checkpoint %s: delete %s%s: %w", l.c.location, l.prefix, name, err)
	}
	return nil
}
