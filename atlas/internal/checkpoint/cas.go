package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Compare-and-swap on a checkpoint's records.
//
// On S3, creating an object is conditional with gocloud's IfNotExist (S3
// If-None-Match: *) and replacing one with If-Match on the ETag the caller
// read, set on the upload through gocloud's BeforeWrite (S3 added both to
// PutObject in 2024; aws-sdk-go-v2's s3 v1.114 and transfermanager v0.4
// carry them, and the MinIO the tests run honours them). Drivers without
// If-Match (memblob in tests) compare the ETag just before the write,
// which is not atomic.
//
// In a local directory gocloud's fileblob IfNotExist is checked within one
// process only, so a create is a hard link of a temporary file to the name
// (link fails if the name exists, across processes), and a replace holds
// the flock of _atlas/.lock while it compares and renames.

// errChanged is wrapped by a conditional write whose object changed.
var errChanged = errors.New("changed concurrently")

// store is a checkpoint's bucket, and its directory when it is local.
type store struct {
	b   *blob.Bucket
	dir string // "" on an object store
}

// createIfAbsent writes key only if no object of that name exists.
func (st store) createIfAbsent(ctx context.Context, key string, data []byte) error {
	if st.dir == "" {
		err := st.b.WriteAll(ctx, key, data, &blob.WriterOptions{IfNotExist: true, ContentType: "application/json"})
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return fmt.Errorf("create %s: it exists: %w", key, errChanged)
		}
		return err
	}
	path := filepath.Join(st.dir, filepath.FromSlash(key))
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: it exists: %w", key, errChanged)
	} else if err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	return nil
}

// replaceIfMatch writes key only if its ETag is still etag.
func (st store) replaceIfMatch(ctx context.Context, key string, data []byte, etag string) error {
	if st.dir != "" {
		unlock, err := st.lockRecords()
		if err != nil {
			return err
		}
		defer unlock()
		if cur, err := st.etagOf(ctx, key); err != nil || cur != etag {
			return fmt.Errorf("replace %s: %w", key, errChanged)
		}
		path := filepath.Join(st.dir, filepath.FromSlash(key))
		tmp, err := writeTemp(path, data)
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("replace %s: %w", key, err)
		}
		return nil
	}
	return replaceIfMatch(ctx, st.b, key, data, etag)
}

// replaceIfMatch writes key of an object store only if its ETag is etag.
func replaceIfMatch(ctx context.Context, b *blob.Bucket, key string, data []byte, etag string) error {
	opts := &blob.WriterOptions{ContentType: "application/json", BeforeWrite: func(as func(any) bool) error {
		var in *transfermanager.UploadObjectInput
		if !as(&in) {
			return errNoIfMatch
		}
		in.IfMatch = aws.String(etag)
		return nil
	}}
	err := b.WriteAll(ctx, key, data, opts)
	if errors.Is(err, errNoIfMatch) {
		// Not S3: compare, then write (not atomic; tests only). The
		// driver may hold its lock during BeforeWrite, so not in there.
		a, aerr := b.Attributes(ctx, key)
		if aerr != nil || a.ETag != etag {
			return fmt.Errorf("replace %s: %w", key, errChanged)
		}
		err = b.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: "application/json"})
	}
	if c := gcerrors.Code(err); c == gcerrors.FailedPrecondition || c == gcerrors.NotFound {
		return fmt.Errorf("replace %s: %w", key, errChanged)
	}
	return err
}

// errNoIfMatch aborts a write on a driver without If-Match.
var errNoIfMatch = errors.New("the driver has no If-Match")

// lockRecords takes the flock of _atlas/.lock, waiting for other writers
// of records of this directory.
func (st store) lockRecords() (func(), error) {
	dir := filepath.Join(st.dir, filepath.FromSlash(atlasPrefix))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockWait(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// writeTemp writes data to a new synced file beside path.
func writeTemp(path string, data []byte) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// etagOf returns key's ETag.
func (st store) etagOf(ctx context.Context, key string) (string, error) {
	return etagOf(ctx, st.b, key)
}

// etagOf returns key's ETag in b.
func etagOf(ctx context.Context, b *blob.Bucket, key string) (string, error) {
	a, err := b.Attributes(ctx, key)
	if err != nil {
		return "", err
	}
	return a.ETag, nil
}

// orLog returns logf, or log.Printf when it is nil.
func orLog(logf func(string, ...any)) func(string, ...any) {
	if logf != nil {
		return logf
	}
	return log.Printf
}
